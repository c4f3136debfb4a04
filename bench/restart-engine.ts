/**
 * The engine's part of a restart with many resting orders (before issue 35 this was `bench:restart`; that now
 * measures the whole exchange, bench/restart.ts):
 * `node --expose-gc --max-old-space-size=8192 --import tsx bench/restart-engine.ts`. What a start does to
 * restore the engine: the engine restored from the newest checkpoint (its digest checked) and the journal
 * after it replayed (`recoverEngine`), after a clean stop (a checkpoint at the last seq) and after a crash
 * (BENCH_TAIL orders journaled after the checkpoint). The BENCH_RESTING resting orders (default 1,000,000; GTC
 * orders on one side of BENCH_MARKETS markets, so none crosses) are placed straight into an engine, whose
 * checkpoint is stored as the exchange stores it; a start reads nothing else before the checkpoint's seq, so
 * the journal before it is not written (that would take minutes). The tail goes through the sequencer and its
 * SQLite store as in the exchange. Also printed: the cost of taking a checkpoint (the sequencer waits for it)
 * and the engine's heap per resting order. Nothing else a start does is measured here.
 *
 * Knobs: BENCH_RESTING, BENCH_MARKETS (default 100), BENCH_TAIL (default 50,000), BENCH_RUNS (default 3).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../packages/server/src/engine/index.js';
import { Admission } from '../packages/server/src/sequencer/admission.js';
import { checkpointBytes } from '../packages/server/src/sequencer/checkpoint.js';
import type { EngineCommandInput, SequencerInput } from '../packages/server/src/sequencer/inputs.js';
import { recoverEngine } from '../packages/server/src/sequencer/recovery.js';
import { Sequencer } from '../packages/server/src/sequencer/sequencer.js';
import { digestOfAsync } from '../packages/server/src/sequencer/state-hash.js';
import { openDatabase } from '../packages/server/src/store/sqlite/open-database.js';
import { SqliteJournal } from '../packages/server/src/store/sqlite/sqlite-journal.js';

const RESTING = Number(process.env.BENCH_RESTING ?? 1_000_000);
const MARKETS = Number(process.env.BENCH_MARKETS ?? 100);
const TAIL = Number(process.env.BENCH_TAIL ?? 50_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const LADDER = 800;
const STEP = 10n ** 20n / BigInt(LADDER);
const markets = Array.from({ length: MARKETS }, (_, i) => `0x${(i + 1).toString(16).padStart(64, '0')}`);
const accounts = Array.from({ length: 1_000 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);

/** A resting order: every order bets outcome one, so none crosses another. */
function restingOrder(n: number): EngineCommandInput {
  return {
    type: 'place',
    orderId: `0x${n.toString(16).padStart(64, '0')}`,
    account: accounts[n % accounts.length]!,
    marketHash: markets[n % markets.length]!,
    isBettingOutcomeOne: true,
    percentageOdds: BigInt(200 + (n % 300)) * STEP,
    totalBetSize: 1_000_000n + BigInt(n % 9_000) * 1_000n,
    expiry: 4_000_000_000,
    timeInForce: 'GTC',
  };
}

const meta = (n: number) => ({
  commandId: `cmd-${n}`,
  eventId: 'E1',
  clientOrderId: null,
  salt: '0x01',
  baseToken: '0x0000000000000000000000000000000000000001',
  signature: `0x${'ab'.repeat(65)}`,
});

/** The longest gap between the event loop's turns since the last `take()` (ms): what a checkpoint step holds it. */
function loopGaps() {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  const settle = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  };
  return {
    take() {
      settle();
      const gap = longest;
      longest = 0;
      return gap.toFixed(0);
    },
    stop: () => clearInterval(timer),
  };
}

const ms = (from: number) => `${(performance.now() - from).toFixed(0)} ms`;
const heapMb = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

const dir = mkdtempSync(join(tmpdir(), 'oddsbook-bench-restart-'));
try {
  const db = openDatabase(dir);
  const store = new SqliteJournal(db);
  let seq = 0;
  const heapBefore = heapMb();
  const engine = new Engine({ ladderSize: LADDER });
  for (const marketHash of markets)
    engine.apply({ type: 'openMarket', marketHash, eventId: 'E1', seq: ++seq, ts: 1 });
  // Funds first: the engine refuses an order its account cannot cover.
  for (const account of accounts)
    engine.apply({ type: 'credit', account, amount: 10n ** 18n, seq: ++seq, ts: 1 });
  for (let n = 1; n <= RESTING; n++) engine.apply({ ...restingOrder(n), seq: ++seq, ts: 2 });
  const perOrder = ((heapMb() - heapBefore) * 2 ** 20) / RESTING;
  console.log(
    `${RESTING.toLocaleString('en-US')} resting orders on ${MARKETS} markets: ~${perOrder.toFixed(0)} heap bytes per resting order`,
  );

  for (let run = 1; run <= RUNS; run++) {
    // As the exchange takes one (trading/checkpointer.ts): the snapshot in the timer's task (the sequencer
    // waits for it), then the digest on the thread pool and the save, the event loop watched meanwhile.
    const taking = performance.now();
    const bytes = checkpointBytes(engine, new Admission());
    const snapshotTook = ms(taking);
    const gaps = loopGaps();
    const digesting = performance.now();
    const digest = await digestOfAsync(bytes);
    const digestTook = ms(digesting);
    const digestGap = gaps.take();
    const saving = performance.now();
    await store.saveCheckpoint(seq, digest, bytes, 3);
    const saveTook = ms(saving);
    const saveGap = gaps.take();
    gaps.stop();
    console.log(
      `checkpoint: ${(bytes.length / 2 ** 20).toFixed(0)} MB; snapshot (the sequencer's pause) ${snapshotTook}; ` +
        `digest ${digestTook} (longest event-loop gap ${digestGap} ms); stored in ${saveTook} ` +
        `(longest event-loop gap ${saveGap} ms)`,
    );
    const starting = performance.now();
    const report = await recoverEngine(store, LADDER);
    console.log(
      `  start after a clean stop: ${ms(starting)} (${report.orders.toLocaleString('en-US')} resting orders restored)`,
    );
  }

  // A crash: TAIL orders journaled through the sequencer after the checkpoint.
  const sequencer = new Sequencer({
    engine: (await recoverEngine(store, LADDER)).engine,
    journal: store,
    clock: { now: () => 4 },
    lastSeq: seq,
    lastTs: 3,
  });
  for (let n = RESTING + 1; n <= RESTING + TAIL; n += 1_000) {
    const inputs: SequencerInput[] = [];
    for (let k = n; k < Math.min(n + 1_000, RESTING + TAIL + 1); k++)
      inputs.push({ kind: 'engine', command: restingOrder(k), meta: meta(k) });
    await Promise.all(sequencer.submitAll(inputs));
  }
  await sequencer.close();
  const starting = performance.now();
  const report = await recoverEngine(store, LADDER);
  console.log(
    `start after a crash ${TAIL.toLocaleString('en-US')} orders past the checkpoint: ${ms(starting)} ` +
      `(${report.replayedCommands.toLocaleString('en-US')} commands replayed, ${report.orders.toLocaleString('en-US')} resting)`,
  );
  await store.close();
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
