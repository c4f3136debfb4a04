/**
 * The order path, end to end: `npm run bench:orders` (node --import tsx bench/orders.ts).
 *
 * Starts the real exchange as a child process on a loopback port (RATE_LIMITS=0 DEMO=0 LOG_LEVEL=warn, and
 * MAX_CONNECTIONS_PER_ADDRESS=10000, as every connection of the load generator comes from one address, as
 * from a proxy; a fresh data dir on the machine's disk, SQLite WAL with synchronous=FULL as in production), creates a market
 * and traders through the HTTP API (API keys, deploy-proxy, faucet), pre-signs unique orders natively, and
 * drives `POST /orders-v3` from this process: autocannon for the closed-loop peak phases, an open-loop
 * generator (bench/lib/open-loop.ts: exact even send times, latency from the scheduled send) for the paced
 * ones. In the same run, a bare Fastify server that only verifies the same signatures (bench/lib/verify-only-server.ts, also a child process, same verifier
 * pool) gives the ceiling.
 *
 * Two flows, each on markets of its own: the one-sided flow (every trader bets one side; outcome-one makers
 * and outcome-two takers about half of which cross; bench/lib/order-fixtures.ts `createOrderSigner`) and the
 * crossing flow of issue 35 (of every three 1-order requests two are GTC makers at even money and one an IOC
 * taker that fills exactly 1, 2 or 3 of them in turn; `createCrossingFlow`).
 *
 * Phases: (a) peak orders/s with 1-order requests; (x) the same with the crossing flow (after a warm-up of
 * its own that builds its books); (b) peak with 10-order requests; (c) latency of 1-order
 * requests at half of (a)'s rate; (d) `waitForOutcome: true` latency at 1,000 orders/s (and, as (d0), at
 * 100/s, where nothing queues: the floor of one acknowledgement); (e) the ceiling's
 * peak with 1-order requests, (ex) with the crossing flow's requests, (e10) with 10-order requests, and (e0),
 * (e1) its latency paced at 100/s and 1,000/s (what HTTP, the
 * signature check and this generator alone take, against (d0) and (d)). They run in the order a, e, x, ex,
 * c, d0, e0, d, e1, b, e10: each ceiling phase right after the exchange phase it is the reference of, so that
 * the two meet the same load from the rest of a shared machine (a reference measured minutes later, after
 * both stores, once came out 1.6-2x faster than its exchange phases' neighbours); after the table, each
 * exchange phase is set against its ceiling phase (CPU efficiency =
 * the ceiling's CPU µs per order / the exchange's; throughput = orders/s over the ceiling's). Between two, the
 * bench waits until the
 * embedded chain has mined the escrows of the last phase, so that a phase does not pay for the previous
 * one's backlog (the settle times are printed). Every phase checks that no request failed (non-2xx 0, no FAILED order) and
 * counts the fills the exchange committed (read from its database).
 *
 * Stores (issue 36): `--store sqlite|postgres|both` (or BENCH_STORE; default both): the exchange's phases
 * run on each store in turn, each on a fresh exchange (PostgreSQL: a fresh database on the local server,
 * bench/lib/bench-store.ts, dropped after), each with its own references (above). Per
 * phase the projector's rows per second and lag are read from the exchange's /metrics, and on PostgreSQL
 * the CPU of its backends for the bench's database from /proc.
 *
 * Server from sources through tsx by default (what `crash.test.ts` runs); BENCH_SERVER=dist runs the
 * built `packages/server/bin/oddsbook.js` instead (run `npm run build` first). Knobs:
 * - BENCH_CONNECTIONS: keep-alive connections of the peak phases (default 64);
 * - BENCH_TRADERS: accounts placing the orders (default 32);
 * - BENCH_FOLLOW: how many of them follow their orders, trades, fills and the books over the realtime
 *   WebSocket while they trade (default 0: REST-only traders; bench/lib/followers.ts);
 * - BENCH_HEDGE=1: traders change sides every 64 orders, so their fills hedge (capital-efficiency refunds,
 *   each a release on the chain); default: each trader bets one side only;
 * - BENCH_SECONDS: scales every phase (default 1);
 * - BENCH_PHASES: a comma list of the phases to run (default a,x,c,d0,d,b,e,ex,e10,e0,e1; c needs a);
 * - BENCH_PROFILE=<dir>: the exchange writes a CPU profile there (node --cpu-prof);
 * - BENCH_TRACE=1: a 100 ms time series of each paced phase (latency, this process's event-loop lag, a
 *   /health probe's round trip; bench/lib/trace.ts);
 * - BENCH_NODE_FLAGS: the servers' Node flags;
 * - BENCH_EXCHANGE_LOG=<file>: the exchange's stdout and stderr are written there after the run.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { DEFAULT_VERIFY_WORKERS } from '../packages/server/src/exchange/exchange.js';
import { FILLS as POSTGRES_FILLS } from '../packages/server/src/store/postgres/trading-rows.js';
import { FILLS as SQLITE_FILLS } from '../packages/server/src/store/sqlite/sqlite-trading-queries.js';
import { toShownFill } from '../packages/server/src/store/trading-rows.js';
import {
  type BenchDatabase,
  benchDatabase,
  dropLeftDatabases,
  type PostgresCpuMeter,
  postgresCpu,
  type StoreKind,
  type StoreReader,
  storeEnv,
  storeReader,
  storesToRun,
} from './lib/bench-store.js';
import { formatSummary, summarizeProfile } from './lib/cpu-profile.js';
import { groupCommits, projectorFigures, sampleLag, scrape } from './lib/exchange-metrics.js';
import {
  type Child,
  exchangeArgs,
  exchangeEnv,
  randomPort,
  setUpExchange,
  startChild,
  stopChild,
} from './lib/exchange-process.js';
import { type Followers, follow } from './lib/followers.js';
import { type LoadResult, pacedRequestCount, percentile, runPaced, runPeak } from './lib/http-load.js';
import type { OpenLoopStats } from './lib/open-loop.js';
import {
  type BenchRequest,
  createCrossingFlow,
  createOrderSigner,
  crossCheckWithViem,
  newTrader,
} from './lib/order-fixtures.js';
import { printReport, type Row } from './lib/orders-report.js';

const ADMIN = 'bench-orders-admin-token-0123456789';
const TRADERS = Number(process.env.BENCH_TRADERS ?? 32);
const FOLLOW = Math.min(TRADERS, Number(process.env.BENCH_FOLLOW ?? 0));
const HEDGE = process.env.BENCH_HEDGE === '1';
/** Markets of the one-sided flow (phases a-d); the crossing flow (x) has as many of its own. */
const MARKETS = 4;
const FUNDS = 10n ** 15n; // base units per trader: 10^9 USDC, never the limit
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SCALE = Number(process.env.BENCH_SECONDS ?? 1);
const USE_DIST = process.env.BENCH_SERVER === 'dist';
/** Node flags for the exchange and the ceiling alike (none by default, as `npm start`). */
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
/** The phases to run (default all); (c) needs (a), whose rate it halves. */
const PHASES = new Set(
  (process.env.BENCH_PHASES ?? 'a,x,c,d0,d,b,e,ex,e10,e0,e1').split(',').map((p) => p.trim()),
);
const STORES = storesToRun('both');

// Exit (running the 'exit' handlers that stop the servers) on Ctrl-C or `timeout`, too.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1));

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');
const log = (line: string) => console.log(line);
const s = (n: number) => Math.round(n * SCALE);

// ------------------------------------------------------------------ phases

/** Counts in the exchange's store (projections) and its data dir (the embedded chain). */
function storeCounter(store: StoreKind, reader: StoreReader) {
  const FILLS = store === 'postgres' ? POSTGRES_FILLS : SQLITE_FILLS;
  return {
    fills: () => reader.value('SELECT count(*) FROM fills'),
    /** Makers filled: one per match (a fill has a row for each side). */
    makerFills: () => reader.value('SELECT count(*) FROM fills WHERE is_maker'),
    /** Fills as they show (records/shown.ts: LOCKED once the account's escrows through the fill's seq landed). */
    async fillStatuses() {
      const counts = new Map<string, number>();
      for (const row of await reader.rows(`SELECT * FROM ${FILLS}`)) {
        const { status } = toShownFill(row);
        counts.set(status, (counts.get(status) ?? 0) + 1);
      }
      return [...counts].sort().map(([status, n]) => ({ status, n }));
    },
    orders: () => reader.value('SELECT count(*) FROM orders'),
    refunds: () => reader.value('SELECT count(*) FROM ce_refunds'),
    mempool: () => reader.chain('SELECT count(*) FROM chain_transactions WHERE block_number IS NULL'),
    // Fills whose escrow has not landed yet (records/shown.ts: LOCKED once the account's lock passes the seq).
    unlocked: () =>
      reader.value(
        `SELECT count(*) FROM fills f LEFT JOIN escrow_locks l ON l.account = f.account
          WHERE f.status = 'MATCHED' AND (l.through_seq IS NULL OR f.seq > l.through_seq)`,
      ),
  };
}
type Counter = ReturnType<typeof storeCounter>;

/**
 * Waits until the embedded chain has mined every escrow of the previous phase and the exchange has applied
 * the receipts (every fill LOCKED), so that each phase starts from a steady state instead of a backlog.
 * Returns the seconds (at most a minute).
 */
async function settle(counter: Counter): Promise<number> {
  const started = performance.now();
  while ((counter.mempool() > 0 || (await counter.unlocked()) > 0) && performance.now() - started < 60_000) {
    await new Promise((r) => setTimeout(r, 100));
  }
  return (performance.now() - started) / 1000;
}

type Measured = Awaited<ReturnType<typeof measured>>;

/**
 * Runs one phase against `server`, with what it cost: the server's CPU and writes, per thread; for the
 * exchange (`exchange` given) its fills, group commits and projector, and PostgreSQL's CPU.
 */
async function measured<R extends LoadResult & { paced?: OpenLoopStats }>(
  server: Child,
  run: () => Promise<R>,
  exchange: { counter: Counter; postgres: PostgresCpuMeter | null } | null = null,
) {
  const t0 = Date.now();
  const fillsBefore = exchange ? await exchange.counter.fills() : 0;
  const makerFillsBefore = exchange ? await exchange.counter.makerFills() : 0;
  const metricsBefore = exchange ? await scrape(server.base) : null;
  const postgresBefore = exchange?.postgres ? await exchange.postgres.read() : null;
  const lag = exchange ? sampleLag(server.base) : null;
  const cpuBefore = server.cpuSeconds();
  const bytesBefore = server.writeBytes();
  const threadsBefore = server.threadCpuSeconds();
  const result = await run();
  const threadsAfter = server.threadCpuSeconds();
  const serverCpu = (server.cpuSeconds() - cpuBefore) / result.seconds;
  const bytesPerOrder = (server.writeBytes() - bytesBefore) / Math.max(1, result.orders);
  const postgresCpu = postgresBefore ? await exchange!.postgres!.since(postgresBefore) : undefined;
  const maxLag = lag ? await lag.stop() : 0;
  const metricsAfter = exchange ? await scrape(server.base) : null;
  // With BENCH_PROFILE, the phase's wall-clock window, to cut the server's CPU profile by phase.
  const window = { fromEpochMs: t0, untilEpochMs: Date.now() };
  // Per thread: which of the server's threads spent the CPU (µs per order; the main thread's id is the pid).
  const threads = [...threadsAfter]
    .map(([tid, seconds]) => ({
      tid,
      main: tid === server.child.pid,
      microsPerOrder: ((seconds - (threadsBefore.get(tid) ?? 0)) * 1e6) / Math.max(1, result.orders),
    }))
    .filter((t) => t.microsPerOrder >= 1)
    .sort((a, b) => b.microsPerOrder - a.microsPerOrder);
  if (process.env.BENCH_PROFILE) console.log(`phase window ${window.fromEpochMs} ${window.untilEpochMs}`);
  return {
    window,
    threads,
    result,
    serverCpu,
    bytesPerOrder,
    fills: exchange ? (await exchange.counter.fills()) - fillsBefore : null,
    makerFills: exchange ? (await exchange.counter.makerFills()) - makerFillsBefore : null,
    ...(result.paced ? { paced: result.paced } : {}),
    ...(metricsBefore && metricsAfter
      ? {
          commits: groupCommits(metricsBefore, metricsAfter),
          projector: projectorFigures(metricsBefore, metricsAfter, maxLag),
        }
      : {}),
    ...(postgresCpu ? { postgresCpu } : {}),
  };
}

const toRow = (
  store: StoreKind,
  phase: string,
  perRequest: number,
  m: Measured,
  referenceOf?: string,
): Row => ({ store, phase, perRequest, ...m, ...(referenceOf ? { referenceOf } : {}) });

async function sqliteCommitFloor(dir: string): Promise<{ p50: number; p99: number }> {
  // The disk's part of every acknowledgement: one SQLite WAL commit with synchronous=FULL, measured on
  // the same file system as the exchange's data dir, once the WAL is being reused (as in steady state).
  const db = new Database(join(dir, 'fsync-probe.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const commit = db.transaction(() => {
    for (let i = 0; i < 3; i++) insert.run('x'.repeat(600));
  });
  for (let i = 0; i < 600; i++) commit();
  const t = new Float64Array(400);
  for (let i = 0; i < t.length; i++) {
    const s = performance.now();
    commit();
    t[i] = performance.now() - s;
  }
  db.close();
  t.sort();
  return { p50: percentile(t, 0.5), p99: percentile(t, 0.99) };
}

/** The same on PostgreSQL: one INSERT committed (synchronous_commit on: the WAL's fsync), one round trip. */
async function postgresCommitFloor(): Promise<{ p50: number; p99: number }> {
  const database = await benchDatabase();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query('CREATE TABLE t (id bigserial PRIMARY KEY, v text)');
    const v = 'x'.repeat(600);
    for (let i = 0; i < 200; i++) await client.query('INSERT INTO t (v) VALUES ($1)', [v]);
    const t = new Float64Array(400);
    for (let i = 0; i < t.length; i++) {
      const s = performance.now();
      await client.query('INSERT INTO t (v) VALUES ($1)', [v]);
      t[i] = performance.now() - s;
    }
    t.sort();
    return { p50: percentile(t, 0.5), p99: percentile(t, 0.99) };
  } finally {
    await client.end();
    await database.drop();
  }
}

/**
 * With BENCH_PROFILE: the exchange's CPU profiles (one per thread: main, verifier, projector), summarized over
 * each given phase's window, the profile's end lined up with the exchange's exit.
 */
function printProfiles(
  dir: string,
  pid: number,
  exitEpochMs: number,
  phases: ({ window: { fromEpochMs: number; untilEpochMs: number } } | null)[],
) {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.`))
    .sort();
  const names = ['(a)', '(x)', '(b)'];
  for (const file of files) {
    phases.forEach((p, i) => {
      if (!p) return;
      log(`CPU profile ${file}, phase ${names[i]}:`);
      log(
        formatSummary(summarizeProfile(join(dir, file), { ...p.window, endEpochMs: exitEpochMs, top: 12 })),
      );
    });
  }
}

type ExchangeRun = {
  store: StoreKind;
  rows: Row[];
  committedOrders: number;
  refunds: number;
  settled: number[];
  fillStatuses: { status: string; n: number }[];
  output: string;
};

/** Every exchange phase on a fresh exchange on `store`. */
async function runExchange(store: StoreKind): Promise<ExchangeRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-bench-orders-'));
  let database: BenchDatabase | null = null;
  let exchange: Child | null = null;
  let reader: StoreReader | null = null;
  let meter: PostgresCpuMeter | null = null;
  let followers: Followers | null = null;
  let ceiling: Child | null = null;
  try {
    if (store === 'postgres') database = await benchDatabase();
    const exchangePort = randomPort();
    const profile = process.env.BENCH_PROFILE
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
      : [];
    // As `npm start` runs it, plus BENCH_NODE_FLAGS (none by default; docs/operations.md on the young generation).
    exchange = await startChild(
      exchangeArgs([...profile, ...NODE_FLAGS], USE_DIST),
      { ...exchangeEnv(dataDir, exchangePort, ADMIN), ...storeEnv(database) },
      exchangePort,
    );
    log('');
    log(
      `[${store}] exchange: ${USE_DIST ? 'built (dist)' : 'sources via tsx'}, ${DEFAULT_VERIFY_WORKERS} verifier worker(s), pid ${exchange.child.pid}${database ? `, database ${database.name}` : ''}; load avg ${loadavg()[0]!.toFixed(2)}`,
    );
    const traders = Array.from({ length: TRADERS }, (_, i) => newTrader(i));
    const setUp = await setUpExchange(exchange.base, traders, {
      adminToken: ADMIN,
      markets: 2 * MARKETS,
      funds: FUNDS,
    });
    const { domain, baseToken } = setUp;
    const marketHashes = setUp.marketHashes.slice(0, MARKETS);
    const crossingMarkets = setUp.marketHashes.slice(MARKETS);
    if (FOLLOW > 0) {
      followers = await follow(exchange.base, traders.slice(0, FOLLOW), marketHashes);
      log(
        `followers: ${FOLLOW} of the traders follow their orders, active orders, trades, fills and the ${MARKETS} books over the realtime WebSocket`,
      );
    }
    reader = storeReader(dataDir, database);
    const counter = storeCounter(store, reader);
    meter = database ? postgresCpu(database) : null;
    const signer = createOrderSigner({
      domain,
      marketHashes,
      baseToken,
      expiry: Math.floor(Date.now() / 1000) + 3600,
      hedge: HEDGE,
    });
    const checked = await crossCheckWithViem(
      domain,
      traders.slice(0, 4).map((t) => signer.sign(t)),
    );

    const signStart = performance.now();
    // Enough for the rates seen on this machine; a faster server gets more, signed on the fly.
    const warmup = signer.requests(traders, s(8_000), 1);
    const single = signer.requests(traders, s(40_000), 1);
    const multi = signer.requests(traders, s(4_000), 10);
    const crossingFlow = createCrossingFlow(signer, traders, crossingMarkets);
    const crossingWarmup = crossingFlow.requests(s(4_000));
    const crossing = crossingFlow.requests(s(40_000));
    const signSeconds = (performance.now() - signStart) / 1000;
    const signed =
      warmup.length + single.length + multi.length * 10 + crossingWarmup.length + crossing.length;
    log(
      `set-up: ${TRADERS} traders (API key, proxy, faucet), ${MARKETS} markets for the one-sided flow and ${MARKETS} for the crossing one; ${fmt(signed)} orders signed natively in ${signSeconds.toFixed(1)} s (${fmt(signed / signSeconds)}/s), ${checked} cross-checked with viem recoverTypedDataAddress`,
    );

    const base = exchange.base;
    const peakSeconds = Math.max(2, s(8));
    const peak = (
      requests: BenchRequest[],
      perRequest: number,
      seconds = peakSeconds,
      more = () => signer.requests(traders, 1, perRequest)[0]!,
    ) => runPeak({ url: base, requests, more, perRequest, connections: CONNECTIONS, seconds });
    const moreCrossing = () => crossingFlow.requests(1)[0]!;

    const rows: Row[] = [];
    const settled: number[] = [];
    /** Runs one measured phase, records its row and waits for the chain to settle its escrows. */
    const server = exchange;
    const phase = async (
      label: string,
      perRequest: number,
      run: () => Promise<LoadResult & { paced?: OpenLoopStats }>,
    ) => {
      const m = await measured(server, run, { counter, postgres: meter });
      rows.push(toRow(store, label, perRequest, m));
      settled.push(await settle(counter));
      return m;
    };
    const pacedSeconds = Math.max(3, s(6));
    /** 1-order requests at exactly `rate` per second (open loop), pre-signed, more signed if needed. */
    const paced = (label: string, rate: number, extra: Record<string, unknown> = {}) => {
      const requests = signer.requests(traders, pacedRequestCount(rate, pacedSeconds), 1, extra);
      return phase(label, 1, () =>
        runPaced({
          url: base,
          requests,
          more: () => signer.requests(traders, 1, 1, extra)[0]!,
          perRequest: 1,
          rate,
          seconds: pacedSeconds,
        }),
      );
    };

    /**
     * The verify-only server fed the same requests right after the exchange's phase (`key` the phase it is
     * the reference of): the pair meets the same load from the rest of the machine. Started (and warmed up)
     * at its first phase; it keeps no state, so the requests the exchange took are good again.
     */
    const reference = async (
      key: string,
      label: string,
      perRequest: number,
      run: (url: string) => Promise<LoadResult>,
    ) => {
      if (!ceiling) {
        const port = randomPort();
        ceiling = await startChild(
          [...NODE_FLAGS, '--import', 'tsx', 'bench/lib/verify-only-server.ts'],
          { PORT: String(port), VERIFY_WORKERS: String(DEFAULT_VERIFY_WORKERS) },
          port,
        );
        await ceilingPeak(ceiling.base, Math.max(1, s(3)), 1, single);
      }
      const url = ceiling.base;
      rows.push(toRow(store, label, perRequest, await measured(ceiling, () => run(url)), key));
    };
    const ceilingPeak = (url: string, seconds: number, perRequest: number, requests: BenchRequest[]) =>
      runPeak({ url, requests, wrap: true, perRequest, connections: CONNECTIONS, seconds });
    const ceilingPaced = (url: string, rate: number) =>
      runPaced({ url, requests: single, wrap: true, perRequest: 1, rate, seconds: pacedSeconds });

    await peak(warmup, 1, Math.max(1, s(3)));
    settled.push(await settle(counter));
    const a = PHASES.has('a') ? await phase('(a) peak, 1-order requests', 1, () => peak(single, 1)) : null;
    if (PHASES.has('e'))
      await reference('a', '(e) ceiling: verify-only Fastify, 1-order', 1, (url) =>
        ceilingPeak(url, peakSeconds, 1, single),
      );
    let x: Measured | null = null;
    if (PHASES.has('x')) {
      // The crossing flow's own warm-up: its markets get a book before it is measured.
      await peak(crossingWarmup, 1, Math.max(1, s(2)), moreCrossing);
      settled.push(await settle(counter));
      x = await phase('(x) peak, crossing flow, 1-order', 1, () =>
        peak(crossing, 1, peakSeconds, moreCrossing),
      );
    }
    // The crossing flow's requests: the same cost to verify, measured rather than assumed.
    if (PHASES.has('ex'))
      await reference('x', '(ex) ceiling: verify-only, crossing flow', 1, (url) =>
        ceilingPeak(url, peakSeconds, 1, crossing),
      );
    if (a && PHASES.has('c')) {
      const halfRate = Math.max(100, Math.round(a.result.ordersPerSecond / 2));
      await paced(`(c) 1-order at ${fmt(halfRate)}/s (half of a)`, halfRate);
    }
    // The floor first: waitForOutcome at a tenth of the target rate, where nothing queues; the floor of
    // (d0) and (d): the same paced requests answered by HTTP and the signature check alone.
    if (PHASES.has('d0')) await paced('(d0) waitForOutcome at 100/s (floor)', 100, { waitForOutcome: true });
    if (PHASES.has('e0'))
      await reference('d0', '(e0) ceiling paced at 100/s', 1, (url) => ceilingPaced(url, 100));
    if (PHASES.has('d')) await paced('(d) waitForOutcome at 1,000/s', 1000, { waitForOutcome: true });
    if (PHASES.has('e1'))
      await reference('d', '(e1) ceiling paced at 1,000/s', 1, (url) => ceilingPaced(url, 1000));
    const b = PHASES.has('b') ? await phase('(b) peak, 10-order requests', 10, () => peak(multi, 10)) : null;
    // What (b)'s 10-order requests can reach when only their signatures are checked.
    if (PHASES.has('e10'))
      await reference('b', '(e10) ceiling: verify-only, 10-order', 10, (url) =>
        ceilingPeak(url, peakSeconds, 10, multi),
      );

    const committedOrders = await counter.orders();
    const refunds = await counter.refunds();
    // Once the chain has mined every escrow, every fill is LOCKED: none left MATCHED, none FAILED.
    const fillStatuses = await counter.fillStatuses();
    if (followers) log(`followers received ${fmt(followers.publications())} publications`);
    if (process.env.BENCH_PROFILE) console.log(`exchange stop ${Date.now()}`);
    await stopChild(exchange);
    if (process.env.BENCH_PROFILE) {
      printProfiles(process.env.BENCH_PROFILE, exchange.child.pid!, Date.now(), [a, x, b]);
    }
    return {
      store,
      rows,
      committedOrders,
      refunds,
      settled,
      fillStatuses,
      output: exchange.output(),
    };
  } finally {
    followers?.close();
    if (ceiling) await stopChild(ceiling);
    await reader?.close();
    await meter?.close();
    if (exchange) {
      await stopChild(exchange);
      if (process.env.BENCH_EXCHANGE_LOG)
        writeFileSync(`${process.env.BENCH_EXCHANGE_LOG}.${store}`, exchange.output());
    }
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------ main

async function main() {
  const started = performance.now();
  const load0 = loadavg();
  log(
    `oddsbook bench:orders - node ${process.version}, ${cpus().length} x ${cpus()[0]?.model.trim()}, load avg ${load0.map((l) => l.toFixed(2)).join(' ')}; stores: ${STORES.join(', ')}`,
  );
  const probeDir = mkdtempSync(join(tmpdir(), 'oddsbook-bench-orders-probe-'));
  try {
    const floor = await sqliteCommitFloor(probeDir);
    log(
      `disk: SQLite WAL commit, synchronous=FULL, in ${tmpdir()}: p50 ${ms(floor.p50)} ms, p99 ${ms(floor.p99)} ms`,
    );
  } finally {
    rmSync(probeDir, { recursive: true, force: true });
  }
  if (STORES.includes('postgres')) {
    const floor = await postgresCommitFloor();
    log(
      `PostgreSQL: one INSERT committed (synchronous_commit on), one round trip: p50 ${ms(floor.p50)} ms, p99 ${ms(floor.p99)} ms`,
    );
  }

  const runs: ExchangeRun[] = [];
  for (const store of STORES) runs.push(await runExchange(store));
  printReport(runs.flatMap((r) => r.rows));
  let ok = true;
  for (const run of runs) {
    const failed = run.rows.filter((r) => r.result.non2xx > 0 || r.result.failedOrders > 0);
    const matched = run.rows.filter((r) => r.fills !== null).every((r) => (r.fills ?? 0) > 0);
    const allLocked = run.fillStatuses.every((s) => s.status === 'LOCKED');
    log(
      `[${run.store}] orders committed by the exchange: ${fmt(run.committedOrders)}, ${fmt(run.refunds)} capital-efficiency refunds; chain settled (mempool empty) after the phases in ${run.settled.map((x) => x.toFixed(1)).join(', ')} s`,
    );
    log(
      `[${run.store}] checks: ${failed.length === 0 ? 'no request failed in any phase' : `FAILURES in ${failed.map((r) => r.phase).join(', ')}`}; ${matched ? 'the exchange matched in every phase (fills > 0)' : 'NO FILLS in some phase'}; ${allLocked ? 'every fill LOCKED once the chain settled' : `FILLS NOT LOCKED: ${run.fillStatuses.map((s) => `${s.status} ${fmt(s.n)}`).join(', ')}`}`,
    );
    if (failed.length > 0 || !matched || !allLocked) {
      ok = false;
      log(`[${run.store}] exchange output (tail):\n${run.output.slice(-3000)}`);
    }
  }
  log(
    `run took ${((performance.now() - started) / 1000).toFixed(0)} s; load avg at the start ${load0[0]!.toFixed(2)}, now ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  if (!ok) process.exitCode = 1;
}

try {
  await main();
} finally {
  await dropLeftDatabases();
}
