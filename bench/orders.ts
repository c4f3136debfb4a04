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
 * signature check and this generator alone take, against (d0) and (d)). They run in the order a, x, c, d0, d,
 * b, e, ex, e10, e0, e1; after the table, each exchange phase is set against its ceiling phase (CPU efficiency =
 * the ceiling's CPU µs per order / the exchange's; throughput = orders/s over the ceiling's). Between two, the
 * bench waits until the
 * embedded chain has mined the escrows of the last phase, so that a phase does not pay for the previous
 * one's backlog (the settle times are printed). Every phase checks that no request failed (non-2xx 0, no FAILED order) and
 * counts the fills the exchange committed (read from its database).
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
import { DEFAULT_VERIFY_WORKERS } from '../packages/server/src/exchange/exchange.js';
import { FILLS } from '../packages/server/src/store/sqlite/sqlite-trading-queries.js';
import { toShownFill } from '../packages/server/src/store/trading-rows.js';
import { formatSummary, summarizeProfile } from './lib/cpu-profile.js';
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
import { LATE_MS, type OpenLoopStats } from './lib/open-loop.js';
import {
  type BenchRequest,
  createCrossingFlow,
  createOrderSigner,
  crossCheckWithViem,
  newTrader,
} from './lib/order-fixtures.js';

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

// Exit (running the 'exit' handlers that stop the servers) on Ctrl-C or `timeout`, too.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1));

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');
const log = (line: string) => console.log(line);

// ------------------------------------------------------------------ phases

type Row = {
  phase: string;
  result: LoadResult;
  perRequest: number;
  fills: number | null;
  /** Makers filled during the phase (one per match), exchange phases only. */
  makerFills: number | null;
  serverCpu: number;
  /** Bytes written to storage by the server per order (SQLite WAL and checkpoints). */
  bytesPerOrder: number;
  /** Open-loop (paced) phases only: what the generator saw besides the latency from the schedule. */
  paced?: OpenLoopStats;
  /** Exchange phases only: the sequencer's group commits during the phase (from its /metrics). */
  commits?: GroupCommits;
  /** The server's threads' CPU, µs per order, most first. */
  threads: { tid: number; main: boolean; microsPerOrder: number }[];
};

function dbCounter(dataDir: string) {
  const db = new Database(join(dataDir, 'oddsbook.sqlite'), { readonly: true, fileMustExist: true });
  const fills = db.prepare('SELECT count(*) FROM fills').pluck();
  const orders = db.prepare('SELECT count(*) FROM orders').pluck();
  const refunds = db.prepare('SELECT count(*) FROM ce_refunds').pluck();
  const mempool = db.prepare('SELECT count(*) FROM chain_transactions WHERE block_number IS NULL').pluck();
  // Fills whose escrow has not landed yet (records/shown.ts: LOCKED once the account's lock passes the seq).
  const unlocked = db
    .prepare(
      `SELECT count(*) FROM fills f LEFT JOIN escrow_locks l ON l.account = f.account
        WHERE f.status = 'MATCHED' AND (l.through_seq IS NULL OR f.seq > l.through_seq)`,
    )
    .pluck();
  const makerFills = db.prepare('SELECT count(*) FROM fills WHERE is_maker = 1').pluck();
  // Fills as they show (records/shown.ts: LOCKED once the account's escrows through the fill's seq landed).
  const shownFills = db.prepare(`SELECT * FROM ${FILLS}`);
  return {
    fills: () => fills.get() as number,
    /** Makers filled: one per match (a fill has a row for each side). */
    makerFills: () => makerFills.get() as number,
    fillStatuses: () => {
      const counts = new Map<string, number>();
      for (const row of shownFills.iterate() as Iterable<Record<string, unknown>>) {
        const { status } = toShownFill(row);
        counts.set(status, (counts.get(status) ?? 0) + 1);
      }
      return [...counts].sort().map(([status, n]) => ({ status, n }));
    },
    orders: () => orders.get() as number,
    refunds: () => refunds.get() as number,
    mempool: () => mempool.get() as number,
    unlocked: () => unlocked.get() as number,
    close: () => db.close(),
  };
}

/**
 * Waits until the embedded chain has mined every escrow of the previous phase and the exchange has applied
 * the receipts (every fill LOCKED), so that each phase starts from a steady state instead of a backlog.
 * Returns the seconds (at most a minute).
 */
async function settle(counter: ReturnType<typeof dbCounter>): Promise<number> {
  const started = performance.now();
  while ((counter.mempool() > 0 || counter.unlocked() > 0) && performance.now() - started < 60_000) {
    await new Promise((r) => setTimeout(r, 100));
  }
  return (performance.now() - started) / 1000;
}

type GroupCommits = { batches: number; inputs: number; seconds: number };

/** The sequencer's running totals: batches, inputs in them, and seconds from queue to durable. */
async function groupCommits(base: string): Promise<GroupCommits> {
  const body = await (await fetch(`${base}/metrics`)).text();
  const value = (name: string) => Number(body.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1] ?? Number.NaN);
  return {
    batches: value('oddsbook_sequencer_batch_inputs_count'),
    inputs: value('oddsbook_sequencer_batch_inputs_sum'),
    seconds: value('oddsbook_sequencer_commit_seconds_sum'),
  };
}

async function measured<R extends LoadResult>(
  server: Child,
  counter: ReturnType<typeof dbCounter> | null,
  run: () => Promise<R>,
) {
  const t0 = Date.now();
  const fillsBefore = counter?.fills() ?? 0;
  const makerFillsBefore = counter?.makerFills() ?? 0;
  const cpuBefore = server.cpuSeconds();
  const bytesBefore = server.writeBytes();
  const threadsBefore = server.threadCpuSeconds();
  const result = await run();
  const threadsAfter = server.threadCpuSeconds();
  const serverCpu = (server.cpuSeconds() - cpuBefore) / result.seconds;
  const bytesPerOrder = (server.writeBytes() - bytesBefore) / Math.max(1, result.orders);
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
    fills: counter ? counter.fills() - fillsBefore : null,
    makerFills: counter ? counter.makerFills() - makerFillsBefore : null,
  };
}

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

// ------------------------------------------------------------------ main

async function main() {
  const started = performance.now();
  const load0 = loadavg();
  log(
    `oddsbook bench:orders - node ${process.version}, ${cpus().length} x ${cpus()[0]?.model.trim()}, load avg ${load0.map((l) => l.toFixed(2)).join(' ')}`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-bench-orders-'));
  const floor = await sqliteCommitFloor(dataDir);
  log(
    `disk: SQLite WAL commit, synchronous=FULL, in ${tmpdir()}: p50 ${ms(floor.p50)} ms, p99 ${ms(floor.p99)} ms`,
  );

  const exchangePort = randomPort();
  const profile = process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  // As `npm start` runs it, plus BENCH_NODE_FLAGS (none by default; docs/operations.md on the young generation).
  const exchange = await startChild(
    exchangeArgs([...profile, ...NODE_FLAGS], USE_DIST),
    exchangeEnv(dataDir, exchangePort, ADMIN),
    exchangePort,
  );
  log(
    `exchange: ${USE_DIST ? 'built (dist)' : 'sources via tsx'}, ${DEFAULT_VERIFY_WORKERS} verifier worker(s), pid ${exchange.child.pid}`,
  );
  const rows: Row[] = [];
  /** A measured phase's row; a paced one keeps the open-loop figures too. */
  const record = (
    phase: string,
    perRequest: number,
    m: Awaited<ReturnType<typeof measured<LoadResult & { paced?: OpenLoopStats }>>>,
    commits?: GroupCommits,
  ) =>
    rows.push({
      phase,
      perRequest,
      ...m,
      ...(m.result.paced ? { paced: m.result.paced } : {}),
      ...(commits ? { commits } : {}),
    });
  let counter: ReturnType<typeof dbCounter> | null = null;
  let followers: Followers | null = null;
  try {
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
    counter = dbCounter(dataDir);
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

    const s = (n: number) => Math.round(n * SCALE);
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

    const peakSeconds = Math.max(2, s(8));
    const peak = (
      requests: BenchRequest[],
      perRequest: number,
      seconds = peakSeconds,
      more = () => signer.requests(traders, 1, perRequest)[0]!,
    ) =>
      runPeak({
        url: exchange.base,
        requests,
        more,
        perRequest,
        connections: CONNECTIONS,
        seconds,
      });
    const moreCrossing = () => crossingFlow.requests(1)[0]!;

    const settled: number[] = [];
    /** Runs one measured phase, records its row and waits for the chain to settle its escrows. */
    const db = counter;
    const phase = async (
      label: string,
      perRequest: number,
      run: () => Promise<LoadResult & { paced?: OpenLoopStats }>,
    ) => {
      const before = await groupCommits(exchange.base);
      const m = await measured(exchange, db, run);
      const after = await groupCommits(exchange.base);
      record(label, perRequest, m, {
        batches: after.batches - before.batches,
        inputs: after.inputs - before.inputs,
        seconds: after.seconds - before.seconds,
      });
      settled.push(await settle(db));
      return m;
    };
    const pacedSeconds = Math.max(3, s(6));
    /** 1-order requests at exactly `rate` per second (open loop), pre-signed, more signed if needed. */
    const paced = (label: string, rate: number, extra: Record<string, unknown> = {}) => {
      const requests = signer.requests(traders, pacedRequestCount(rate, pacedSeconds), 1, extra);
      return phase(label, 1, () =>
        runPaced({
          url: exchange.base,
          requests,
          more: () => signer.requests(traders, 1, 1, extra)[0]!,
          perRequest: 1,
          rate,
          seconds: pacedSeconds,
        }),
      );
    };

    await peak(warmup, 1, Math.max(1, s(3)));
    settled.push(await settle(counter));
    const a = PHASES.has('a') ? await phase('(a) peak, 1-order requests', 1, () => peak(single, 1)) : null;
    let x: Awaited<ReturnType<typeof phase>> | null = null;
    if (PHASES.has('x')) {
      // The crossing flow's own warm-up: its markets get a book before it is measured.
      await peak(crossingWarmup, 1, Math.max(1, s(2)), moreCrossing);
      settled.push(await settle(counter));
      x = await phase('(x) peak, crossing flow, 1-order', 1, () =>
        peak(crossing, 1, peakSeconds, moreCrossing),
      );
    }
    if (a && PHASES.has('c')) {
      const halfRate = Math.max(100, Math.round(a.result.ordersPerSecond / 2));
      await paced(`(c) 1-order at ${fmt(halfRate)}/s (half of a)`, halfRate);
    }
    // The floor first: waitForOutcome at a tenth of the target rate, where nothing queues.
    if (PHASES.has('d0')) await paced('(d0) waitForOutcome at 100/s (floor)', 100, { waitForOutcome: true });
    const d = PHASES.has('d')
      ? await paced('(d) waitForOutcome at 1,000/s', 1000, { waitForOutcome: true })
      : null;
    const b = PHASES.has('b') ? await phase('(b) peak, 10-order requests', 10, () => peak(multi, 10)) : null;

    const committedOrders = counter.orders();
    const refunds = counter.refunds();
    // Once the chain has mined every escrow, every fill is LOCKED: none left MATCHED, none FAILED.
    const fillStatuses = counter.fillStatuses();
    counter.close();
    counter = null;
    if (followers) {
      log(`followers received ${fmt(followers.publications())} publications`);
      followers.close();
      followers = null;
    }
    if (process.env.BENCH_PROFILE) console.log(`exchange stop ${Date.now()}`);
    await stopChild(exchange);
    if (process.env.BENCH_PROFILE) {
      printProfiles(process.env.BENCH_PROFILE, exchange.child.pid!, Date.now(), [a, x, b]);
    }

    // The ceiling, on the same machine right after: same requests (it keeps no state, so reuse is fine).
    let ceilingRate: number | null = null;
    /** The ceiling's rows by the exchange phase they are the reference of. */
    const references = new Map<string, Row>();
    if (['e', 'ex', 'e10', 'e0', 'e1'].some((p) => PHASES.has(p))) {
      const ceilingPort = randomPort();
      const ceiling = await startChild(
        [...NODE_FLAGS, '--import', 'tsx', 'bench/lib/verify-only-server.ts'],
        { PORT: String(ceilingPort), VERIFY_WORKERS: String(DEFAULT_VERIFY_WORKERS) },
        ceilingPort,
      );
      try {
        const ceilingPeak = (seconds: number, perRequest = 1, requests = perRequest === 1 ? single : multi) =>
          runPeak({
            url: ceiling.base,
            requests,
            wrap: true,
            perRequest,
            connections: CONNECTIONS,
            seconds,
          });
        await ceilingPeak(Math.max(1, s(3)));
        if (PHASES.has('e')) {
          const e = await measured(ceiling, null, () => ceilingPeak(peakSeconds));
          record('(e) ceiling: verify-only Fastify, 1-order', 1, e);
          references.set('a', rows[rows.length - 1]!);
          ceilingRate = e.result.ordersPerSecond;
        }
        // The crossing flow's requests: the same cost to verify, measured rather than assumed.
        if (PHASES.has('ex')) {
          const ex = await measured(ceiling, null, () => ceilingPeak(peakSeconds, 1, crossing));
          record('(ex) ceiling: verify-only, crossing flow', 1, ex);
          references.set('x', rows[rows.length - 1]!);
        }
        // What (b)'s 10-order requests can reach when only their signatures are checked.
        if (PHASES.has('e10')) {
          const e10 = await measured(ceiling, null, () => ceilingPeak(peakSeconds, 10));
          record('(e10) ceiling: verify-only, 10-order', 10, e10);
          references.set('b', rows[rows.length - 1]!);
        }
        // The floor of (d0) and (d): the same paced requests answered by HTTP and the signature check alone.
        for (const [phase, rate] of [
          ['e0', 100],
          ['e1', 1000],
        ] as const) {
          if (!PHASES.has(phase)) continue;
          const m = await measured(ceiling, null, () =>
            runPaced({
              url: ceiling.base,
              requests: single,
              wrap: true,
              perRequest: 1,
              rate,
              seconds: pacedSeconds,
            }),
          );
          record(`(${phase}) ceiling paced at ${fmt(rate)}/s`, 1, m);
          references.set(phase === 'e0' ? 'd0' : 'd', rows[rows.length - 1]!);
        }
      } finally {
        await stopChild(ceiling);
      }
    }

    // ---------------------------------------------------------------- report
    log('');
    const header = [
      'phase'.padEnd(44),
      'orders/s'.padStart(9),
      'req/s'.padStart(8),
      'p50 ms'.padStart(7),
      'p99 ms'.padStart(7),
      'max ms'.padStart(8),
      'requests'.padStart(9),
      'non-2xx'.padStart(8),
      'FAILED'.padStart(7),
      'fills'.padStart(7),
      'srv CPU'.padStart(8),
      'CPU µs/order'.padStart(13),
      'disk KB/order'.padStart(14),
    ].join(' ');
    log(header);
    log('-'.repeat(header.length));
    for (const r of [...rows].sort((x, y) => x.phase.localeCompare(y.phase))) {
      const l = r.result.latencies;
      log(
        [
          r.phase.padEnd(44),
          fmt(r.result.ordersPerSecond).padStart(9),
          fmt(r.result.requestsPerSecond).padStart(8),
          ms(percentile(l, 0.5)).padStart(7),
          ms(percentile(l, 0.99)).padStart(7),
          ms(l[l.length - 1] ?? Number.NaN).padStart(8),
          fmt(r.result.requests).padStart(9),
          String(r.result.non2xx).padStart(8),
          String(r.result.failedOrders).padStart(7),
          (r.fills === null ? '-' : fmt(r.fills)).padStart(7),
          `${Math.round(r.serverCpu * 100)}%`.padStart(8),
          fmt((r.serverCpu * 1e6) / r.result.ordersPerSecond).padStart(13),
          (r.bytesPerOrder / 1024).toFixed(1).padStart(14),
        ].join(' '),
      );
      if (r.result.firstError) log(`    first error: ${r.result.firstError}`);
    }
    log('');
    // Issue 35's targets, each exchange phase against the verify-only server's phase of the same run.
    log(
      'against the verify-only server in the same run (issue 35: CPU efficiency >= 0.67 and throughput >= 0.7 for a and x; d p50 <= 2 ms, p99 <= 10 ms)',
    );
    const exchangeRows = new Map(rows.map((r) => [/^\((\w+)\)/.exec(r.phase)?.[1] ?? '', r]));
    const cpuPerOrder = (r: Row) => (r.serverCpu * 1e6) / r.result.ordersPerSecond;
    for (const key of ['a', 'x', 'b']) {
      const r = exchangeRows.get(key);
      const ref = references.get(key);
      if (!r || !ref) continue;
      const takers = key === 'x' ? r.result.orders / 3 : 0;
      log(
        `  ${r.phase.padEnd(42)} CPU µs/order ${fmt(cpuPerOrder(r))} vs ${fmt(cpuPerOrder(ref))}: efficiency ${(cpuPerOrder(ref) / cpuPerOrder(r)).toFixed(2)}; orders/s ${fmt(r.result.ordersPerSecond)} vs ${fmt(ref.result.ordersPerSecond)}: throughput ${(r.result.ordersPerSecond / ref.result.ordersPerSecond).toFixed(2)}${takers > 0 && r.makerFills !== null ? `; ${(r.makerFills / takers).toFixed(2)} makers filled per taker` : ''}`,
      );
    }
    for (const key of ['d0', 'd']) {
      const r = exchangeRows.get(key);
      const ref = references.get(key);
      if (!r || !ref) continue;
      const l = r.result.latencies;
      const lr = ref.result.latencies;
      log(
        `  ${r.phase.padEnd(42)} p50 ${ms(percentile(l, 0.5))} / p99 ${ms(percentile(l, 0.99))} ms vs ${ms(percentile(lr, 0.5))} / ${ms(percentile(lr, 0.99))} ms`,
      );
    }
    log('');
    log(
      'paced phases, open loop: latency above is from the scheduled send; here from the actual send, how late sends went out, and the generator',
    );
    for (const r of [...rows].sort((x, y) => x.phase.localeCompare(y.phase))) {
      const p = r.paced;
      if (!p) continue;
      const l = p.latenciesFromSend;
      log(
        `  ${r.phase.padEnd(42)} from send p50 ${ms(percentile(l, 0.5))} p99 ${ms(percentile(l, 0.99))} max ${ms(l[l.length - 1] ?? Number.NaN)} ms; send delay p99 ${ms(percentile(p.sendDelays, 0.99))} max ${ms(p.sendDelays[p.sendDelays.length - 1] ?? Number.NaN)} ms, ${p.late} late (> ${LATE_MS} ms), ${p.waitedForConnection} waited for a connection; ${p.connections} connections, ${p.maxInFlight} max in flight; generator CPU ${fmt(p.generatorCpuMicrosPerRequest)} µs/request; answered ${p.wallSeconds.toFixed(1)} s after the first send`,
      );
    }
    log('');
    log(
      "CPU µs per order by thread (/proc/<pid>/task; main = the event loop's; the others by id: verifier, projector, WAL checkpointers, libuv's pool, V8's GC helpers)",
    );
    for (const r of [...rows].sort((x, y) => x.phase.localeCompare(y.phase))) {
      if (r.result.requestsPerSecond < 500) continue; // paced phases at low rates: idle threads dominate
      const t = r.threads.slice(0, 8).map((x) => `${x.main ? 'main' : x.tid} ${fmt(x.microsPerOrder)}`);
      log(`  ${r.phase.padEnd(42)} ${t.join(', ')}`);
    }
    log('');
    log(
      "the exchange's group commits (its /metrics): batches, inputs per batch, mean time from queue to durable",
    );
    for (const r of [...rows].sort((x, y) => x.phase.localeCompare(y.phase))) {
      const c = r.commits;
      if (!c) continue;
      log(
        `  ${r.phase.padEnd(42)} ${fmt(c.batches)} batches, ${(c.inputs / Math.max(1, c.batches)).toFixed(1)} inputs each, ${ms((1000 * c.seconds) / Math.max(1, c.batches))} ms`,
      );
    }
    log('');
    log(
      `peak phases: ${CONNECTIONS} keep-alive connections, closed loop; paced phases: open loop, requests at exactly even times on a pre-opened pool of keep-alive connections, latency from the scheduled send (bench/lib/open-loop.ts). srv CPU = server process CPU time / wall time (200% = both cores); CPU µs/order = server CPU time per order (all its threads), the figure least disturbed by other load on the machine; disk KB/order = bytes the server wrote to storage per order.`,
    );
    log(
      `orders committed by the exchange: ${fmt(committedOrders)}, ${fmt(refunds)} capital-efficiency refunds; chain settled (mempool empty) after the phases in ${settled.map((x) => x.toFixed(1)).join(', ')} s; load avg now ${loadavg()[0]!.toFixed(2)}`,
    );

    const failed = rows.filter((r) => r.result.non2xx > 0 || r.result.failedOrders > 0);
    const matched = rows.filter((r) => r.fills !== null).every((r) => (r.fills ?? 0) > 0);
    const allLocked = fillStatuses.every((s) => s.status === 'LOCKED');
    log(
      `checks: ${failed.length === 0 ? 'no request failed in any phase' : `FAILURES in ${failed.map((r) => r.phase).join(', ')}`}; ${matched ? 'the exchange matched in every phase (fills > 0)' : 'NO FILLS in some phase'}; ${allLocked ? 'every fill LOCKED once the chain settled' : `FILLS NOT LOCKED: ${fillStatuses.map((s) => `${s.status} ${fmt(s.n)}`).join(', ')}`}`,
    );
    log(`run took ${((performance.now() - started) / 1000).toFixed(0)} s`);
    log('');
    const summary: string[] = [];
    if (a) {
      const ceiling = ceilingRate
        ? ` (${((a.result.ordersPerSecond / ceilingRate) * 100).toFixed(0)}% of verify-only ceiling ${fmt(ceilingRate)}/s)`
        : '';
      summary.push(`1-order ${fmt(a.result.ordersPerSecond)}/s${ceiling}`);
    }
    if (x) summary.push(`crossing 1-order ${fmt(x.result.ordersPerSecond)}/s`);
    if (b) summary.push(`10-order ${fmt(b.result.ordersPerSecond)} orders/s`);
    if (d) {
      const l = d.result.latencies;
      summary.push(
        `waitForOutcome p50 ${ms(percentile(l, 0.5))} ms p99 ${ms(percentile(l, 0.99))} ms at 1000/s`,
      );
    }
    log(`orders: ${summary.join(', ')}`);
    if (failed.length > 0 || !matched || !allLocked) {
      process.exitCode = 1;
      log(`exchange output (tail):\n${exchange.output().slice(-3000)}`);
    }
  } finally {
    followers?.close();
    counter?.close();
    await stopChild(exchange);
    if (process.env.BENCH_EXCHANGE_LOG) writeFileSync(process.env.BENCH_EXCHANGE_LOG, exchange.output());
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
