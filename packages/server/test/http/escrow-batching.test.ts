import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEscrowMemo } from '../../src/orders/chain-link.js';
import { DATABASE_FILE } from '../../src/store/sqlite/open-database.js';
import { JOURNAL_FILE } from '../../src/store/sqlite/open-journal.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC, until } from '../helpers/trading.js';

type EscrowRow = { memo: string; from: string; amount: string; status: string | null };

/** Every escrow transaction on the chain with its receipt status (null while pending). */
function escrowTxs(t: TestExchange): EscrowRow[] {
  return t.exchange.db
    .prepare(
      `SELECT json_extract(t.payload, '$.memo') AS memo, json_extract(t.payload, '$.from') AS "from",
              json_extract(t.payload, '$.amount') AS amount, r.status
         FROM chain_transactions t LEFT JOIN chain_receipts r ON r.tx_hash = t.hash
        WHERE t.kind = 'escrow' ORDER BY t.seq`,
    )
    .all() as EscrowRow[];
}

/** The statuses fills show (LOCKED included), as every read sees them. */
const fillStatuses = (t: TestExchange) =>
  t.exchange.db.prepare('SELECT status FROM fills_shown').pluck().all() as string[];

describe('escrow: one transaction per account per flush', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('a taker sweeping three makers: two escrows (maker account, taker account) of the exact stake sums, then all LOCKED', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t, 1_000n * USDC);
    const taker = await createTrader(t, 1_000n * USDC);
    for (const [tick, size] of [
      [480, 7n * USDC],
      [472, 11n * USDC + 3n],
      [464, 13n * USDC],
    ] as const) {
      expect(await place(t, maker, { marketHash, tick, size })).toMatchObject({ status: 'SUBMITTED' });
    }
    const before = escrowTxs(t).length;
    const took = await place(t, taker, {
      marketHash,
      tick: 360,
      size: 500n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    expect(took.outcome.matchIds).toHaveLength(3);

    // Read from the tables, not through the API: once the batch is projected.
    await t.exchange.trading.idle();
    const fills = t.exchange.db
      .prepare('SELECT account, seq, fill_amount FROM fills WHERE market_hash = ?')
      .all(marketHash) as { account: string; seq: number; fill_amount: string }[];
    expect(fills).toHaveLength(6);
    // Escrows go out at the next flush (about twice per block).
    const escrows = await until(
      () => escrowTxs(t).slice(before),
      (e) => e.length >= 2,
    );
    expect(escrows).toHaveLength(2);
    const seq = fills[0]!.seq;
    for (const [user, escrow] of [
      [maker, escrows[0]!],
      [taker, escrows[1]!],
    ] as const) {
      expect(escrow.memo).toBe(`escrow:${user.address}:${seq}-${seq}`);
      expect(escrow.from).toBe(t.exchange.wallets.proxyAddress(user.address));
      const stakes = fills.filter((f) => f.account === user.address).map((f) => BigInt(f.fill_amount));
      expect(stakes).toHaveLength(3);
      expect(BigInt(escrow.amount)).toBe(stakes.reduce((a, b) => a + b, 0n));
    }

    await until(
      () => fillStatuses(t),
      (s) => s.length > 0 && s.every((x) => x === 'LOCKED'),
    );
    const trades = t.exchange.db
      .prepare('SELECT status FROM trades_shown WHERE market_hash = ?')
      .pluck()
      .all(marketHash) as string[];
    expect(trades).toEqual(['LOCKED', 'LOCKED', 'LOCKED', 'LOCKED']);
  });

  it('covers every fill with exactly one landed escrow of the same amount under concurrent load', async () => {
    const { marketHash } = await createMarket(t);
    const traders = await Promise.all([0, 1, 2, 3].map(() => createTrader(t, 1_000n * USDC)));
    await Promise.all(
      traders.flatMap((trader, i) =>
        [0, 1, 2, 3, 4, 5].map((k) =>
          place(t, trader, {
            marketHash,
            tick: 400 + (k % 3) * 8,
            size: BigInt(1 + k + i) * USDC,
            isOne: (i + k) % 2 === 0,
          }),
        ),
      ),
    );
    // Read from the tables, not through the API: once every batch is projected.
    await t.exchange.trading.idle();
    await until(
      () => fillStatuses(t),
      (s) => s.length > 0 && s.every((x) => x === 'LOCKED'),
    );
    const escrows = escrowTxs(t);
    expect(escrows.every((e) => e.status === 'success')).toBe(true);
    const covered = new Map<string, number>();
    for (const e of escrows) {
      const range = parseEscrowMemo(e.memo);
      if (!range || !('account' in range)) throw new Error(`unexpected memo ${e.memo}`);
      const rows = t.exchange.db
        .prepare('SELECT id, fill_amount FROM fills WHERE account = ? AND seq BETWEEN ? AND ?')
        .all(range.account, range.firstSeq, range.lastSeq) as { id: string; fill_amount: string }[];
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.reduce((s, r) => s + BigInt(r.fill_amount), 0n)).toBe(BigInt(e.amount));
      for (const r of rows) covered.set(r.id, (covered.get(r.id) ?? 0) + 1);
    }
    const all = t.exchange.db.prepare('SELECT id FROM fills').pluck().all() as string[];
    expect(all.length).toBeGreaterThan(escrows.length);
    for (const id of all) expect(covered.get(id)).toBe(1);
  });
});

describe('escrow: receipts that landed while the exchange was down', () => {
  it('a start locks the fills of escrows that landed after the last applied block', async () => {
    let t = await startTestExchange();
    try {
      const { marketHash } = await createMarket(t);
      const maker = await createTrader(t, 100n * USDC);
      const taker = await createTrader(t, 100n * USDC);
      await place(t, maker, { marketHash, tick: 400, size: 10n * USDC });
      await place(t, taker, { marketHash, tick: 400, size: 10n * USDC, isOne: false, timeInForce: 'IOC' });
      await until(
        () => fillStatuses(t),
        (s) => s.length === 2 && s.every((x) => x === 'LOCKED'),
      );
      await t.close();

      // As after a crash once the escrow's block was stored, before its receipts were journaled: no
      // watermark, the projected block cursor before the block.
      const db = new BetterSqlite3(join(t.dataDir, DATABASE_FILE));
      db.exec('DELETE FROM escrow_locks; UPDATE escrow_cursor SET block_number = 0');
      db.close();
      // The journal is a file of its own (store/sqlite/open-journal.ts).
      const receiptEntries = () => {
        const journal = new BetterSqlite3(join(t.dataDir, JOURNAL_FILE), { readonly: true });
        try {
          return journal
            .prepare("SELECT count(*) FROM journal WHERE kind = 'escrows'")
            .pluck()
            .get() as number;
        } finally {
          journal.close();
        }
      };
      const journaled = receiptEntries();

      t = await startTestExchange({ dataDir: t.dataDir });
      // The start journaled the stored receipts again, as one input, and applied it before serving.
      expect(receiptEntries()).toBe(journaled + 1);
      expect(fillStatuses(t)).toEqual(['LOCKED', 'LOCKED']);
      expect(t.exchange.db.prepare('SELECT status FROM trades_shown').pluck().all()).toEqual([
        'LOCKED',
        'LOCKED',
      ]);
      const head = t.exchange.db.prepare('SELECT max(number) FROM chain_blocks').pluck().get() as number;
      expect(
        t.exchange.db.prepare('SELECT block_number FROM escrow_cursor').pluck().get(),
      ).toBeGreaterThanOrEqual(head);
    } finally {
      await t.close();
      removeDataDir(t.dataDir);
    }
  });
});
