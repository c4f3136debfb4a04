import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/index.js';
import { checkpointBytes } from '../../src/sequencer/checkpoint.js';
import type { EngineCommandInput, SequencerInput } from '../../src/sequencer/inputs.js';
import {
  compareWithJournal,
  exchangeEngineOptions,
  RecoveryError,
  recoverEngine,
  replayJournal,
} from '../../src/sequencer/recovery.js';
import { Sequencer } from '../../src/sequencer/sequencer.js';
import { digestOf, stateHashOf } from '../../src/sequencer/state-hash.js';
import { Projector } from '../../src/store/projector.js';
import { openDatabase } from '../../src/store/sqlite/open-database.js';
import { SqliteJournal } from '../../src/store/sqlite/sqlite-journal.js';
import { SqliteProjectionStore } from '../../src/store/sqlite/sqlite-projection-store.js';
import { TRADES } from '../../src/store/sqlite/sqlite-trading-queries.js';
import { toShownTrade } from '../../src/store/trading-rows.js';
import { TradingPipeline } from '../../src/trading/pipeline.js';
import { removeDataDir } from '../helpers/test-exchange.js';

const LADDER = 800;
const STEP = 10n ** 20n / 800n;
const MARKETS = [`0x${'a'.repeat(64)}`, `0x${'b'.repeat(64)}`];
const ACCOUNTS = ['0xA1', '0xB2', '0xC3'];
const meta = (orderId: string) => ({
  commandId: `cmd-${orderId}`,
  eventId: 'L1',
  clientOrderId: null,
  salt: '0x01',
  baseToken: '0x0000000000000000000000000000000000000001',
  signature: '0x',
});

/** A random but valid-looking flow of exchange activity. */
const inputArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('place' as const),
      account: fc.constantFrom(...ACCOUNTS),
      market: fc.constantFrom(...MARKETS),
      isOne: fc.boolean(),
      tick: fc.integer({ min: 300, max: 500 }),
      size: fc.bigInt({ min: 800n, max: 50_000_000n }),
      tif: fc.constantFrom('GTC', 'GTC', 'IOC', 'FOK'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('credit' as const),
      account: fc.constantFrom(...ACCOUNTS),
      amount: fc.bigInt({ min: 1n, max: 100_000_000n }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('cancelAccount' as const),
      account: fc.constantFrom(...ACCOUNTS),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('resolve' as const),
      market: fc.constantFrom(...MARKETS),
      outcome: fc.constantFrom(0, 1, 2),
    }),
  },
);

// biome-ignore lint/suspicious/noExplicitAny: generated records of several shapes
function toInput(a: any, placed: string[], n: number): SequencerInput {
  switch (a.kind) {
    case 'place': {
      const orderId = `0x${n.toString(16).padStart(64, '0')}`;
      placed.push(orderId);
      const command: EngineCommandInput = {
        type: 'place',
        orderId,
        account: a.account,
        marketHash: a.market,
        isBettingOutcomeOne: a.isOne,
        percentageOdds: BigInt(a.tick) * STEP,
        totalBetSize: a.size,
        expiry: 4_000_000_000,
        timeInForce: a.tif,
      };
      return { kind: 'engine', command, meta: meta(orderId) };
    }
    case 'cancel':
      return {
        kind: 'engine',
        command: { type: 'cancel', orderIds: placed.length ? [placed[a.pick % placed.length]!] : [] },
      };
    case 'credit':
      return { kind: 'engine', command: { type: 'credit', account: a.account, amount: a.amount } };
    case 'cancelAccount':
      return {
        kind: 'engine',
        command: { type: 'cancelAccount', account: a.account, reason: 'HEARTBEAT_TIMEOUT' },
      };
    default:
      return { kind: 'engine', command: { type: 'resolveMarket', marketHash: a.market, outcome: a.outcome } };
  }
}

async function openSequencer(dataDir: string, openOrderCacheSize?: number) {
  const db = openDatabase(dataDir);
  const store = new SqliteJournal(db);
  projections = new SqliteProjectionStore(db);
  projector = await Projector.open(projections, { openOrderCacheSize });
  const catchUp = projector;
  const recovered = await recoverEngine(store, LADDER, {
    after: projector.cursor(),
    onEntries: async (entries) => {
      await catchUp.project(entries);
    },
  });
  const state = await store.last();
  let now = 1_700_000_000_000;
  const sequencer = new Sequencer({
    engine: recovered.engine,
    admission: recovered.admission,
    journal: store,
    clock: { now: () => (now += 7) },
    lastSeq: state.seq,
    lastTs: state.ts,
  });
  pipeline = new TradingPipeline({
    sequencer,
    projector,
    onFatal: (error) => {
      throw error;
    },
  });
  return { db, store, sequencer, recovered };
}

/** The projector and pipeline of the last `openSequencer`. */
let projector: Projector;
let projections: SqliteProjectionStore;
let pipeline: TradingPipeline;

/** Closes the database once every answered batch is projected (as a clean stop does). */
async function close(db: ReturnType<typeof openDatabase>): Promise<void> {
  await pipeline.idle();
  db.close();
}

const compare = (store: SqliteJournal) => compareWithJournal(store, projections, projector.cursor(), LADDER);

/**
 * The history rows agree with each other and with the engine: each order's fill columns and its trade are
 * the sums of its fills, and every order the engine holds is open with the engine's remaining size.
 */
function expectHistoryRowsAgree(db: ReturnType<typeof openDatabase>, engine: Engine): void {
  type Sums = { id: string; filled: string; fill_pot: string; stake: string | null; pot: string | null };
  const orders = db
    .prepare(
      `SELECT o.id, o.filled_size AS filled, o.fill_pot, t.stake, t.pot FROM orders o
        LEFT JOIN trades t ON t.order_id = o.id`,
    )
    .all() as Sums[];
  const fills = db.prepare('SELECT order_id, fill_amount, pot FROM fills').all() as {
    order_id: string;
    fill_amount: string;
    pot: string;
  }[];
  const sums = new Map<string, { stake: bigint; pot: bigint }>();
  for (const f of fills) {
    const s = sums.get(f.order_id) ?? { stake: 0n, pot: 0n };
    s.stake += BigInt(f.fill_amount);
    s.pot += BigInt(f.pot);
    sums.set(f.order_id, s);
  }
  for (const o of orders) {
    const s = sums.get(o.id);
    expect({
      id: o.id,
      fillPot: o.fill_pot,
      stake: o.stake,
      pot: o.pot,
      filled: BigInt(o.filled) > 0n,
    }).toEqual({
      id: o.id,
      fillPot: (s?.pot ?? 0n).toString(),
      stake: s ? s.stake.toString() : null,
      pot: s ? s.pot.toString() : null,
      filled: s !== undefined,
    });
  }
  const rows = db.prepare('SELECT id, status, remaining_size FROM orders').all() as {
    id: string;
    status: string;
    remaining_size: string;
  }[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const [orderId, , , , , , remainingSize] of engine.snapshot().orders) {
    expect(byId.get(orderId)).toMatchObject({ status: 'ACTIVE', remaining_size: remainingSize });
  }
}

describe('sequencer durability', () => {
  it('a start (checkpoint and journal) rebuilds the exact engine state, and the projections agree with the journal', async () => {
    const seen = { fills: 0, settled: 0, resting: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(inputArb, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 12 }),
        // Open orders' rows kept in memory: none, a couple (evicted all the time), the default.
        fc.constantFrom(0, 2, undefined),
        async (batches, cacheSize) => {
          const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-seq-'));
          try {
            let { db, sequencer } = await openSequencer(dataDir, cacheSize);
            await Promise.all(
              sequencer.submitAll(
                MARKETS.map((marketHash) => ({
                  kind: 'engine',
                  command: { type: 'openMarket', marketHash, eventId: 'L1' },
                })),
              ),
            );
            // Funded accounts, so crossing orders really trade (the generated credits add more).
            await Promise.all(
              sequencer.submitAll(
                ACCOUNTS.map((account) => ({
                  kind: 'engine' as const,
                  command: { type: 'credit' as const, account, amount: 1_000_000_000n },
                })),
              ),
            );
            const placed: string[] = [];
            let n = 0;
            for (const [i, batch] of batches.entries()) {
              await Promise.all(sequencer.submitAll(batch.map((a) => toInput(a, placed, ++n))));
              if (i === Math.floor(batches.length / 2)) {
                // A clean stop in the middle (a checkpoint), then a start: the state restored from it must
                // equal the live one; the final start below restores it and replays the journal after it.
                const liveHash = stateHashOf(sequencer.engine);
                const bytes = checkpointBytes(sequencer.engine, sequencer.admission);
                new SqliteJournal(db).saveCheckpoint(sequencer.lastSeq, digestOf(bytes), bytes, 1);
                await close(db);
                ({ db, sequencer } = await openSequencer(dataDir, cacheSize));
                expect(stateHashOf(sequencer.engine)).toBe(liveHash);
              }
            }
            seen.resting += sequencer.engine.snapshot().orders.length;
            await pipeline.idle();
            expectHistoryRowsAgree(db, sequencer.engine);
            // Settle whatever the flow traded, so every run exercises payouts and their projections.
            await Promise.all(
              sequencer.submitAll(
                MARKETS.map((marketHash, i) => ({
                  kind: 'engine' as const,
                  command: {
                    type: 'resolveMarket' as const,
                    marketHash,
                    outcome: ((batches.length + i) % 3) as 0 | 1 | 2,
                  },
                })),
              ),
            );
            const liveHash = stateHashOf(sequencer.engine);
            sequencer.engine.assertInvariants();
            await close(db);
            const reopened = await openSequencer(dataDir);
            expect(stateHashOf(reopened.recovered.engine)).toBe(liveHash);
            const fromJournal = new Engine({ ...exchangeEngineOptions(reopened.store), ladderSize: LADDER });
            await replayJournal(fromJournal, reopened.store, 0);
            expect(stateHashOf(fromJournal)).toBe(liveHash);
            // The projections, which a start no longer reads, agree with the journal (what replay checks).
            expect((await compare(reopened.store)).projectionsHash).toBe(liveHash);
            seen.fills += reopened.db.prepare('SELECT count(*) FROM fills').pluck().get() as number;
            seen.settled += (
              reopened.db.prepare(`SELECT * FROM ${TRADES}`).all() as Record<string, unknown>[]
            )
              .map(toShownTrade)
              .filter((t) => t.status === 'SETTLED').length;
            await close(reopened.db);
          } finally {
            removeDataDir(dataDir);
          }
        },
      ),
      { numRuns: 25 },
    );
    // The generated flows really trade, settle and leave books behind.
    expect(seen.fills).toBeGreaterThan(0);
    expect(seen.settled).toBeGreaterThan(0);
    expect(seen.resting).toBeGreaterThan(0);
  });

  it('resumes both seqs from the journal when it ends with inputs the engine never saw', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-seq-'));
    try {
      let { db, store, sequencer } = await openSequencer(dataDir);
      // The journal's last seq and time, and the last seq the engine applied.
      const seqs = async () => ({
        lastSeq: (await store.last()).seq,
        engineLastSeq: sequencer.engine.lastAppliedSeq,
        lastTs: (await store.last()).ts,
      });
      expect(await seqs()).toEqual({ lastSeq: 0, engineLastSeq: -1, lastTs: 0 });
      await Promise.all(
        sequencer.submitAll([
          { kind: 'engine', command: { type: 'openMarket', marketHash: MARKETS[0]!, eventId: 'L1' } },
          { kind: 'engine', command: { type: 'credit', account: '0xA1', amount: 50_000_000n } },
        ]),
      );
      // An in-play order admitted (PENDING), then withdrawn: journaled, never applied to the engine.
      const orderId = `0x${'9'.repeat(64)}`;
      const order = {
        type: 'place' as const,
        orderId,
        account: '0xA1',
        marketHash: MARKETS[0]!,
        isBettingOutcomeOne: true,
        percentageOdds: 400n * STEP,
        totalBetSize: 1_000_000n,
        expiry: 4_000_000_000,
        timeInForce: 'GTC' as const,
      };
      await sequencer.submit({ kind: 'admit', order, meta: meta(orderId), activateAt: 9_999 });
      await sequencer.submit({ kind: 'withdraw', orderIds: [orderId], reason: 'CANCELLED' });
      const lastTs = db.prepare('SELECT max(ts) FROM journal').pluck().get() as number;
      const liveHash = stateHashOf(sequencer.engine);
      await close(db);

      ({ db, store, sequencer } = await openSequencer(dataDir));
      expect(await seqs()).toEqual({ lastSeq: 4, engineLastSeq: 2, lastTs });
      expect(stateHashOf(sequencer.engine)).toBe(liveHash);
      await sequencer.submit({ kind: 'engine', command: { type: 'credit', account: '0xA1', amount: 1n } });
      expect(db.prepare('SELECT max(seq) FROM journal').pluck().get()).toBe(5);
      expect(await seqs()).toMatchObject({ lastSeq: 5, engineLastSeq: 5 });
      await close(db);
    } finally {
      removeDataDir(dataDir);
    }
  });

  it('starts from the newest checkpoint and the journal after it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-seq-'));
    try {
      let { db, store, sequencer } = await openSequencer(dataDir);
      const credit = (amount: bigint) =>
        sequencer.submit({ kind: 'engine', command: { type: 'credit', account: '0xA1', amount } });
      await credit(5n);
      const atCheckpoint = checkpointBytes(sequencer.engine, sequencer.admission);
      await store.saveCheckpoint(sequencer.lastSeq, digestOf(atCheckpoint), atCheckpoint, 1);
      await credit(7n);
      const liveHash = stateHashOf(sequencer.engine);
      await close(db);

      ({ db, store } = await openSequencer(dataDir));
      const recovered = await recoverEngine(store, LADDER);
      expect(recovered).toMatchObject({ checkpointSeq: 1, replayedCommands: 1 });
      expect(stateHashOf(recovered.engine)).toBe(liveHash);
      expect(recovered.engine.balance('0xA1').available).toBe(12n);
      await close(db);
    } finally {
      removeDataDir(dataDir);
    }
  });

  it("starts from the newest checkpoint at or before the consumers' cursor, handing on every entry after it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-seq-'));
    try {
      const { db, store, sequencer } = await openSequencer(dataDir);
      const credit = (amount: bigint) =>
        sequencer.submit({ kind: 'engine', command: { type: 'credit', account: '0xA1', amount } });
      const checkpoint = async () => {
        const { seq, bytes } = sequencer.checkpointNow();
        await store.saveCheckpoint(seq, digestOf(bytes), bytes, 1);
      };
      await credit(5n);
      await checkpoint();
      await credit(7n);
      await credit(9n);
      await checkpoint();
      await credit(11n);
      // A consumer at seq 2 (between the two checkpoints): the older one, and the entries from 3 on.
      const handed: number[] = [];
      const recovered = await recoverEngine(store, LADDER, {
        after: 2,
        onEntries: (entries) => {
          handed.push(...entries.map((entry) => entry.seq));
        },
      });
      expect(recovered).toMatchObject({ checkpointSeq: 1, replayedCommands: 3, lastSeq: 4 });
      expect(handed).toEqual([3, 4]);
      expect(stateHashOf(recovered.engine)).toBe(stateHashOf(sequencer.engine));
      // Before both: the whole journal.
      expect(await recoverEngine(store, LADDER, { after: 0 })).toMatchObject({ checkpointSeq: 0 });
      await close(db);
    } finally {
      removeDataDir(dataDir);
    }
  });

  it('refuses to start from a checkpoint whose bytes do not match their digest', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-seq-'));
    try {
      const { db, store, sequencer } = await openSequencer(dataDir);
      await sequencer.submit({ kind: 'engine', command: { type: 'credit', account: '0xA1', amount: 5n } });
      const bytes = checkpointBytes(sequencer.engine, sequencer.admission);
      await store.saveCheckpoint(sequencer.lastSeq, digestOf(bytes), bytes, 1);
      // One byte of the stored checkpoint changed on disk.
      db.prepare('UPDATE engine_checkpoints SET snapshot = ?').run(
        Buffer.from(bytes.map((b, i) => (i === 20 ? b ^ 1 : b))),
      );
      await close(db);
      await expect(openSequencer(dataDir)).rejects.toThrow(RecoveryError);
    } finally {
      removeDataDir(dataDir);
    }
  });

  it('replay finds projections that disagree with the journal', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-seq-'));
    try {
      const { db, store, sequencer } = await openSequencer(dataDir);
      await sequencer.submit({ kind: 'engine', command: { type: 'credit', account: '0xA1', amount: 5n } });
      await pipeline.idle();
      const agreeing = await compare(store);
      expect(agreeing.projectionsHash).toBe(agreeing.journalHash);
      db.prepare("UPDATE balances SET available = '6'").run();
      const disagreeing = await compare(store);
      expect(disagreeing.projectionsHash).not.toBe(disagreeing.journalHash);
      await close(db);
    } finally {
      removeDataDir(dataDir);
    }
  });

  it('answers 503 when the queue is full and fails stop when a commit fails', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-seq-'));
    try {
      const db = openDatabase(dataDir);
      const store = new SqliteJournal(db);
      let fatal: unknown = null;
      const sequencer = new Sequencer({
        engine: new Engine(),
        journal: store,
        clock: { now: () => 1 },
        lastSeq: 0,
        lastTs: 0,
        maxQueue: 2,
        onFatal: (error) => {
          fatal = error;
        },
      });
      const credit = { kind: 'engine', command: { type: 'credit', account: '0xA1', amount: 5n } } as const;
      const accepted = sequencer.submitAll([credit, credit]);
      expect(() => sequencer.submit(credit)).toThrow(expect.objectContaining({ statusCode: 503 }));
      await Promise.all(accepted);
      db.close();
      await expect(sequencer.submit(credit)).rejects.toMatchObject({ statusCode: 503 });
      expect(fatal).toBeTruthy();
      expect(() => sequencer.submit(credit)).toThrow(expect.objectContaining({ statusCode: 503 }));
    } finally {
      removeDataDir(dataDir);
    }
  });
});
