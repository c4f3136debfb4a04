/**
 * The sequencer and its SQLite store alone: `node --import tsx bench/store.ts`. No HTTP, no signatures, no
 * chain, no realtime: orders go straight into the sequencer in batches, and each batch is applied to the
 * engine and journaled (synchronous=FULL as in production, in its own file: open-journal.ts), then
 * projected into the exchange's database, on the main thread or, as in the exchange, on the projector's
 * thread (threaded-projector.ts). As in the exchange, WAL checkpoints run on their own threads. It prints
 * the CPU time per order of the main thread (the sequencer's, the exchange's bottleneck) and of the whole
 * process, the figures the load generator of bench:orders disturbs, so that a change to the store can be
 * compared run against run.
 *
 * Knobs: BENCH_ORDERS (default 60,000), BENCH_BATCH (orders per batch, default 20), BENCH_RUNS (default 3),
 * BENCH_WAL_FRAMES=1 (one more run, without checkpoints, that reports the pages each commit wrote to the WAL,
 * by table and index: what a commit's cost grows with), BENCH_RESOLVE=1 (each run then closes and resolves
 * one of its four markets and reports how long that batch held the sequencer: every order waits for it),
 * BENCH_PROJECTOR (where the projections are written: `inline`, the main thread; `thread`, the projector's
 * thread as in the exchange; `inline,thread` (default) each run does both, one after the other).
 */
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { Engine } from '../packages/server/src/engine/index.js';
import type { SequencerInput } from '../packages/server/src/sequencer/inputs.js';
import { Sequencer } from '../packages/server/src/sequencer/sequencer.js';
import { Projector } from '../packages/server/src/store/projector.js';
import { openDatabase } from '../packages/server/src/store/sqlite/open-database.js';
import { openJournal } from '../packages/server/src/store/sqlite/open-journal.js';
import { SqliteJournal } from '../packages/server/src/store/sqlite/sqlite-journal.js';
import { SqliteProjectionStore } from '../packages/server/src/store/sqlite/sqlite-projection-store.js';
import { ThreadedProjector } from '../packages/server/src/store/sqlite/threaded-projector.js';
import { startWalCheckpointer } from '../packages/server/src/store/sqlite/wal-checkpointer.js';
import { TradingPipeline } from '../packages/server/src/trading/pipeline.js';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 60_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 20);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const WAL_FRAMES = process.env.BENCH_WAL_FRAMES === '1';
const RESOLVE = process.env.BENCH_RESOLVE === '1';
type Placement = 'inline' | 'thread';
const PLACEMENTS = (process.env.BENCH_PROJECTOR ?? 'inline,thread').split(',') as Placement[];
for (const p of PLACEMENTS) if (p !== 'inline' && p !== 'thread') throw new Error(`BENCH_PROJECTOR: ${p}?`);
const LADDER = 800;
const STEP = 10n ** 20n / BigInt(LADDER);
const MARKETS = Array.from({ length: 4 }, (_, i) => `0x${(i + 1).toString(16).repeat(64)}`);
const ACCOUNTS = Array.from({ length: 32 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);

/** A deterministic stream (xorshift), so that every run places the same orders. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

function orderInput(n: number, next: () => number): SequencerInput {
  const orderId = `0x${n.toString(16).padStart(64, '0')}`;
  const isOne = next() < 0.5;
  // Ticks around the middle on both sides, so that about half the orders cross and half rest.
  const tick = 395 + Math.floor(next() * 10);
  return {
    kind: 'engine',
    command: {
      type: 'place',
      orderId,
      account: ACCOUNTS[Math.floor(next() * ACCOUNTS.length)]!,
      marketHash: MARKETS[Math.floor(next() * MARKETS.length)]!,
      isBettingOutcomeOne: isOne,
      percentageOdds: BigInt(isOne ? tick : LADDER - tick) * STEP,
      totalBetSize: 1_000_000n + BigInt(Math.floor(next() * 9_000_000)),
      expiry: 4_000_000_000,
      timeInForce: next() < 0.8 ? 'GTC' : 'IOC',
    },
    meta: {
      commandId: `cmd-${n}`,
      eventId: 'L1',
      clientOrderId: null,
      salt: '0x01',
      baseToken: '0x0000000000000000000000000000000000000001',
      signature: `0x${'ab'.repeat(65)}`,
    },
  };
}

/** CPU time of the main thread so far, in µs (Linux: its task's utime + stime, in clock ticks of 10 ms). */
function mainThreadCpuUs(): number {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

type RunFigures = { mainUs: number; cpuUs: number; wallUs: number; fills: number };

/**
 * WAL frames per commit by B-tree (table or index; page 1 counts as sqlite_schema), read from the WAL file
 * of a database whose WAL was emptied before the `commits` measured and never checkpointed since.
 */
function walFramesByTree(db: Database, commits: number): [string, number][] {
  // Frame headers are read in place: the WAL of small batches passes the 2 GiB a Buffer can hold.
  const fd = openSync(`${db.name}-wal`, 'r');
  const header = Buffer.alloc(32);
  readSync(fd, header, 0, 32, 0);
  const pageSize = header.readUInt32BE(8);
  const walLength = fstatSync(fd).size;
  const tree = new Map<number, string>();
  for (const { name, pageno } of db.prepare('SELECT name, pageno FROM dbstat').all() as {
    name: string;
    pageno: number;
  }[])
    tree.set(pageno, name);
  const frames = new Map<string, number>();
  // A 32-byte header, then frames of a 24-byte header (page number first) and the page.
  for (let at = 32; at + 24 + pageSize <= walLength; at += 24 + pageSize) {
    readSync(fd, header, 0, 4, at);
    const name = tree.get(header.readUInt32BE(0)) ?? 'freelist';
    frames.set(name, (frames.get(name) ?? 0) + 1);
  }
  closeSync(fd);
  return [...frames].map(([name, n]): [string, number] => [name, n / commits]).sort((a, b) => b[1] - a[1]);
}

function shared(db: Database) {
  const journal = new SqliteJournal(db);
  return { journal, close: async () => journal.close() };
}

async function run(placement: Placement, mapWal = false): Promise<RunFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbook-bench-store-'));
  const db = openDatabase(dir);
  if (mapWal) db.pragma('wal_autocheckpoint = 0');
  const checkpointer = mapWal ? null : startWalCheckpointer(db);
  // The WAL map counts the frames of one file: the journal's rows go in it too, as before the journal
  // had a file of its own.
  const opened = mapWal ? shared(db) : openJournal(dir, db);
  const store = opened.journal;
  const inline = await Projector.open(new SqliteProjectionStore(db));
  const threaded = placement === 'thread' ? new ThreadedProjector(db, inline.cursor(), 1) : null;
  let now = 1_700_000_000_000;
  const sequencer = new Sequencer({
    engine: new Engine({ ladderSize: LADDER }),
    journal: store,
    clock: { now: () => (now += 1) },
    lastSeq: 0,
    lastTs: 0,
    maxQueue: Math.max(BATCH * 2, ACCOUNTS.length),
  });
  // The projections follow each batch (trading/pipeline.ts), on the main thread or on their own.
  const pipeline = new TradingPipeline({
    sequencer,
    projector: threaded ?? inline,
    onFatal: (error) => {
      throw error;
    },
  });
  const submit = (inputs: SequencerInput[]) => Promise.all(sequencer.submitAll(inputs));
  await submit(
    MARKETS.map((marketHash) => ({
      kind: 'engine',
      command: { type: 'openMarket', marketHash, eventId: 'L1' },
    })),
  );
  await submit(
    ACCOUNTS.map((account) => ({ kind: 'engine', command: { type: 'credit', account, amount: 10n ** 15n } })),
  );
  const next = random(7);
  const inputs = Array.from({ length: ORDERS }, (_, i) => orderInput(i + 1, next));
  if (mapWal) db.pragma('wal_checkpoint(TRUNCATE)');
  const cpu = process.cpuUsage();
  const main = mainThreadCpuUs();
  const started = performance.now();
  for (let i = 0; i < inputs.length; i += BATCH) await submit(inputs.slice(i, i + BATCH));
  await pipeline.idle();
  const wallUs = ((performance.now() - started) * 1000) / ORDERS;
  const used = process.cpuUsage(cpu);
  const mainUs = (mainThreadCpuUs() - main) / ORDERS;
  const fills = db.prepare('SELECT count(*) FROM fills').pluck().get() as number;
  if (RESOLVE && !mapWal) {
    const marketHash = MARKETS[0]!;
    const count = (table: string) =>
      db.prepare(`SELECT count(*) FROM ${table} WHERE market_hash = ?`).pluck().get(marketHash) as number;
    await submit([{ kind: 'engine', command: { type: 'closeMarket', marketHash } }]);
    const resolving = performance.now();
    await submit([{ kind: 'engine', command: { type: 'resolveMarket', marketHash, outcome: 1 } }]);
    console.log(
      `  resolving a market of ${count('trades').toLocaleString('en-US')} trades and ` +
        `${count('fills').toLocaleString('en-US')} fills: ${(performance.now() - resolving).toFixed(1)} ms`,
    );
  }
  if (mapWal) {
    const frames = walFramesByTree(db, Math.ceil(ORDERS / BATCH));
    const total = frames.reduce((sum, [, n]) => sum + n, 0);
    console.log(`WAL pages per commit of ${BATCH} orders: ${total.toFixed(1)}`);
    for (const [name, n] of frames) console.log(`  ${n.toFixed(2).padStart(6)}  ${name}`);
  }
  await threaded?.close();
  await checkpointer?.stop();
  await opened.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { mainUs, cpuUs: (used.user + used.system) / ORDERS, wallUs, fills };
}

console.log(
  `${ORDERS.toLocaleString('en-US')} orders in batches of ${BATCH}, ${RUNS} runs (the first warms up)`,
);
for (let r = 0; r < RUNS; r++) {
  for (const placement of PLACEMENTS) {
    const { mainUs, cpuUs, wallUs, fills } = await run(placement);
    console.log(
      `run ${r + 1}, ${placement.padEnd(6)}: ${mainUs.toFixed(1)} µs main-thread CPU per order, ` +
        `${cpuUs.toFixed(1)} µs process CPU, ${wallUs.toFixed(1)} µs wall, ${fills.toLocaleString('en-US')} fills`,
    );
  }
}
if (WAL_FRAMES) await run('inline', true);
