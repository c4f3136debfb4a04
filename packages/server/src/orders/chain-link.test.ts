import type { Database } from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Chain, ChainHistory, TokenTxRequest } from '../chain/chain.js';
import type { Address, ChainTx } from '../chain/chain-types.js';
import type { EmbeddedChain } from '../chain/embedded-chain.js';
import { SqliteChainStore } from '../chain/sqlite-chain-store.js';
import { A, B, C, createTestChain, ESCROW, tempSqlite } from '../chain/test-support.js';
import type { EngineEvent } from '../engine/index.js';
import { Harness } from '../engine/test-support/harness.js';
import { committedBatch } from '../sequencer/committed-batch.js';
import type { AppliedEntry, EngineCommandInput } from '../sequencer/inputs.js';
import { migrate } from '../store/sqlite/migrations.js';
import { SqliteEscrowFeed } from '../store/sqlite/sqlite-escrow-feed.js';
import { SqliteProjector } from '../store/sqlite/sqlite-projector.js';
import { SqliteTradingQueries } from '../store/sqlite/sqlite-trading-queries.js';
import { GATE_CHECKPOINTER, GATE_FREE, setWriteGate, writeGate } from '../store/sqlite/write-gate.js';
import { ChainLink, chainMemo, type EscrowsInput, parseEscrowMemo } from './chain-link.js';

const D: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const MARKET = `0x${'ab'.repeat(32)}`;
/** Stakes far beyond 2^53: any float on the way would show. */
const BIG = 10n ** 24n;
const USDC = 1_000_000n;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/**
 * One "process": the database, the embedded chain on it and a started ChainLink whose receipts go to a
 * sequencer in short: each input, recorded in `inputs`, is projected at once (SqliteProjector) as an entry
 * of its own, after the seqs of the test's fills.
 */
function boot(
  file: ReturnType<typeof tempSqlite>,
  options: {
    /** What the link sees of the chain (default: the chain itself). */
    linkChain?: (chain: EmbeddedChain) => Chain & ChainHistory;
    onSubmitError?: (error: unknown) => void;
    /** The flush timer's period (default: a minute, so that tests flush by hand). */
    flushMs?: number;
    /** The entries' clock starts here (default 5,000 ms) and moves 1 ms an entry. */
    clockFrom?: number;
    /** Whether the sequencer takes an input (default: always; else `submit` throws, as when its queue is full). */
    takes?: () => boolean;
  } = {},
) {
  const db = file.open();
  migrate(db);
  const listenerErrors: unknown[] = [];
  const { chain, timer } = createTestChain(new SqliteChainStore(db), 4162, (e) => listenerErrors.push(e));
  const link = new ChainLink(
    new SqliteEscrowFeed(db),
    options.linkChain?.(chain) ?? chain,
    (account) => chain.proxyAddressFor(account),
    options.onSubmitError ??
      ((error) => {
        throw error;
      }),
  );
  const projector = new SqliteProjector(db);
  const inputs: EscrowsInput[] = [];
  let seq = Math.max(projector.cursor(), 1_000_000);
  let now = options.clockFrom ?? 5_000;
  const submit = (input: EscrowsInput) => {
    if (options.takes && !options.takes()) throw new Error('the sequencer is full');
    inputs.push(input);
    // A projection that fails rejects, as the sequencer's promise does for an input it could not commit.
    return new Promise((resolve) =>
      resolve(projector.project([{ seq: ++seq, ts: ++now, input, events: [] }])),
    );
  };
  const stop = link.start(submit, options.flushMs ?? 60_000);
  return {
    db,
    chain,
    timer,
    link,
    inputs,
    listenerErrors,
    stop,
    async close() {
      stop();
      await chain.stop();
      db.close();
    },
  };
}

function files() {
  const f = tempSqlite();
  cleanups.push(f.cleanup);
  return f;
}

type Node = ReturnType<typeof boot>;

/** Waits (turns of the event loop) until `done` holds. */
async function until(done: () => boolean, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setImmediate(r));
  }
}

/** Funds proxies on the chain (a deposit batch), mined at once. */
async function fund(node: Node, amounts: [Address, bigint][]) {
  for (const [account, amount] of amounts) await node.chain.mint(node.chain.proxyAddressFor(account), amount);
  node.timer.tick();
}

/** The chain as the link sees it, refusing (rejecting) the submissions `refuses` picks. */
function refusing(
  chain: EmbeddedChain,
  refuses: (requests: readonly TokenTxRequest[]) => boolean,
): Chain & ChainHistory {
  return {
    async submitMany(requests) {
      if (refuses(requests)) throw new Error('refused by the chain');
      return chain.submitMany(requests);
    },
    onBlock: (listener) => chain.onBlock(listener),
    headNumber: () => chain.headNumber(),
    receiptsBetween: (after, through, kind) => chain.receiptsBetween(after, through, kind),
  } as Pick<Chain, 'submitMany' | 'onBlock'> & ChainHistory as Chain & ChainHistory;
}

const tradeOf = (orderId: string) => `trade-${orderId}`;

/**
 * A match at `seq` as the batch writes it (its journal row, a fill per side, trades upserted, all MATCHED) and the
 * engine event the batch carries.
 */
function match(
  db: Database,
  seq: number,
  matchId: string,
  maker: { account: Address; orderId: string; stake: bigint },
  taker: { account: Address; orderId: string; stake: bigint },
): EngineEvent {
  const pot = (maker.stake + taker.stake).toString();
  // The entry's journal row (its time is the fills' created_at; seq doubles as the time here).
  db.prepare(`INSERT OR IGNORE INTO journal (seq, ts, kind, payload) VALUES (?, ?, 'place', '{}')`).run(
    seq,
    seq,
  );
  for (const [side, s] of [
    ['M', maker],
    ['T', taker],
  ] as const) {
    db.prepare(
      `INSERT INTO fills (id, match_id, order_id, trade_id, account, market_hash, is_outcome_one, is_maker,
         fill_amount, pot, fill_odds, status, seq, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '50', 'MATCHED', ?, ?, ?)`,
    ).run(
      `${matchId}-${side}`,
      matchId,
      s.orderId,
      tradeOf(s.orderId),
      s.account,
      MARKET,
      side === 'M' ? 1 : 0,
      side === 'M' ? 1 : 0,
      s.stake.toString(),
      pot,
      seq,
      seq,
      seq,
    );
    db.prepare(
      `INSERT INTO trades (id, order_id, account, market_hash, event_id, is_outcome_one, is_maker, stake, pot,
         status, last_fill_seq, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'ev', ?, ?, ?, ?, 'MATCHED', ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET last_fill_seq = excluded.last_fill_seq`,
    ).run(
      tradeOf(s.orderId),
      s.orderId,
      s.account,
      MARKET,
      side === 'M' ? 1 : 0,
      side === 'M' ? 1 : 0,
      s.stake.toString(),
      pot,
      seq,
      seq,
      seq,
    );
  }
  return {
    type: 'orderMatched',
    matchId,
    marketHash: MARKET,
    eventId: 'ev',
    tick: 400,
    makerOdds: 50n,
    takerOdds: 50n,
    makerOrderId: maker.orderId,
    makerAccount: maker.account,
    makerIsBettingOutcomeOne: true,
    makerStake: maker.stake,
    makerRemainingSize: 0n,
    takerOrderId: taker.orderId,
    takerAccount: taker.account,
    takerStake: taker.stake,
    takerRemainingSize: 0n,
  };
}

const entry = (seq: number, events: EngineEvent[], input?: AppliedEntry['input']): AppliedEntry => ({
  seq,
  ts: seq,
  input: input ?? { kind: 'engine', command: { type: 'expire' } },
  events,
});

/** Runs the batch's chain submissions inside its own transaction, as the trading store does. */
function submitBatch(node: Node, entries: AppliedEntry[]) {
  node.link.submitForBatch(committedBatch(entries));
}

/** A batch as the trading store commits it, then a flush. */
function commit(node: Node, entries: AppliedEntry[]) {
  submitBatch(node, entries);
  node.link.flush();
}

/** One match of A against B at seq 1, written and submitted as a batch does. */
function oneMatch(node: Node) {
  submitBatch(node, [
    entry(1, [
      match(
        node.db,
        1,
        '1-0',
        { account: A, orderId: 'a1', stake: 10n },
        { account: B, orderId: 'b1', stake: 7n },
      ),
    ]),
  ]);
}

/** The status a fill or trade shows (LOCKED included), as every read sees it. */
const status = (db: Database, table: 'fills' | 'trades', id: string) =>
  db.prepare(`SELECT status FROM ${table}_shown WHERE id = ?`).pluck().get(id);

/** A transaction's memo; `deploySafe` and `execSafeTx` carry none. */
const memoOf = (tx: ChainTx | undefined) => (tx && 'memo' in tx ? tx.memo : undefined);

const escrows = (node: Node) =>
  node.chain
    .pendingTransactions()
    .filter((t) => t.kind === 'escrow')
    .map((t) => (t.kind === 'escrow' ? { from: t.from, amount: t.amount, memo: t.memo } : null));

describe('chain link: escrow per account', () => {
  it('submits one escrow per account: the exact sum of its stakes, maker or taker side, over the batch', async () => {
    const node = boot(files());
    const wallet = (a: Address) => node.chain.proxyAddressFor(a);
    await fund(node, [
      [A, 10n * BIG],
      [B, 10n * BIG],
      [C, 10n * BIG],
    ]);
    const entries = [
      entry(11, [
        match(
          node.db,
          11,
          '11-0',
          { account: A, orderId: 'a1', stake: BIG + 11n },
          { account: B, orderId: 'b1', stake: 9n },
        ),
        match(
          node.db,
          11,
          '11-1',
          { account: C, orderId: 'c1', stake: 3n },
          { account: B, orderId: 'b1', stake: BIG + 7n },
        ),
      ]),
      entry(12, []),
      entry(13, [
        match(
          node.db,
          13,
          '13-0',
          { account: B, orderId: 'b2', stake: 2n * BIG },
          { account: A, orderId: 'a2', stake: 1n },
        ),
      ]),
      entry(14, [
        match(
          node.db,
          14,
          '14-0',
          { account: A, orderId: 'a1', stake: 5n },
          { account: C, orderId: 'c2', stake: 6n },
        ),
      ]),
    ];
    commit(node, entries);
    expect(escrows(node)).toEqual([
      { from: wallet(A), amount: BIG + 11n + 1n + 5n, memo: `escrow:${A}:11-14` },
      { from: wallet(B), amount: 9n + BIG + 7n + 2n * BIG, memo: `escrow:${B}:11-13` },
      { from: wallet(C), amount: 3n + 6n, memo: `escrow:${C}:11-14` },
    ]);
    // The memo names exactly those fills.
    for (const e of escrows(node)) {
      const range = parseEscrowMemo(e!.memo) as { account: string; firstSeq: number; lastSeq: number };
      const sum = (
        node.db
          .prepare('SELECT fill_amount FROM fills WHERE account = ? AND seq BETWEEN ? AND ?')
          .pluck()
          .all(range.account, range.firstSeq, range.lastSeq) as string[]
      ).reduce((s, v) => s + BigInt(v), 0n);
      expect(sum).toBe(e!.amount);
    }
    node.timer.tick();
    expect(await node.chain.balanceOf(ESCROW)).toBe(4n * BIG + 11n + 9n + 7n + 1n + 5n + 3n + 6n);
    await node.close();
  });

  it('keeps the engine order around payouts and deposits, so every transaction succeeds', async () => {
    const node = boot(files());
    const wallet = (a: Address) => node.chain.proxyAddressFor(a);
    // A has exactly its first stake; the payout (from B's escrowed stake) funds its later one.
    await fund(node, [
      [A, 10n],
      [B, 50n],
    ]);
    const entries = [
      entry(1, [
        match(
          node.db,
          1,
          '1-0',
          { account: A, orderId: 'a1', stake: 10n },
          { account: B, orderId: 'b1', stake: 40n },
        ),
      ]),
      entry(2, [
        {
          type: 'payout',
          account: A,
          marketHash: MARKET,
          eventId: 'ev',
          outcome: 1,
          stake: 10n,
          payout: 50n,
        } as EngineEvent,
      ]),
      entry(3, [{ type: 'balanceChanged', account: D, available: 20n, escrowed: 0n }], {
        kind: 'engine',
        command: { type: 'credit', account: D, amount: 20n },
      }),
      entry(4, [
        match(
          node.db,
          4,
          '4-0',
          { account: A, orderId: 'a2', stake: 30n },
          { account: D, orderId: 'd1', stake: 20n },
        ),
      ]),
    ];
    commit(node, entries);
    const pending = node.chain.pendingTransactions();
    expect(pending.map((t) => [t.kind, memoOf(t)])).toEqual([
      ['escrow', chainMemo.escrow(A, 1, 1)],
      ['escrow', chainMemo.escrow(B, 1, 1)],
      ['release', chainMemo.payout(MARKET, A)],
      ['mint', chainMemo.deposit(3)],
      ['escrow', chainMemo.escrow(A, 4, 4)],
      ['escrow', chainMemo.escrow(D, 4, 4)],
    ]);
    node.timer.tick();
    for (const t of pending) expect((await node.chain.getReceipt(t.hash))?.status).toBe('success');
    expect(await node.chain.balanceOf(wallet(A))).toBe(20n);
    expect(await node.chain.balanceOf(ESCROW)).toBe(50n);
    // Each escrow locked its own fills.
    for (const id of ['1-0-M', '1-0-T', '4-0-M', '4-0-T'])
      expect(status(node.db, 'fills', id)).toBe('LOCKED');
    await node.close();
  });

  it("submits a block's escrow receipts as one input: the projector locks its fills and the trades with no fill left MATCHED", async () => {
    const node = boot(files());
    await fund(node, [
      [A, BIG],
      [B, BIG],
    ]);
    // a1's trade has a fill in this batch and one in the next.
    commit(node, [
      entry(1, [
        match(
          node.db,
          1,
          '1-0',
          { account: A, orderId: 'a1', stake: 11n },
          { account: B, orderId: 'b1', stake: 9n },
        ),
        match(
          node.db,
          1,
          '1-1',
          { account: A, orderId: 'a2', stake: 22n },
          { account: B, orderId: 'b1', stake: 18n },
        ),
      ]),
    ]);
    node.timer.tick();
    for (const id of ['1-0-M', '1-0-T', '1-1-M', '1-1-T'])
      expect(status(node.db, 'fills', id)).toBe('LOCKED');
    for (const id of ['a1', 'a2', 'b1']) expect(status(node.db, 'trades', tradeOf(id))).toBe('LOCKED');
    const range = (account: string, firstSeq: number, lastSeq: number) => ({
      account,
      firstSeq,
      lastSeq,
      ok: true,
    });
    // Block 1 funded the accounts; block 2 carries the escrows.
    expect(node.inputs).toEqual([{ kind: 'escrows', block: 2, escrows: [range(A, 1, 1), range(B, 1, 1)] }]);
    expect(node.db.prepare('SELECT block_number FROM escrow_cursor').pluck().get()).toBe(2);

    // A new fill of a1 turns its trade MATCHED again (the projection) until its escrow lands.
    commit(node, [
      entry(2, [
        match(
          node.db,
          2,
          '2-0',
          { account: A, orderId: 'a1', stake: 5n },
          { account: B, orderId: 'b2', stake: 5n },
        ),
      ]),
    ]);
    expect(status(node.db, 'trades', tradeOf('a1'))).toBe('MATCHED');
    node.timer.tick();
    expect(status(node.db, 'trades', tradeOf('a1'))).toBe('LOCKED');
    expect(node.inputs[1]).toEqual({ kind: 'escrows', block: 3, escrows: [range(A, 2, 2), range(B, 2, 2)] });
    // Blocks without escrows: no input (the block cursor moves with the next receipts).
    await node.chain.mint(node.chain.proxyAddressFor(C), 1n);
    node.timer.tick();
    expect(node.inputs).toHaveLength(2);
    await node.close();
  });

  it('receipts applied again (a crash before the block cursor moved) change nothing, not even the time', async () => {
    const f = files();
    const node = boot(f);
    await fund(node, [
      [A, BIG],
      [B, BIG],
    ]);
    oneMatch(node);
    node.link.flush();
    node.timer.tick();
    for (const id of ['1-0-M', '1-0-T']) expect(status(node.db, 'fills', id)).toBe('LOCKED');
    for (const id of ['a1', 'b1']) expect(status(node.db, 'trades', tradeOf(id))).toBe('LOCKED');
    const watermark = (db: Database) =>
      db.prepare('SELECT through_seq, locked_at FROM escrow_locks WHERE account = ?').get(A);
    const locked = watermark(node.db);
    expect(locked).toMatchObject({ through_seq: 1 });

    node.db.prepare('UPDATE escrow_cursor SET block_number = 0').run();
    await node.close();
    const again = boot(f, { clockFrom: 9_000 });
    expect(again.inputs).toEqual([
      {
        kind: 'escrows',
        block: 2,
        escrows: [
          { account: A, firstSeq: 1, lastSeq: 1, ok: true },
          { account: B, firstSeq: 1, lastSeq: 1, ok: true },
        ],
      },
    ]);
    expect(watermark(again.db)).toEqual(locked);
    expect(again.db.prepare('SELECT block_number FROM escrow_cursor').pluck().get()).toBe(2);
    await again.close();
  });

  it('a trade escrowed by two flushes turns LOCKED with the second escrow, not the first', async () => {
    const node = boot(files());
    await fund(node, [
      [A, BIG],
      [B, BIG],
    ]);
    // a1 rests and is filled twice, in batches escrowed by two flushes that land in one block.
    for (const seq of [1, 2]) {
      commit(node, [
        entry(seq, [
          match(
            node.db,
            seq,
            `${seq}-0`,
            { account: A, orderId: 'a1', stake: 10n },
            { account: B, orderId: `b${seq}`, stake: 10n },
          ),
        ]),
      ]);
    }
    expect(escrows(node).filter((e) => e?.memo?.startsWith(`escrow:${A}`))).toHaveLength(2);
    node.timer.tick();
    expect(status(node.db, 'trades', tradeOf('a1'))).toBe('LOCKED');
    // What realtime reads of each escrow: the first left one fill of the trade unescrowed, the second
    // locked it.
    const queries = new SqliteTradingQueries(node.db);
    const rowsOf = (seq: number) => {
      const rows = queries.escrowRows({ account: A, firstSeq: seq, lastSeq: seq, ok: true });
      return [rows.fills.map((f) => [f.id, f.status]), rows.trades.map((t) => [t.id, t.status])];
    };
    expect(rowsOf(1)).toEqual([[['1-0-M', 'LOCKED']], []]);
    expect(rowsOf(2)).toEqual([[['2-0-M', 'LOCKED']], [[tradeOf('a1'), 'LOCKED']]]);
    // Nothing was rewritten: the rows stay MATCHED under A's watermark, the last escrow's last seq.
    expect(node.db.prepare('SELECT status FROM trades WHERE id = ?').pluck().get(tradeOf('a1'))).toBe(
      'MATCHED',
    );
    expect(node.db.prepare('SELECT through_seq FROM escrow_locks WHERE account = ?').pluck().get(A)).toBe(2);
    await node.close();
  });

  it('a failed escrow fails its fills and their trades; other accounts lock; SETTLED is never overwritten', async () => {
    const node = boot(files());
    await fund(node, [[A, BIG]]); // D has nothing: its escrow fails
    commit(node, [
      entry(1, [
        match(
          node.db,
          1,
          '1-0',
          { account: A, orderId: 'a1', stake: 10n },
          { account: D, orderId: 'd1', stake: 10n },
        ),
      ]),
      entry(2, [
        match(
          node.db,
          2,
          '2-0',
          { account: D, orderId: 'd2', stake: 4n },
          { account: A, orderId: 'a2', stake: 4n },
        ),
      ]),
    ]);
    // a2's market resolved before the escrow landed.
    node.db.prepare("UPDATE fills SET status = 'SETTLED' WHERE id = '2-0-T'").run();
    node.db.prepare("UPDATE trades SET status = 'SETTLED' WHERE id = ?").run(tradeOf('a2'));
    node.timer.tick();
    const receipts = await Promise.all(
      (await node.chain.getBlock(2))!.transactions.map((h) => node.chain.getReceipt(h)),
    );
    expect(receipts.map((r) => [memoOf(r?.tx), r?.status])).toEqual([
      [`escrow:${A}:1-2`, 'success'],
      [`escrow:${D}:1-2`, 'failed'],
    ]);
    expect(status(node.db, 'fills', '1-0-M')).toBe('LOCKED');
    expect(status(node.db, 'trades', tradeOf('a1'))).toBe('LOCKED');
    expect(status(node.db, 'fills', '2-0-T')).toBe('SETTLED');
    expect(status(node.db, 'trades', tradeOf('a2'))).toBe('SETTLED');
    for (const id of ['1-0-T', '2-0-M']) expect(status(node.db, 'fills', id)).toBe('FAILED');
    for (const id of ['d1', 'd2']) expect(status(node.db, 'trades', tradeOf(id))).toBe('FAILED');
    expect(node.inputs.map((i) => i.escrows)).toEqual([
      [
        { account: A, firstSeq: 1, lastSeq: 2, ok: true },
        { account: D, firstSeq: 1, lastSeq: 2, ok: false },
      ],
    ]);
    // FAILED at the time of the receipts' entry.
    expect(
      node.db
        .prepare('SELECT DISTINCT updated_at FROM trades WHERE id IN (?, ?)')
        .pluck()
        .all(tradeOf('d1'), tradeOf('d2')),
    ).toEqual([5_001]);
    await node.close();
  });
  it('escrows landing after their market resolved neither lock nor fail its rows: they stay SETTLED', async () => {
    const node = boot(files());
    await fund(node, [[A, BIG]]); // D has nothing: its escrow fails
    commit(node, [
      entry(1, [
        match(
          node.db,
          1,
          '1-0',
          { account: A, orderId: 'a1', stake: 10n },
          { account: D, orderId: 'd1', stake: 10n },
        ),
      ]),
    ]);
    // The market resolved (migration 12's row) after the escrows were submitted, before they landed.
    node.db.prepare('INSERT INTO market_settlements VALUES (?, 1, 5)').run(MARKET);
    node.timer.tick();
    const receipts = await Promise.all(
      (await node.chain.getBlock(2))!.transactions.map((h) => node.chain.getReceipt(h)),
    );
    expect(receipts.map((r) => [memoOf(r?.tx), r?.status])).toEqual([
      [`escrow:${A}:1-1`, 'success'],
      [`escrow:${D}:1-1`, 'failed'],
    ]);
    for (const id of ['1-0-M', '1-0-T']) expect(status(node.db, 'fills', id)).toBe('SETTLED');
    for (const id of ['a1', 'd1']) expect(status(node.db, 'trades', tradeOf(id))).toBe('SETTLED');
    expect(node.db.prepare('SELECT DISTINCT status FROM fills').pluck().all()).toEqual(['MATCHED']);
    expect(node.db.prepare('SELECT DISTINCT status FROM trades').pluck().all()).toEqual(['MATCHED']);
    expect(node.db.prepare('SELECT count(*) FROM escrow_locks').pluck().get()).toBe(0);
    await node.close();
  });

  it('a submission the chain refuses fails its fills and their trades at once; nothing is escrowed twice', async () => {
    const errors: unknown[] = [];
    const node = boot(files(), {
      linkChain: (chain) => refusing(chain, (requests) => requests.some((r) => r.kind === 'escrow')),
      onSubmitError: (error) => errors.push(error),
    });
    await fund(node, [
      [A, BIG],
      [B, BIG],
    ]);
    oneMatch(node);
    node.link.flush();
    await until(() => node.inputs.length > 0);
    expect(errors.map((e) => (e as Error).message)).toEqual(['refused by the chain']);
    for (const id of ['1-0-M', '1-0-T']) expect(status(node.db, 'fills', id)).toBe('FAILED');
    for (const id of ['a1', 'b1']) expect(status(node.db, 'trades', tradeOf(id))).toBe('FAILED');
    // Journaled as failed escrows of no block.
    expect(node.inputs).toEqual([
      {
        kind: 'escrows',
        block: null,
        escrows: [
          { account: A, firstSeq: 1, lastSeq: 1, ok: false },
          { account: B, firstSeq: 1, lastSeq: 1, ok: false },
        ],
      },
    ]);
    node.link.flush();
    expect(escrows(node)).toEqual([]);
    expect(errors).toHaveLength(1);
    await node.close();
  });
});

describe('chain link: refused escrows the sequencer does not take', () => {
  it('are submitted again with the next block', async () => {
    const errors: unknown[] = [];
    let full = true;
    const node = boot(files(), {
      linkChain: (chain) => refusing(chain, (requests) => requests.some((r) => r.kind === 'escrow')),
      onSubmitError: (error) => errors.push(error),
      takes: () => !full,
    });
    await fund(node, [
      [A, BIG],
      [B, BIG],
    ]);
    oneMatch(node);
    node.link.flush();
    await until(() => errors.length === 2);
    expect(errors.map((e) => (e as Error).message)).toEqual([
      'the sequencer is full',
      'refused by the chain',
    ]);
    expect(status(node.db, 'fills', '1-0-M')).toBe('MATCHED');
    full = false;
    await node.chain.mint(node.chain.proxyAddressFor(C), 1n);
    node.timer.tick();
    expect(node.inputs.map((i) => [i.block, i.escrows.map((e) => e.ok)])).toEqual([[null, [false, false]]]);
    for (const id of ['1-0-M', '1-0-T']) expect(status(node.db, 'fills', id)).toBe('FAILED');
    await node.close();
  });
});

describe('chain link: behind the write gate', () => {
  it("waits off the event loop while the WAL checkpointer's restart holds the gate: flushes, then receipts", async () => {
    const node = boot(files(), { flushMs: 5 });
    await fund(node, [
      [A, BIG],
      [B, BIG],
    ]);
    const gate = new Int32Array(new SharedArrayBuffer(4));
    setWriteGate(node.db, writeGate(gate));
    const restart = () => Atomics.store(gate, 0, GATE_CHECKPOINTER);
    const done = () => {
      Atomics.store(gate, 0, GATE_FREE);
      Atomics.notify(gate, 0);
    };
    const fillStatuses = () => ['1-0-M', '1-0-T'].map((id) => status(node.db, 'fills', id));
    const turns = async (n: number) => {
      for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 5));
    };

    restart();
    oneMatch(node);
    await turns(6);
    expect(escrows(node)).toEqual([]); // the flush timer waits, the event loop turns
    done();
    await until(() => escrows(node).length === 2);

    restart();
    node.timer.tick();
    await turns(6);
    expect(fillStatuses()).toEqual(['MATCHED', 'MATCHED']); // the block's receipts wait too
    done();
    await until(() => fillStatuses().every((s) => s === 'LOCKED'));
    expect(Atomics.load(gate, 0)).toBe(GATE_FREE);
    setWriteGate(node.db, null);
    await node.close();
  });
});

describe('chain link: a flush that cannot write', () => {
  const fillStatuses = (node: Node) => ['1-0-M', '1-0-T'].map((id) => status(node.db, 'fills', id));

  it('waits for the write lock another connection holds, and refuses nothing (the WAL checkpointer holds it)', async () => {
    const errors: unknown[] = [];
    const file = files();
    const node = boot(file, { onSubmitError: (error) => errors.push(error) });
    await fund(node, [
      [A, BIG],
      [B, BIG],
    ]);
    oneMatch(node);
    node.db.pragma('busy_timeout = 20');
    const other = file.open();
    other.exec('BEGIN IMMEDIATE');
    expect(() => node.link.flush()).toThrow(/database is locked/);
    other.exec('COMMIT');
    other.close();
    await new Promise((r) => setImmediate(r));
    expect(errors).toEqual([]);
    expect(fillStatuses(node)).toEqual(['MATCHED', 'MATCHED']);
    node.link.flush();
    expect(escrows(node).map((e) => e?.amount)).toEqual([10n, 7n]);
    node.timer.tick();
    await until(() => fillStatuses(node).every((s) => s === 'LOCKED'));
    await node.close();
  });

  it('a refused submission whose flush then failed leaves its fills MATCHED, for the next flush to escrow', async () => {
    const errors: unknown[] = [];
    let refuse = true;
    const node = boot(files(), {
      linkChain: (chain) =>
        refusing(chain, () => {
          const now = refuse;
          refuse = false;
          return now;
        }),
      onSubmitError: (error) => errors.push(error),
    });
    await fund(node, [
      [A, BIG],
      [B, BIG],
    ]);
    oneMatch(node);
    // The write after the submission fails, so the flush rolls back: the cursor stays before the fills.
    node.db.exec(`CREATE TEMP TRIGGER cursor_write_fails BEFORE UPDATE ON main.escrow_cursor
      BEGIN SELECT RAISE(ABORT, 'the disk failed'); END`);
    expect(() => node.link.flush()).toThrow('the disk failed');
    node.db.exec('DROP TRIGGER cursor_write_fails');
    await until(() => errors.length === 1);
    await new Promise((r) => setImmediate(r));
    // No failed escrows either: the fills are the next flush's.
    expect(fillStatuses(node)).toEqual(['MATCHED', 'MATCHED']);
    expect(node.inputs).toEqual([]);
    node.link.flush();
    expect(escrows(node).map((e) => e?.amount)).toEqual([10n, 7n]);
    node.timer.tick();
    await until(() => fillStatuses(node).every((s) => s === 'LOCKED'));
    expect(errors.map((e) => (e as Error).message)).toEqual(['refused by the chain']);
    await node.close();
  });
});

describe('chain link: escrows flushed per block', () => {
  it('merges the fills of many batches into one escrow per account, and escrows each fill once', async () => {
    const node = boot(files());
    await fund(node, [
      [A, BIG],
      [B, BIG],
    ]);
    for (let seq = 1; seq <= 5; seq++) {
      const e = match(
        node.db,
        seq,
        `${seq}-0`,
        { account: A, orderId: `a${seq}`, stake: BigInt(seq) },
        { account: B, orderId: `b${seq}`, stake: 10n * BigInt(seq) },
      );
      node.link.submitForBatch(committedBatch([entry(seq, [e])]));
    }
    // Nothing yet: escrows wait for the flush.
    expect(escrows(node)).toEqual([]);
    node.link.flush();
    node.link.flush();
    expect(escrows(node).map((e) => [e!.amount, e!.memo])).toEqual([
      [15n, chainMemo.escrow(A, 1, 5)],
      [150n, chainMemo.escrow(B, 1, 5)],
    ]);
    node.timer.tick();
    for (let seq = 1; seq <= 5; seq++) expect(status(node.db, 'fills', `${seq}-0-T`)).toBe('LOCKED');
    await node.close();
  });

  it('a start escrows the fills a crash left unescrowed', async () => {
    const f = files();
    const first = boot(f);
    await fund(first, [
      [A, BIG],
      [B, BIG],
    ]);
    const e = match(
      first.db,
      1,
      '1-0',
      { account: A, orderId: 'a1', stake: 7n },
      { account: B, orderId: 'b1', stake: 3n },
    );
    first.link.submitForBatch(committedBatch([entry(1, [e])]));
    // The process dies before any flush.
    first.stop();
    await first.close();

    const second = boot(f);
    expect(escrows(second).map((x) => [x!.amount, x!.memo])).toEqual([
      [7n, chainMemo.escrow(A, 1, 1)],
      [3n, chainMemo.escrow(B, 1, 1)],
    ]);
    second.timer.tick();
    for (const id of ['1-0-M', '1-0-T']) expect(status(second.db, 'fills', id)).toBe('LOCKED');
    await second.close();
  });
});

/** A batch at `seq` with two matches (A with B, C with D), committed and flushed: four escrows. */
function commitFourAccounts(node: Node, seq: number) {
  commit(node, [
    entry(seq, [
      match(
        node.db,
        seq,
        `${seq}-0`,
        { account: A, orderId: `a${seq}`, stake: 2n },
        { account: B, orderId: `b${seq}`, stake: 3n },
      ),
      match(
        node.db,
        seq,
        `${seq}-1`,
        { account: C, orderId: `c${seq}`, stake: 4n },
        { account: D, orderId: `d${seq}`, stake: 5n },
      ),
    ]),
  ]);
}

describe('chain link: large blocks', () => {
  it('submits a block of many escrows as one input, and the next block after it', async () => {
    const node = boot(files());
    const traders = [A, B, C, D];
    await fund(
      node,
      traders.map((t) => [t, BIG]),
    );
    // Six flushes of two matches (four accounts each) before one block: 24 escrows.
    for (let seq = 1; seq <= 6; seq++) {
      commitFourAccounts(node, seq);
    }
    expect(escrows(node)).toHaveLength(24);
    const fillStatuses = () =>
      node.db
        .prepare('SELECT status, count(*) AS n FROM fills_shown GROUP BY status ORDER BY status')
        .raw()
        .all();
    node.timer.tick();
    expect(fillStatuses()).toEqual([['LOCKED', 24]]);
    commit(node, [
      entry(7, [
        match(
          node.db,
          7,
          '7-0',
          { account: A, orderId: 'a7', stake: 1n },
          { account: B, orderId: 'b7', stake: 1n },
        ),
      ]),
    ]);
    node.timer.tick();
    expect(fillStatuses()).toEqual([['LOCKED', 26]]);
    for (let seq = 1; seq <= 7; seq++) expect(status(node.db, 'trades', tradeOf(`a${seq}`))).toBe('LOCKED');
    expect(node.inputs.map((i) => [i.block, i.escrows.length])).toEqual([
      [2, 24],
      [3, 2],
    ]);
    const cursor = node.db.prepare('SELECT block_number FROM escrow_cursor').pluck().get() as number;
    expect(cursor).toBe(node.db.prepare('SELECT max(number) FROM chain_blocks').pluck().get());
    expect(node.listenerErrors).toEqual([]);
    await node.close();
  });
});

describe('chain link: receipts the sequencer does not take', () => {
  it('leave the cursor before the block: the next block submits them with its own, from the stored receipts', async () => {
    const errors: unknown[] = [];
    let full = false;
    const node = boot(files(), { takes: () => !full, onSubmitError: (error) => errors.push(error) });
    await fund(node, [
      [A, BIG],
      [B, BIG],
    ]);
    oneMatch(node);
    node.link.flush();
    full = true;
    node.timer.tick();
    expect(String(errors)).toMatch(/the sequencer is full/);
    expect(status(node.db, 'fills', '1-0-M')).toBe('MATCHED');
    full = false;
    commit(node, [
      entry(2, [
        match(
          node.db,
          2,
          '2-0',
          { account: B, orderId: 'b2', stake: 1n },
          { account: A, orderId: 'a2', stake: 1n },
        ),
      ]),
    ]);
    node.timer.tick();
    for (const id of ['1-0-M', '1-0-T', '2-0-M', '2-0-T'])
      expect(status(node.db, 'fills', id)).toBe('LOCKED');
    expect(node.inputs.map((i) => [i.block, i.escrows.map((e) => 'account' in e && e.lastSeq)])).toEqual([
      [3, [1, 1, 2, 2]],
    ]);
    expect(node.db.prepare('SELECT block_number FROM escrow_cursor').pluck().get()).toBe(3);
    await node.close();
  });
});

describe('chain link: receipts that landed while the exchange was down', () => {
  it('a restart applies the escrows of every block after the last applied one', async () => {
    const f = files();
    const first = boot(f);
    await fund(first, [
      [A, BIG],
      [B, BIG],
    ]);
    commit(first, [
      entry(1, [
        match(
          first.db,
          1,
          '1-0',
          { account: A, orderId: 'a1', stake: 7n },
          { account: B, orderId: 'b1', stake: 3n },
        ),
      ]),
    ]);
    // The exchange stops listening (a crash after the block, before its fills were written).
    first.stop();
    first.timer.tick();
    expect(status(first.db, 'fills', '1-0-M')).toBe('MATCHED');
    await first.close();

    const second = boot(f);
    for (const id of ['1-0-M', '1-0-T']) expect(status(second.db, 'fills', id)).toBe('LOCKED');
    for (const id of ['a1', 'b1']) expect(status(second.db, 'trades', tradeOf(id))).toBe('LOCKED');
    expect(second.inputs.map((i) => [i.block, i.escrows.length])).toEqual([[2, 2]]);
    expect(second.db.prepare('SELECT block_number FROM escrow_cursor').pluck().get()).toBe(2);
    await second.close();

    // Nothing left to apply: a third start changes nothing.
    const third = boot(f);
    expect(third.inputs).toEqual([]);
    await third.close();
  });

  it('escrows with the one-per-fill memo of older data dirs still lock their fill', async () => {
    const f = files();
    const first = boot(f);
    await fund(first, [[A, BIG]]);
    first.stop();
    match(
      first.db,
      1,
      '1-0',
      { account: A, orderId: 'a1', stake: 7n },
      { account: B, orderId: 'b1', stake: 3n },
    );
    await first.chain.escrow(first.chain.proxyAddressFor(A), 7n, 'fill:1-0-M');
    first.timer.tick();
    await first.close();

    const second = boot(f);
    expect(status(second.db, 'fills', '1-0-M')).toBe('LOCKED');
    expect(status(second.db, 'trades', tradeOf('a1'))).toBe('LOCKED');
    expect(status(second.db, 'fills', '1-0-T')).toBe('MATCHED');
    await second.close();
  });

  it('after receipts the sequencer failed to commit, the next block catches up from the stored receipts', async () => {
    const errors: unknown[] = [];
    const node = boot(files(), { onSubmitError: (error) => errors.push(error) });
    await fund(node, [
      [A, BIG],
      [B, BIG],
    ]);
    commit(node, [
      entry(1, [
        match(
          node.db,
          1,
          '1-0',
          { account: A, orderId: 'a1', stake: 7n },
          { account: B, orderId: 'b1', stake: 3n },
        ),
      ]),
    ]);
    node.db.exec(
      `CREATE TRIGGER refuse BEFORE UPDATE ON escrow_cursor BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
    );
    node.timer.tick();
    await until(() => errors.length > 0);
    expect(String(errors)).toMatch(/disk full/);
    expect(status(node.db, 'fills', '1-0-M')).toBe('MATCHED');
    node.db.exec('DROP TRIGGER refuse');

    commit(node, [
      entry(2, [
        match(
          node.db,
          2,
          '2-0',
          { account: B, orderId: 'b2', stake: 1n },
          { account: A, orderId: 'a2', stake: 1n },
        ),
      ]),
    ]);
    node.timer.tick();
    for (const id of ['1-0-M', '1-0-T', '2-0-M', '2-0-T'])
      expect(status(node.db, 'fills', id)).toBe('LOCKED');
    expect(node.db.prepare('SELECT block_number FROM escrow_cursor').pluck().get()).toBe(3);
    await node.close();
  });
});

/** A projected refund row, as the projector writes it for a `ceRefund` event of entry `seq`. */
function refundRow(db: Database, seq: number, e: Extract<EngineEvent, { type: 'ceRefund' }>): void {
  db.prepare(
    `INSERT INTO ce_refunds (seq, account, market_hash, fill_id, is_maker, amount, refunded_total, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    seq,
    e.account,
    e.marketHash,
    `${e.matchId}-${e.maker ? 'M' : 'T'}`,
    e.maker ? 1 : 0,
    `${e.amount}`,
    `${e.refundedTotal}`,
    seq,
  );
}

/** A capital-efficiency refund of `amount` to `account` for the match `matchId` of entry `seq`, projected. */
function refund(
  db: Database,
  account: Address,
  amount: bigint,
  matchId: string,
  maker: boolean,
): EngineEvent {
  const event = {
    type: 'ceRefund' as const,
    account,
    marketHash: MARKET,
    eventId: 'ev',
    amount,
    refundedTotal: amount,
    matchId,
    maker,
    orderId: `${account}-${matchId}`,
  };
  refundRow(db, Number.parseInt(matchId, 10), event);
  return event;
}

/** The releases the chain has mined (in chain order) and those waiting, as [to, amount, memo]. */
function releases(node: Node) {
  const mined = node.chain.receiptsBetween(0, node.chain.headNumber(), 'release').map((r) => r.tx);
  return [...mined, ...node.chain.pendingTransactions()]
    .map((t) => (t.kind === 'release' ? [t.to, t.amount, t.memo] : null))
    .filter((r) => r !== null);
}

describe('chain link: capital-efficiency refunds', () => {
  /** A backs one side against B (seq 1, written at once), then the other (seq 2, written by `second`): each has 50 back. */
  function hedge(node: Node) {
    const first = match(
      node.db,
      1,
      '1-0',
      { account: B, orderId: 'b1', stake: 50n },
      { account: A, orderId: 'a1', stake: 50n },
    );
    const second = () =>
      entry(2, [
        match(
          node.db,
          2,
          '2-0',
          { account: B, orderId: 'b2', stake: 50n },
          { account: A, orderId: 'a2', stake: 50n },
        ),
        refund(node.db, B, 50n, '2-0', true),
        refund(node.db, A, 50n, '2-0', false),
      ]);
    return { first: entry(1, [first]), second };
  }

  it('releases a refund from escrow to the proxy wallet with the escrow flush, after the escrows of its fill', async () => {
    const node = boot(files());
    const wallet = (a: Address) => node.chain.proxyAddressFor(a);
    await fund(node, [
      [A, 100n],
      [B, 100n],
    ]);
    const { first, second } = hedge(node);
    commit(node, [first]);
    node.timer.tick();
    expect(await node.chain.balanceOf(ESCROW)).toBe(100n);
    // The batch alone submits nothing: the refunds wait for the flush, as the escrows do.
    submitBatch(node, [second()]);
    expect(node.chain.pendingTransactions()).toEqual([]);
    // Without the second fill's stakes in escrow, the refunds (100) could not be paid from it (100 before).
    node.link.flush();
    const pending = node.chain.pendingTransactions();
    expect(pending.map((t) => [t.kind, memoOf(t)])).toEqual([
      ['escrow', chainMemo.escrow(B, 2, 2)],
      ['escrow', chainMemo.escrow(A, 2, 2)],
      ['release', `ce:${B}:2-2`],
      ['release', `ce:${A}:2-2`],
    ]);
    expect(releases(node)).toEqual([
      [wallet(B), 50n, chainMemo.ceRefund(B, 2, 2)],
      [wallet(A), 50n, chainMemo.ceRefund(A, 2, 2)],
    ]);
    // Flushed once: a second flush submits nothing.
    node.link.flush();
    expect(node.chain.pendingTransactions()).toHaveLength(4);
    node.timer.tick();
    for (const t of pending) expect((await node.chain.getReceipt(t.hash))?.status).toBe('success');
    // The engine's balances: each has 50 available, 50 escrowed (100 stakes less the 50 refunded).
    expect(await node.chain.balanceOf(wallet(A))).toBe(50n);
    expect(await node.chain.balanceOf(wallet(B))).toBe(50n);
    expect(await node.chain.balanceOf(ESCROW)).toBe(100n);
    for (const id of ['2-0-M', '2-0-T']) expect(status(node.db, 'fills', id)).toBe('LOCKED');
    await node.close();
  });

  it("releases an account's refunds since the last flush as one release of their sum", async () => {
    const node = boot(files());
    const wallet = (a: Address) => node.chain.proxyAddressFor(a);
    await fund(node, [
      [A, 100n],
      [B, 100n],
      [C, 100n],
    ]);
    commit(node, [
      entry(1, [
        match(
          node.db,
          1,
          '1-0',
          { account: A, orderId: 'a1', stake: 40n },
          { account: B, orderId: 'b0', stake: 40n },
        ),
      ]),
    ]);
    node.timer.tick();
    // A's taker order sweeps B and C (seq 2), then another order of A takes from C (seq 3).
    commit(node, [
      entry(2, [
        match(
          node.db,
          2,
          '2-0',
          { account: B, orderId: 'b1', stake: 30n },
          { account: A, orderId: 'a2', stake: 30n },
        ),
        refund(node.db, A, 30n, '2-0', false),
        match(
          node.db,
          2,
          '2-1',
          { account: C, orderId: 'c1', stake: 10n },
          { account: A, orderId: 'a2', stake: 10n },
        ),
        refund(node.db, A, 10n, '2-1', false),
      ]),
      entry(3, [
        match(
          node.db,
          3,
          '3-0',
          { account: C, orderId: 'c2', stake: 5n },
          { account: A, orderId: 'a3', stake: 5n },
        ),
        refund(node.db, A, 5n, '3-0', false),
      ]),
    ]);
    expect(releases(node)).toEqual([[wallet(A), 45n, chainMemo.ceRefund(A, 2, 3)]]);
    // The release after the escrows of every fill it refunds.
    expect(node.chain.pendingTransactions().map((t) => memoOf(t))).toEqual([
      chainMemo.escrow(B, 2, 2),
      chainMemo.escrow(A, 2, 3),
      chainMemo.escrow(C, 2, 3),
      chainMemo.ceRefund(A, 2, 3),
    ]);
    node.timer.tick();
    // A: 100 funded, 40 + 45 escrowed, 45 refunded; the escrow: every stake (80 + 80 + 10) less the refunds.
    expect(await node.chain.balanceOf(wallet(A))).toBe(100n - 40n - 45n + 45n);
    expect(await node.chain.balanceOf(ESCROW)).toBe(80n + 80n + 10n - 45n);
    await node.close();
  });

  it('a start releases the refunds projected before a crash, none twice', async () => {
    const f = files();
    const before = boot(f);
    await fund(before, [
      [A, 100n],
      [B, 100n],
    ]);
    const hedged = hedge(before);
    const [one, two] = [hedged.first, hedged.second()];
    commit(before, [one, two]);
    before.timer.tick();
    // The same batch again (a replay from the journal) submits nothing.
    commit(before, [one, two]);
    // Seq 3 is projected (its fills and refund), then the exchange stops before any flush.
    match(
      before.db,
      3,
      '3-0',
      { account: B, orderId: 'b3', stake: 20n },
      { account: A, orderId: 'a3', stake: 20n },
    );
    refund(before.db, A, 20n, '3-0', false);
    before.stop();
    await before.close();

    // The start's flush escrows seq 3's fills and releases its refund.
    const after = boot(f);
    const wallet = (a: Address) => after.chain.proxyAddressFor(a);
    after.timer.tick();
    after.link.flush();
    expect(releases(after)).toEqual([
      [wallet(B), 50n, chainMemo.ceRefund(B, 2, 2)],
      [wallet(A), 50n, chainMemo.ceRefund(A, 2, 2)],
      [wallet(A), 20n, chainMemo.ceRefund(A, 3, 3)],
    ]);
    expect(await after.chain.balanceOf(wallet(A))).toBe(100n - 50n - 50n + 50n - 20n + 20n);
    expect(await after.chain.balanceOf(ESCROW)).toBe(200n + 40n - 100n - 20n);
    await after.close();
  });

  describe('with the engine', () => {
    /** Runs engine commands as one-entry batches; after each, the chain holds what the engine says. */
    function exchange(node: Node) {
      const h = new Harness(800, { capitalEfficiency: true });
      const accounts = [A, B, C];
      const wallet = (a: Address) => node.chain.proxyAddressFor(a);
      const events: EngineEvent[] = [];
      return {
        events,
        async apply(command: EngineCommandInput) {
          const applied = h.apply(command);
          events.push(...applied);
          for (const e of applied) {
            if (e.type === 'ceRefund') refundRow(node.db, h.seq, e);
            if (e.type !== 'orderMatched') continue;
            const side = (account: string, orderId: string, stake: bigint) => ({
              account: account as Address,
              orderId,
              stake,
            });
            match(
              node.db,
              h.seq,
              e.matchId,
              side(e.makerAccount, e.makerOrderId, e.makerStake),
              side(e.takerAccount, e.takerOrderId, e.takerStake),
            );
          }
          commit(node, [entry(h.seq, [...applied], { kind: 'engine', command })]);
          node.timer.tick();
          for (const t of node.chain.receiptsBetween(0, node.chain.headNumber(), 'release'))
            expect(t.status).toBe('success');
          let escrowed = 0n;
          for (const account of accounts) {
            const balance = h.engine.balance(account);
            expect(await node.chain.balanceOf(wallet(account))).toBe(balance.available);
            escrowed += balance.escrowed;
          }
          expect(await node.chain.balanceOf(ESCROW)).toBe(escrowed);
        },
        place: (id: string, account: Address, one: boolean, tif: 'GTC' | 'IOC') =>
          h.placeCommand({ id, account, market: MARKET, one, tick: 400, size: 100n * USDC, tif }),
      };
    }

    it.each([
      { name: 'B', other: B, outcome: 1 },
      { name: 'B', other: B, outcome: 2 },
      { name: 'C', other: C, outcome: 1 },
      { name: 'C', other: C, outcome: 2 },
      { name: 'C', other: C, outcome: 0 },
    ] as const)(
      'a hedge against B then $name, resolved to $outcome: wallets and escrow stay the engine balances',
      async ({ other, outcome }) => {
        const node = boot(files());
        const x = exchange(node);
        await x.apply({ type: 'openMarket', marketHash: MARKET, eventId: 'ev' });
        for (const account of [A, B, C]) await x.apply({ type: 'credit', account, amount: 1_000n * USDC });
        // A backs outcome one for 100 at 50 % against B, then outcome two for 100 at 50 % against `other`.
        await x.apply(x.place('b1', B, false, 'GTC'));
        await x.apply(x.place('a1', A, true, 'IOC'));
        await x.apply(x.place('o1', other, true, 'GTC'));
        await x.apply(x.place('a2', A, false, 'IOC'));
        expect(x.events.filter((e) => e.type === 'ceRefund').length).toBeGreaterThan(0);
        await x.apply({ type: 'resolveMarket', marketHash: MARKET, outcome });
        // Against C, the hedged A is paid nothing more; the winner (B or C, both on void) is.
        const paid = x.events.flatMap((e) => (e.type === 'payout' && e.payout > 0n ? [e.account] : []));
        const winners = other === B ? [] : outcome === 0 ? [B, C] : outcome === 1 ? [C] : [B];
        expect(paid.sort()).toEqual(winners.sort());
        await node.close();
      },
    );
  });
});
