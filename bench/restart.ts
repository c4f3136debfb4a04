/**
 * Restart with many resting orders, measured as the whole exchange (issue 35): `npm run bench:restart`.
 *
 * 1. Fill: the real exchange as a child process (`oddsbook serve`, as bench:orders runs it:
 *    bench/lib/exchange-process.ts, RATE_LIMITS=0) on a data dir of its own; BENCH_MARKETS markets and
 *    BENCH_TRADERS funded traders with proxies through the HTTP API, then BENCH_RESTING resting orders through
 *    `POST /orders-v3`, BENCH_PER_REQUEST (10) a request, signed as they are sent: GTC, every one betting
 *    outcome one (ticks 100..399), so none crosses another, spread over the markets; expiries and games a
 *    month away. Then a clean stop (SIGTERM; the exchange writes its checkpoint) and its time.
 * 2. Restarts, BENCH_RUNS (3) times: `oddsbook serve` spawned on the same data dir, timed from the spawn to
 *    the first 200 of `GET /health` and to the first book read (`GET /orderbook-v3/snapshot`) that shows
 *    resting orders; then a clean stop again. The same, once, on a fresh empty data dir: what a start costs
 *    with nothing in it (loading the code, the migrations).
 * 3. One more start with `node --cpu-prof`, its profiles (one per thread) summarized from the spawn to the
 *    first answer: self time by function, file and folder or package (bench/lib/cpu-profile.ts).
 *
 * The fill takes minutes (about 10+ at 1 M on a 2-core machine); with BENCH_DATA_DIR=<dir> the filled data
 * dir is kept there (in <dir>/data, what it holds in <dir>/bench-restart.json) and a later run with the same
 * BENCH_RESTING, BENCH_MARKETS and BENCH_SERVER-independent figures reuses it instead of filling again (a
 * start and stop do not change what rests). Without it, a temporary dir is filled and removed.
 *
 * Stores (issue 36): `--store sqlite|postgres|both` (or BENCH_STORE; default sqlite, as a fill is long): each
 * store is filled and timed in turn. On PostgreSQL the data dir keeps only its lock, secrets and the embedded
 * chain, and everything else is in a database of the bench's own on the local server (bench/lib/bench-store.ts),
 * dropped after the run unless BENCH_DATA_DIR keeps it (its name is then in <dir>/bench-restart-postgres.json
 * beside <dir>/data-postgres). On PostgreSQL the fill (and a replaying start) waits for the idle exchange's
 * periodic checkpoint before its stop: at 1 M on a loaded machine the stop's own checkpoint can take longer
 * than the shutdown's 10 s cap, and without any checkpoint every start replays the whole journal. Each timed start also reports, from the exchange's /metrics, how long it
 * took to read and restore the checkpoint and to replay the journal after it.
 *
 * Knobs: BENCH_RESTING (default 1,000,000), BENCH_MARKETS (100), BENCH_TRADERS (40), BENCH_PER_REQUEST (10),
 * BENCH_CONNECTIONS (concurrent requests while filling, 16), BENCH_RUNS (3), BENCH_DATA_DIR, BENCH_SERVER=dist
 * (the built `packages/server/bin/oddsbook.js`), BENCH_PROFILE=<dir> (where the profiles go; default a
 * temporary dir), BENCH_NODE_FLAGS (the exchange's Node flags). The engine's part alone, as measured before
 * issue 35: bench/restart-engine.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import {
  type BenchDatabase,
  benchDatabase,
  dropLeftDatabases,
  type StoreKind,
  storeEnv,
  storesToRun,
} from './lib/bench-store.js';
import { formatSummary, summarizeProfile } from './lib/cpu-profile.js';
import { scrape } from './lib/exchange-metrics.js';
import { exchangeArgs, exchangeEnv, randomPort, setUpExchange, startChild } from './lib/exchange-process.js';
import { type BenchTrader, createOrderSigner, newTrader } from './lib/order-fixtures.js';

const ADMIN = 'bench-restart-admin-token-0123456789';
const RESTING = Number(process.env.BENCH_RESTING ?? 1_000_000);
const MARKETS = Number(process.env.BENCH_MARKETS ?? 100);
const TRADERS = Number(process.env.BENCH_TRADERS ?? 40);
const PER_REQUEST = Number(process.env.BENCH_PER_REQUEST ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const USE_DIST = process.env.BENCH_SERVER === 'dist';
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const FUNDS = 10n ** 15n; // base units per trader: 10^9 USDC, never the limit
const MONTH_S = 30 * 86_400;
const root = fileURLToPath(new URL('..', import.meta.url));
const STORES = storesToRun('sqlite');

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1));

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const s2 = (ms: number) => (ms / 1000).toFixed(2);
const log = (line: string) => console.log(line);

/** What a filled data dir holds, written beside it so that a later run can reuse it. */
type Filled = {
  resting: number;
  markets: number;
  marketHashes: string[];
  /** How long the fill took, s (orders only, after the set-up). */
  fillSeconds: number;
  filledAt: string;
  /** Whether the last stop on the data dir was clean (exit 0: a checkpoint at the last seq). */
  cleanStop: boolean;
  /** PostgreSQL: the database the fill is in (kept with the data dir). */
  database?: string;
};

/** Waits until the exchange has projected every journaled input (its /metrics), at most `ms`. */
async function projected(base: string, ms = 300_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    const body = await (await fetch(`${base}/metrics`)).text();
    if (Number(/^oddsbook_projector_lag_seq (\S+)$/m.exec(body)?.[1] ?? Number.NaN) === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the projector did not catch up');
}

/**
 * PostgreSQL: waits (at most 6 minutes) until the exchange has stored a checkpoint at or past the journal's
 * end as it is now. At 1 M resting orders on a loaded machine the checkpoint a stop writes can take longer
 * than the shutdown's 10 s cap, and an exchange under steady load takes none; an idle one takes one every 5
 * minutes (trading.ts), which is what this waits for. Returns the seconds waited.
 */
async function storedCheckpoint(database: BenchDatabase): Promise<number> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const started = performance.now();
  try {
    const value = async (sql: string) => Number((await client.query(sql)).rows[0]?.n ?? 0);
    const end = await value('SELECT coalesce(max(seq), 0) AS n FROM journal');
    while ((await value('SELECT coalesce(max(seq), 0) AS n FROM engine_checkpoints')) < end) {
      if (performance.now() - started > 360_000) throw new Error('no checkpoint stored in 6 minutes');
      await new Promise((r) => setTimeout(r, 1000));
    }
    return (performance.now() - started) / 1000;
  } finally {
    await client.end();
  }
}

/** Stops a server with SIGTERM and waits for its exit (no SIGKILL: a clean stop is what is measured). */
async function cleanStop(child: ChildProcess): Promise<{ ms: number; code: number | null }> {
  const started = performance.now();
  if (child.exitCode !== null) return { ms: 0, code: child.exitCode };
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  const code = await exited;
  return { ms: performance.now() - started, code };
}

/** Sends every order, `CONNECTIONS` requests in flight, signing each request as it goes. */
async function fill(base: string, traders: BenchTrader[], marketHashes: string[], signer: Signer) {
  const requests = Math.ceil(RESTING / PER_REQUEST);
  let next = 0;
  let done = 0;
  const started = performance.now();
  let reported = 0;
  const worker = async () => {
    for (;;) {
      const r = next++;
      if (r >= requests) return;
      const trader = traders[r % traders.length]!;
      const count = Math.min(PER_REQUEST, RESTING - r * PER_REQUEST);
      const orders = Array.from({ length: count }, (_slot, k) => {
        const n = r * PER_REQUEST + k;
        const { orderId: _, ...order } = signer.signTerms(trader, {
          // Consecutive requests on different markets; within one, the ticks spread.
          marketHash: marketHashes[(r + k * 7) % marketHashes.length]!,
          isMakerBettingOutcomeOne: true,
          tick: 100 + ((n * 37) % 300),
          totalBetSize: BigInt(1 + (n % 9)) * 1_000_000n,
          timeInForce: 'GTC',
        });
        return order;
      });
      const response = await fetch(`${base}/orders-v3`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-api-key': trader.apiKey },
        body: JSON.stringify({ orders }),
      });
      const text = await response.text();
      if (response.status !== 200 || text.includes('"FAILED"'))
        throw new Error(`fill request ${r}: ${response.status} ${text.slice(0, 300)}`);
      done++;
      const share = Math.floor((10 * done) / requests);
      if (share > reported) {
        reported = share;
        const seconds = (performance.now() - started) / 1000;
        log(
          `  ${fmt(Math.min(RESTING, done * PER_REQUEST))} orders in ${seconds.toFixed(0)} s (${fmt((done * PER_REQUEST) / seconds)}/s), load avg ${loadavg()[0]!.toFixed(2)}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return (performance.now() - started) / 1000;
}

type Signer = ReturnType<typeof createOrderSigner>;

/** Fills a data dir: set-up and orders through the API, then a clean stop. */
async function fillDataDir(dataDir: string, database: BenchDatabase | null): Promise<Filled> {
  mkdirSync(dataDir, { recursive: true });
  const port = randomPort();
  const exchange = await startChild(
    exchangeArgs(NODE_FLAGS, USE_DIST),
    { ...exchangeEnv(dataDir, port, ADMIN), ...storeEnv(database) },
    port,
  );
  try {
    const traders = Array.from({ length: TRADERS }, (_, i) => newTrader(i));
    const inAMonth = Math.floor(Date.now() / 1000) + MONTH_S;
    const { marketHashes, domain, baseToken } = await setUpExchange(exchange.base, traders, {
      adminToken: ADMIN,
      markets: MARKETS,
      funds: FUNDS,
      gameTime: inAMonth + 86_400,
    });
    const signer = createOrderSigner({ domain, marketHashes, baseToken, expiry: inAMonth });
    log(
      `filling ${dataDir}: ${fmt(RESTING)} resting orders, ${PER_REQUEST} a request, ${CONNECTIONS} in flight, ${TRADERS} traders, ${MARKETS} markets`,
    );
    const fillSeconds = await fill(exchange.base, traders, marketHashes, signer);
    const catchingUp = performance.now();
    await projected(exchange.base);
    if (database)
      log(
        `  an idle checkpoint was stored ${(await storedCheckpoint(database)).toFixed(0)} s after the fill`,
      );
    log(
      `filled in ${fillSeconds.toFixed(0)} s (${fmt(RESTING / fillSeconds)} orders/s); the projector caught up ${s2(performance.now() - catchingUp)} s later`,
    );
    const stop = await cleanStop(exchange.child);
    log(`stop (SIGTERM) in ${s2(stop.ms)} s, exit code ${stop.code}`);
    if (stop.code !== 0) log(`  NOT CLEAN: ${exchange.output().slice(-1000)}`);
    return {
      resting: RESTING,
      markets: MARKETS,
      marketHashes,
      fillSeconds,
      filledAt: new Date().toISOString(),
      cleanStop: stop.code === 0,
      ...(database ? { database: database.name } : {}),
    };
  } finally {
    if (exchange.child.exitCode === null) exchange.child.kill('SIGKILL');
  }
}

type Start = {
  /** From the spawn to the first 200 of GET /health, ms. */
  healthMs: number;
  /** From the spawn to the first book read showing resting orders, ms (NaN without a market). */
  bookMs: number;
  /** Epoch ms of the spawn and of the first answer. */
  spawnedAt: number;
  answeredAt: number;
  rssBytes: number;
  stop: { ms: number; code: number | null };
  exitedAt: number;
  /** From the exchange's /metrics: reading and restoring the checkpoint, and replaying the journal after it, ms. */
  recovery: { checkpointMs: number; replayMs: number; replayedCommands: number } | null;
};

/** What this start's recovery took, from the exchange's /metrics. */
async function recoveryOf(base: string): Promise<Start['recovery']> {
  const metrics = await scrape(base);
  const value = (name: string) => metrics.get(name) ?? Number.NaN;
  return {
    checkpointMs: 1000 * value('oddsbook_start_checkpoint_seconds'),
    replayMs: 1000 * value('oddsbook_start_replay_seconds'),
    replayedCommands: value('oddsbook_start_replayed_inputs'),
  };
}

/** Spawns `oddsbook serve` on the data dir, times its first answers, then stops it cleanly. */
async function timedStart(
  dataDir: string,
  database: BenchDatabase | null,
  marketHash: string | null,
  flags: readonly string[] = [],
  /** Wait for the projector to catch up before stopping. */
  settle = false,
): Promise<Start> {
  const port = randomPort();
  const base = `http://127.0.0.1:${port}`;
  const spawnedAt = Date.now();
  const t0 = performance.now();
  const child = spawn(process.execPath, exchangeArgs([...flags, ...NODE_FLAGS], USE_DIST), {
    cwd: root,
    env: { ...process.env, ...exchangeEnv(dataDir, port, ADMIN), ...storeEnv(database) },
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const deadline = t0 + 120_000;
  let healthMs = Number.NaN;
  let answeredAt = 0;
  while (Number.isNaN(healthMs)) {
    try {
      const r = await fetch(`${base}/health`);
      await r.arrayBuffer();
      if (r.status === 200) {
        healthMs = performance.now() - t0;
        answeredAt = Date.now();
        break;
      }
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline || child.exitCode !== null)
      throw new Error(`the exchange did not answer:\n${output.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  let bookMs = Number.NaN;
  while (marketHash && Number.isNaN(bookMs) && performance.now() < deadline) {
    const r = await fetch(`${base}/orderbook-v3/snapshot?marketHash=${marketHash}`);
    const body = (await r.json()) as { data?: { outcomeOne?: unknown[] } };
    if (r.status === 200 && (body.data?.outcomeOne?.length ?? 0) > 0) bookMs = performance.now() - t0;
    else await new Promise((r) => setTimeout(r, 5));
  }
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const rssBytes = 1024 * Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  const recovery = await recoveryOf(base);
  if (settle) {
    await projected(base);
    if (database)
      log(
        `  an idle checkpoint was stored ${(await storedCheckpoint(database)).toFixed(0)} s after the start`,
      );
  }
  const stop = await cleanStop(child);
  process.off('exit', killOnExit);
  // A stop that is not clean (the shutdown's 10 s cap) is reported, not fatal: the next start replays
  // what came after the last checkpoint, and its time shows it.
  return {
    healthMs,
    bookMs,
    spawnedAt,
    answeredAt,
    rssBytes,
    stop,
    exitedAt: Date.now(),
    recovery,
  };
}

/** How a start's stop went: SIGTERM to exit, and whether it was clean (exit 0). */
const stopText = (start: Start) =>
  `stop ${s2(start.stop.ms)} s${start.stop.code === 0 ? '' : ` NOT CLEAN (exit ${start.stop.code})`}`;

/** What recovery took of a start: the checkpoint's read and restore, and the journal's tail. */
const recoveryText = (start: Start) =>
  start.recovery
    ? `checkpoint ${s2(start.recovery.checkpointMs)} s + journal tail ${s2(start.recovery.replayMs)} s (${fmt(start.recovery.replayedCommands)} inputs)`
    : 'recovery figures not found';

type StoreRun = { store: StoreKind; empty: Start; starts: Start[] };

/**
 * One store: the filled data dir (and database) reused or filled, then the empty reference, the timed
 * starts and the profiled one.
 */
async function runStore(store: StoreKind, kept: string | undefined): Promise<StoreRun> {
  const suffix = store === 'postgres' ? '-postgres' : '';
  const benchDir = kept ?? mkdtempSync(join(tmpdir(), 'oddsbook-bench-restart-'));
  const dataDir = join(benchDir, `data${suffix}`);
  const markerFile = join(benchDir, `bench-restart${suffix}.json`);
  const emptyDir = mkdtempSync(join(tmpdir(), 'oddsbook-bench-restart-empty-'));
  const profileDir = process.env.BENCH_PROFILE ?? mkdtempSync(join(tmpdir(), 'oddsbook-bench-restart-prof-'));
  mkdirSync(profileDir, { recursive: true });
  let database: BenchDatabase | null = null;
  let emptyDatabase: BenchDatabase | null = null;
  log('');
  log(`[${store}]`);
  try {
    let filled: Filled;
    if (existsSync(markerFile)) {
      const previous = JSON.parse(readFileSync(markerFile, 'utf8')) as Filled;
      if (previous.resting === RESTING && previous.markets === MARKETS && existsSync(dataDir))
        filled = previous;
      else
        throw new Error(
          `${benchDir} holds another fill (${previous.resting} orders on ${previous.markets} markets)`,
        );
      if (store === 'postgres') database = await benchDatabase({ existing: previous.database, keep: true });
      log(
        `reusing ${dataDir}${database ? ` and database ${database.name}` : ''}: ${fmt(filled.resting)} resting orders on ${filled.markets} markets, filled ${filled.filledAt} in ${filled.fillSeconds.toFixed(0)} s`,
      );
    } else {
      if (existsSync(dataDir)) throw new Error(`${dataDir} exists without ${markerFile}: not a bench fill`);
      if (store === 'postgres') database = await benchDatabase({ keep: kept !== undefined });
      filled = await fillDataDir(dataDir, database);
      writeFileSync(markerFile, `${JSON.stringify(filled, null, 2)}\n`);
    }
    if (!filled.cleanStop) {
      // A stop that was not clean (the exchange's shutdown has a 10 s cap) leaves the journal past the last
      // checkpoint: one start replays it, and its clean stop writes the checkpoint the timed starts begin from.
      const settling = await timedStart(dataDir, database, filled.marketHashes[0]!, [], true);
      log(
        `the last stop was not clean: a start replaying the journal past the last checkpoint answered in ${s2(settling.healthMs)} s; its stop ${s2(settling.stop.ms)} s, exit code ${settling.stop.code}`,
      );
      filled = { ...filled, cleanStop: settling.stop.code === 0 };
      writeFileSync(markerFile, `${JSON.stringify(filled, null, 2)}\n`);
      // Still not clean (on a loaded machine PostgreSQL may take longer than the shutdown's cap to store a
      // 1 M checkpoint): the timed starts replay the journal after the last checkpoint stored, and say so.
      if (!filled.cleanStop)
        log('  no clean stop after the replaying start either: each start below replays the journal tail');
    }
    const market = filled.marketHashes[0]!;

    log('');
    log(
      `start to first answer (spawn of oddsbook serve to GET /health 200; to a book read showing resting orders):`,
    );
    if (store === 'postgres') emptyDatabase = await benchDatabase();
    const empty = await timedStart(emptyDir, emptyDatabase, null);
    log(
      `  empty data dir (reference):    health ${s2(empty.healthMs)} s; RSS ${fmt(empty.rssBytes / 2 ** 20)} MB; ${stopText(empty)}`,
    );
    const starts: Start[] = [];
    for (let run = 1; run <= RUNS; run++) {
      const start = await timedStart(dataDir, database, market);
      starts.push(start);
      log(
        `  ${fmt(RESTING)} resting, run ${run}:   health ${s2(start.healthMs)} s, book ${s2(start.bookMs)} s (${recoveryText(start)}); RSS ${fmt(start.rssBytes / 2 ** 20)} MB; ${stopText(start)}; load avg ${loadavg()[0]!.toFixed(2)}`,
      );
    }

    // One more start with a CPU profile (a profiled start is slower: its time is not one of the runs').
    const before = new Set(readdirSync(profileDir));
    const profiled = await timedStart(dataDir, database, market, [
      '--cpu-prof',
      `--cpu-prof-dir=${profileDir}`,
    ]);
    const files = readdirSync(profileDir)
      .filter((f) => f.endsWith('.cpuprofile') && !before.has(f))
      .sort();
    log('');
    log(
      `profiled start (node --cpu-prof): health ${s2(profiled.healthMs)} s (${recoveryText(profiled)}), ${stopText(profiled)}; ${files.length} profile(s) in ${profileDir}, from the spawn to the first answer:`,
    );
    // The main thread in full; the others (module loader hooks, verifier, projector, checkpointer) in a line.
    for (const file of files) {
      const thread = Number(file.split('.')[4]);
      const summary = summarizeProfile(join(profileDir, file), {
        endEpochMs: profiled.exitedAt,
        fromEpochMs: profiled.spawnedAt,
        untilEpochMs: profiled.answeredAt,
        top: thread === 0 ? 15 : 4,
      });
      if (thread === 0) {
        log(`main thread (${file}):`);
        log(formatSummary(summary));
        continue;
      }
      log(
        `thread ${thread} (${file}): ${(summary.totalMs - summary.idleMs).toFixed(0)} ms busy of ${summary.totalMs.toFixed(0)}; ${summary.functions
          .filter((f) => f.name !== '(idle)')
          .map((f) => `${f.name} ${f.ms.toFixed(0)} ms`)
          .join(', ')}`,
      );
    }
    return { store, empty, starts };
  } finally {
    if (!kept) {
      rmSync(benchDir, { recursive: true, force: true });
      await database?.drop();
    }
    await emptyDatabase?.drop();
    rmSync(emptyDir, { recursive: true, force: true });
    if (!process.env.BENCH_PROFILE) rmSync(profileDir, { recursive: true, force: true });
  }
}

async function main() {
  const started = performance.now();
  log(
    `oddsbook bench:restart - node ${process.version}, ${cpus().length} x ${cpus()[0]?.model.trim()}, load avg ${loadavg()
      .map((l) => l.toFixed(2))
      .join(
        ' ',
      )}; exchange ${USE_DIST ? 'built (dist)' : 'from sources via tsx'}; stores: ${STORES.join(', ')}`,
  );
  const runs: StoreRun[] = [];
  for (const store of STORES) runs.push(await runStore(store, process.env.BENCH_DATA_DIR));
  log('');
  for (const { store, empty, starts } of runs) {
    const health = starts.map((s) => s.healthMs).sort((a, b) => a - b);
    const median = health.length > 0 ? s2(health[Math.floor(health.length / 2)]!) : '-';
    log(
      `[${store}] restart: ${fmt(RESTING)} resting orders, start to first answer ${health.map((h) => s2(h)).join(', ')} s (median ${median}; empty data dir ${s2(empty.healthMs)} s); ${starts.map(recoveryText).join('; ')}; target <= 5 s`,
    );
  }
  log(
    `run took ${((performance.now() - started) / 1000).toFixed(0)} s; load avg now ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

try {
  await main();
} finally {
  await dropLeftDatabases();
}
