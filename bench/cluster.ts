/**
 * The cluster of issue 37 on this machine's PostgreSQL and NATS: `npm run bench:cluster`
 * (node --import tsx bench/cluster.ts [--split] [--seconds 20] [--warmup 5] [--writers 32] [--kills 10]).
 *
 * Phases, one after the other, each on a fresh PostgreSQL database (bench/lib/bench-store.ts, dropped after):
 * - (ref) the single process, `serve --role all` on PostgreSQL, under the load below: the same-run
 *   reference (the machine has two shared cores: compare ratios, not absolute figures);
 * - a cluster (`CLUSTER` of its own on the local NATS, its streams deleted after), started by the local-cluster
 *   launcher (`cluster/local-cluster.ts`, as `oddsbook cluster` does): two sequencers (a leader, a hot
 *   standby) and two `serve --role api`. The sequencers carry the projector and the chain
 *   (`--role sequencer,projector,chain`, the carried topology), or with `--split` they are pure
 *   (`--role sequencer`) beside one `--role projector,chain` node (the split topology, whose leader's CPU per
 *   order is the pure sequencer's); then
 *   (1 api) the writers post to the first API node only (the second follows the journal, idle), and
 *   (2 api) to both, the writers split evenly;
 * - (failover) writers on both API nodes while the leading sequencer (only it, in either topology) is SIGKILLed `--kills` times, the
 *   killed one started again as a standby each time (as its supervisor would). Per kill: the time from the
 *   SIGKILL to the first acknowledged order sent after it (probes: a fresh order every 20 ms from the kill
 *   on, alternating API nodes, as a new client's would be), to the standby's log saying it leads, and to the
 *   answer of the last order that was in flight at the kill (those wait for the API node's attempt timeout
 *   of the dead leader, then are retried on the new one).
 *
 * The load: `--writers` closed-loop HTTP writers (bench/lib/cluster-writers.ts) posting 1-order requests of
 * the crossing flow (bench/lib/order-fixtures.ts: two of three are GTC makers that rest, one an IOC taker that
 * fills 1-3 of them), pre-signed. Each measured phase first runs `--warmup` seconds; its figures are the
 * answers of the next `--seconds`, and the CPU each process spent in that window (/proc/<pid>/stat, and per
 * thread /proc/<pid>/task), with PostgreSQL's backends for the bench's database apart. From those: the
 * CPU per order of each node, and the capacity ratio of issue 37 (the sequencer must handle at least 10x what
 * one API node admits): the API node's CPU per admitted order over the leader's CPU per order.
 *
 * At the end every acknowledged order of the cluster's phases is looked up in the projections (`orders`),
 * and counted in the journal, so that a lost or doubled order shows. BENCH_SERVER=dist runs the built
 * `packages/server/dist` (npm run build first); NATS_URL (default nats://127.0.0.1:4222). Every node runs
 * at LOG_LEVEL=info, which the launcher reads their states from (Fastify then logs two lines per request on
 * the API nodes and the single process alike). BENCH_CLUSTER_LOGS=<dir> keeps the cluster nodes' logs there.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { clusterNames } from '../packages/server/src/cluster/cluster-names.js';
import type * as LocalClusterModule from '../packages/server/src/cluster/local-cluster.js';
import {
  type BenchDatabase,
  benchDatabase,
  dropLeftDatabases,
  type PostgresCpuMeter,
  postgresCpu,
} from './lib/bench-store.js';
import {
  type Answer,
  type IdentifiedRequest,
  postOrder,
  startWriters,
  windowFigures,
} from './lib/cluster-writers.js';
import { type GroupCommits, groupCommits, scrape } from './lib/exchange-metrics.js';
import {
  exchangeArgs,
  exchangeEnv,
  procCpuSeconds,
  procThreadCpuSeconds,
  randomPort,
  setUpExchange,
  startChild,
  stopChild,
} from './lib/exchange-process.js';
import { type BenchTrader, createCrossingFlow, createOrderSigner, newTrader } from './lib/order-fixtures.js';

function option(name: string, fallback: number): number {
  const args = process.argv.slice(2);
  const at = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (at < 0) return fallback;
  const raw = args[at]!.includes('=') ? args[at]!.split('=')[1] : args[at + 1];
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number, got ${raw}`);
  return n;
}

const SECONDS = option('seconds', 20);
const WARMUP = option('warmup', 5);
const WRITERS = option('writers', 32);
const KILLS = option('kills', 10);
/** The split topology: pure sequencers beside a projector,chain node (else the sequencers carry both). */
const SPLIT = process.argv.slice(2).includes('--split');
const SEQUENCER_ROLE = SPLIT ? 'sequencer' : 'sequencer,projector,chain';
/** Seconds of steady writing between a failover and the next kill. */
const BETWEEN_KILLS = option('between-kills', 2);
const TRADERS = 32;
const MARKETS = 8;
const FUNDS = 10n ** 15n;
const ADMIN = `bench-cluster-admin-${randomBytes(12).toString('hex')}`;
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const DIST = process.env.BENCH_SERVER === 'dist';
/** Every node's settings besides what the launcher sets: no rate limits or demo data, one address's many connections. */
const NODE_ENV = { RATE_LIMITS: '0', MAX_CONNECTIONS_PER_ADDRESS: '10000', DEMO: '0', LOG_LEVEL: 'info' };

// The launcher runs the CLI the way it is itself loaded: from the sources here, or from dist.
const { LocalCluster } = (await import(
  DIST
    ? '../packages/server/dist/cluster/local-cluster.js'
    : '../packages/server/src/cluster/local-cluster.js'
)) as typeof LocalClusterModule;
type LocalCluster = InstanceType<typeof LocalCluster>;

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1));

const log = (line: string) => console.log(line);
const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const s3 = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : '-');
const sleep = (msecs: number) => new Promise((r) => setTimeout(r, msecs));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/** Waits until `check` gives a value, polling every `everyMs`; throws after `timeoutMs`. */
async function waitFor<T>(
  what: string,
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 60_000,
  everyMs = 50,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

// ------------------------------------------------------------------ CPU of the processes over a window

/** A process whose CPU a phase measures: a node by what it is in that phase (leader, standby, api-1, ...). */
type Measured = { name: string; pid: number };
type CpuSnapshot = { total: number; main: number };

const cpuOf = (m: Measured): CpuSnapshot => ({
  total: procCpuSeconds(m.pid),
  main: procThreadCpuSeconds(m.pid).get(m.pid) ?? Number.NaN,
});

const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** µs of CPU per order of one process over a phase's measured window: all its threads, and its main thread. */
type NodeCost = { name: string; total: number; main: number };

// ------------------------------------------------------------------ one measured phase

type PhaseResult = {
  name: string;
  figures: ReturnType<typeof windowFigures>;
  costs: NodeCost[];
  postgres: number;
  bench: number;
  commits: GroupCommits | null;
  answers: Answer[];
};

/**
 * Runs the writers against `targets`: WARMUP s unmeasured, then SECONDS s measured (the answers, and the
 * CPU of `processes`, of PostgreSQL's backends for the database and of this process), then stops them.
 */
async function phase(o: {
  name: string;
  targets: string[];
  processes: Measured[];
  next: () => IdentifiedRequest;
  meter: PostgresCpuMeter;
  /** The /metrics with the sequencer's group commits (the leader's, or the single process's). */
  metricsBase: string;
}): Promise<PhaseResult> {
  const writers = startWriters({ targets: o.targets, writers: WRITERS, next: o.next });
  await sleep(WARMUP * 1000);
  const before = o.processes.map(cpuOf);
  const pgBefore = await o.meter.read();
  const benchBefore = selfCpu();
  const metricsBefore = await scrape(o.metricsBase).catch(() => null);
  const from = performance.now();
  await sleep(SECONDS * 1000);
  const to = performance.now();
  const after = o.processes.map(cpuOf);
  const benchAfter = selfCpu();
  const pgCpu = await o.meter.since(pgBefore);
  const metricsAfter = await scrape(o.metricsBase).catch(() => null);
  await writers.stop();
  const figures = windowFigures(writers.answers, from, to);
  const perOrder = (seconds: number) => (seconds * 1e6) / Math.max(1, figures.orders);
  return {
    name: o.name,
    figures,
    costs: o.processes.map((p, i) => ({
      name: p.name,
      total: perOrder(after[i]!.total - before[i]!.total),
      main: perOrder(after[i]!.main - before[i]!.main),
    })),
    postgres: perOrder(pgCpu.backends),
    bench: perOrder(benchAfter - benchBefore),
    commits: metricsBefore && metricsAfter ? groupCommits(metricsBefore, metricsAfter) : null,
    answers: writers.answers,
  };
}

function printPhase(p: PhaseResult) {
  const f = p.figures;
  const byTarget = [...f.byTarget.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, n]) => fmt(n / f.seconds))
    .join(' + ');
  log(
    `(${p.name}) ${fmt(f.ordersPerSecond)} orders/s${f.byTarget.size > 1 ? ` (${byTarget})` : ''}, ` +
      `p50 ${ms(f.p50)} ms, p99 ${ms(f.p99)} ms, ${fmt(f.orders)} orders in ${f.seconds.toFixed(0)} s, ` +
      `${f.refused} refused${f.firstRefusal ? ` (first: ${f.firstRefusal})` : ''}`,
  );
  log(
    `     CPU µs per order (all threads / main thread): ${p.costs
      .map((c) => `${c.name} ${fmt(c.total)} / ${fmt(c.main)}`)
      .join(', ')}; PostgreSQL backends ${fmt(p.postgres)}; the bench ${fmt(p.bench)}`,
  );
  if (p.commits && p.commits.batches > 0)
    log(
      `     journal: ${fmt(p.commits.batches / f.seconds)} commits/s, ${(p.commits.inputs / p.commits.batches).toFixed(1)} inputs per commit, ` +
        `${ms((1000 * p.commits.seconds) / p.commits.batches)} ms queue to durable (mean)`,
    );
}

// ------------------------------------------------------------------ requests

/**
 * The crossing flow's requests for an exchange set up with `traders`: `presign` of them signed now (out of
 * the measured windows), then signed as they are asked for; `refill` signs more ahead between phases.
 */
function requestSource(
  setup: Awaited<ReturnType<typeof setUpExchange>>,
  traders: BenchTrader[],
  presign: number,
) {
  const signer = createOrderSigner({
    domain: setup.domain,
    marketHashes: setup.marketHashes,
    baseToken: setup.baseToken,
    expiry: Math.floor(Date.now() / 1000) + 7 * 86_400,
  });
  const flow = createCrossingFlow(signer, traders, setup.marketHashes);
  const ready: IdentifiedRequest[] = [];
  let at = 0;
  const refill = (n: number) => {
    ready.splice(0, at);
    at = 0;
    for (let i = 0; i < n; i++) ready.push(flow.next());
  };
  refill(presign);
  return {
    next: (): IdentifiedRequest => (at < ready.length ? ready[at++]! : flow.next()),
    refill,
  };
}

// ------------------------------------------------------------------ the run

const traders = Array.from({ length: TRADERS }, (_, i) => newTrader(i));
const allAnswers: Answer[] = [];
const clusterName = `bench-cluster-${randomBytes(4).toString('hex')}`;
const presignFor = (rate: number) => Math.ceil(Math.max(200, rate) * (WARMUP + SECONDS) * 1.3);
let cluster: LocalCluster | null = null;
let database: BenchDatabase | null = null;

log(
  `bench:cluster (${SPLIT ? 'split: 2 x sequencer, projector,chain, 2 x api' : 'carried: 2 x sequencer,projector,chain, 2 x api'}): ${WRITERS} writers, ${WARMUP} s warm-up + ${SECONDS} s measured per phase, ${KILLS} kills; ` +
    `node ${process.version}, server ${DIST ? 'dist' : 'sources (tsx)'}, load average ${load()}`,
);

try {
  const reference = await runReference();

  // ---------------------------------------------------------------- the cluster
  database = await benchDatabase();
  cluster = new LocalCluster({
    databaseUrl: database.url,
    natsUrl: NATS_URL,
    cluster: clusterName,
    adminToken: ADMIN,
    nodes: [
      { name: 'seq-a', role: SEQUENCER_ROLE, port: 0 },
      { name: 'seq-b', role: SEQUENCER_ROLE, port: 0 },
      ...(SPLIT ? [{ name: 'proj-chain', role: 'projector,chain' as const, port: 0 }] : []),
      { name: 'api-1', role: 'api', port: 0 },
      { name: 'api-2', role: 'api', port: 0 },
    ],
    env: NODE_ENV,
    // BENCH_CLUSTER_LOGS=<dir>: the nodes' data dirs and logs (<node>.log) there, kept after the run.
    ...(process.env.BENCH_CLUSTER_LOGS ? { dataRoot: process.env.BENCH_CLUSTER_LOGS, logFiles: true } : {}),
  });
  await cluster.start();
  const c = cluster;
  const api = [c.node('api-1').url!, c.node('api-2').url!];
  const setup = await setUpExchange(api[0]!, traders, { adminToken: ADMIN, markets: MARKETS, funds: FUNDS });
  const source = requestSource(setup, traders, presignFor(reference.figures.ordersPerSecond));
  const meter = postgresCpu(database);
  /** The processes as they stand: the leading sequencer, the standby, the projector,chain node, the API nodes. */
  const processes = (): Measured[] => {
    const leader = c.leader()!;
    const standby = c.nodes.find((n) => n.role === SEQUENCER_ROLE && n !== leader)!;
    return [
      { name: `leader(${leader.name})`, pid: leader.pid! },
      { name: `standby(${standby.name})`, pid: standby.pid! },
      ...(SPLIT ? [{ name: 'projector,chain', pid: c.node('proj-chain').pid! }] : []),
      { name: 'api-1', pid: c.node('api-1').pid! },
      { name: 'api-2', pid: c.node('api-2').pid! },
    ];
  };
  try {
    const one = await phase({
      name: 'cluster, 1 API node',
      targets: [api[0]!],
      processes: processes(),
      next: source.next,
      meter,
      metricsBase: c.leader()!.url!,
    });
    printPhase(one);
    allAnswers.push(...one.answers);
    source.refill(presignFor(one.figures.ordersPerSecond * 1.5));
    const two = await phase({
      name: 'cluster, 2 API nodes',
      targets: api,
      processes: processes(),
      next: source.next,
      meter,
      metricsBase: c.leader()!.url!,
    });
    printPhase(two);
    allAnswers.push(...two.answers);
    printCapacity(reference, one, two);
  } finally {
    await meter.close();
  }
  if (KILLS > 0) {
    source.refill(presignFor(reference.figures.ordersPerSecond));
    await runFailover(c, api, source.next);
  }
  await checkOrders(database, allAnswers);
} finally {
  if (cluster) {
    printErrorLines(cluster.nodes.map((n) => `${n.name}\n${n.output()}`));
    await cluster.stop();
  }
  if (database) await database.drop().catch(() => {});
  await dropLeftDatabases();
  await deleteStreams(clusterName);
  log(`load average at the end ${load()}`);
}

// ------------------------------------------------------------------ (ref) the single process on PostgreSQL

async function runReference(): Promise<PhaseResult> {
  const db = await benchDatabase();
  const meter = postgresCpu(db);
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-bench-cluster-all-'));
  const port = randomPort();
  const single = await startChild(
    exchangeArgs([], DIST),
    { ...exchangeEnv(dataDir, port, ADMIN), ...NODE_ENV, DATABASE_URL: db.url },
    port,
  );
  try {
    const setup = await setUpExchange(single.base, traders, {
      adminToken: ADMIN,
      markets: MARKETS,
      funds: FUNDS,
    });
    const source = requestSource(setup, traders, presignFor(2_000));
    const reference = await phase({
      name: 'ref: single process, PostgreSQL',
      targets: [single.base],
      processes: [{ name: 'single', pid: single.child.pid! }],
      next: source.next,
      meter,
      metricsBase: single.base,
    });
    printPhase(reference);
    printErrorLines([`single\n${single.output()}`]);
    return reference;
  } finally {
    await stopChild(single);
    await meter.close();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------ (failover)

async function runFailover(c: LocalCluster, api: string[], next: () => IdentifiedRequest) {
  const writers = startWriters({ targets: api, writers: WRITERS, next });
  const rows: { firstAck: number; leads: number; inFlight: number }[] = [];
  try {
    await sleep(1_000);
    for (let k = 0; k < KILLS; k++) {
      const leader = c.leader();
      if (!leader) throw new Error(`no leader before kill ${k + 1}`);
      const answeredBefore = writers.answers.length;
      const t0 = performance.now();
      const killed = c.signal(leader.name, 'SIGKILL');
      // Probes: a fresh order every 20 ms, on the API nodes in turn, until one is acknowledged.
      const probes: Promise<Answer>[] = [];
      let firstAck: Answer | null = null;
      const probing = (async () => {
        for (let i = 0; !firstAck && performance.now() - t0 < 30_000; i++) {
          const probe = postOrder(api[i % api.length]!, i % api.length, next());
          probes.push(probe);
          void probe.then((a) => {
            if (a.accepted && (!firstAck || a.answeredAt < firstAck.answeredAt)) firstAck = a;
          });
          await sleep(20);
        }
      })();
      const successor = await c.waitForLeader({ except: leader.name, timeoutMs: 30_000 });
      const leads = performance.now() - t0;
      await probing;
      const probeAnswers = await Promise.all(probes);
      await killed;
      if (!firstAck) throw new Error(`no order acknowledged within 30 s of kill ${k + 1}`);
      // Orders in flight at the kill: their answers come after the API node's attempt on the dead leader timed out.
      await sleep(0);
      const inFlightDone = await waitFor(
        'the orders in flight at the kill to be answered',
        () => {
          const after = writers.answers.slice(answeredBefore).filter((a) => a.sentAt < t0);
          return after.length >= WRITERS ? after : null;
        },
        40_000,
        20,
      ).catch(() => writers.answers.slice(answeredBefore).filter((a) => a.sentAt < t0));
      const inFlight = Math.max(0, ...inFlightDone.map((a) => a.answeredAt - t0));
      const refused = [...writers.answers.slice(answeredBefore), ...probeAnswers].filter((a) => !a.accepted);
      const row = {
        firstAck: ((firstAck as Answer).answeredAt - t0) / 1000,
        leads: leads / 1000,
        inFlight: inFlight / 1000,
      };
      rows.push(row);
      log(
        `kill ${k + 1}: ${leader.name} SIGKILLed; ${successor.name} leads (epoch ${successor.epoch}) at ${s3(row.leads)} s, ` +
          `first new order acknowledged at ${s3(row.firstAck)} s, last order in flight at the kill answered at ${s3(row.inFlight)} s` +
          `${refused.length ? `; ${refused.length} refused, first: ${refused[0]!.status} ${refused[0]!.error}` : ''}`,
      );
      allAnswers.push(...probeAnswers);
      await c.startNode(leader.name);
      await sleep(BETWEEN_KILLS * 1000);
    }
  } finally {
    await writers.stop();
    allAnswers.push(...writers.answers);
  }
  const summary = (pick: (r: (typeof rows)[number]) => number) => {
    const sorted = rows.map(pick).sort((a, b) => a - b);
    return `p50 ${s3(sorted[Math.floor((sorted.length - 1) / 2)]!)} s, max ${s3(sorted.at(-1)!)} s`;
  };
  log(
    `failover over ${rows.length} kills (SIGKILL of the leader to ...): the first new order acknowledged ${summary((r) => r.firstAck)}; ` +
      `the standby's log saying it leads ${summary((r) => r.leads)}; the last order in flight at the kill answered ${summary((r) => r.inFlight)}`,
  );
  const refused = writers.answers.filter((a) => !a.accepted);
  log(`failover phase: ${fmt(writers.answers.length)} writer answers, ${refused.length} refused`);
  for (const r of refused.slice(0, 5)) log(`  refused: ${r.status} ${r.error}`);
}

// ------------------------------------------------------------------ capacity

function printCapacity(reference: PhaseResult, one: PhaseResult, two: PhaseResult) {
  const cost = (p: PhaseResult, prefix: string) => p.costs.find((c) => c.name.startsWith(prefix))!;
  const leader1 = cost(one, 'leader');
  const api1 = cost(one, 'api-1');
  const idle = cost(one, 'api-2');
  // Through two nodes, each node's CPU over the orders it admitted itself.
  const share = (target: number) => (two.figures.byTarget.get(target) ?? 0) / Math.max(1, two.figures.orders);
  const api1Two = cost(two, 'api-1').total / share(0);
  const api2Two = cost(two, 'api-2').total / share(1);
  const leader2 = cost(two, 'leader');
  const single = reference.costs[0]!;
  log('');
  log('capacity (CPU per order from the measured windows above):');
  log(
    `  the single process: ${fmt(single.total)} µs per order (main thread ${fmt(single.main)}), PostgreSQL backends ${fmt(reference.postgres)}`,
  );
  log(
    `  leading sequencer: ${fmt(leader1.total)} µs per order (main thread ${fmt(leader1.main)}) with 1 API node, ` +
      `${fmt(leader2.total)} (${fmt(leader2.main)}) with 2; PostgreSQL backends (every node's) ${fmt(one.postgres)} / ${fmt(two.postgres)}`,
  );
  log(
    `  API node: ${fmt(api1.total)} µs per order it admits (1 API node), ${fmt(api1Two)} and ${fmt(api2Two)} (2 API nodes); ` +
      `an API node that admits nothing (following the journal and the publications) ${fmt(idle.total)} per order of the cluster`,
  );
  const ratio = api1.total / leader1.total;
  const ratioMain = api1.total / leader1.main;
  log(
    `  sequencer capacity / one API node's = API node CPU per order / leader CPU per order = ${ratio.toFixed(2)} ` +
      `(over the leader's main thread alone ${ratioMain.toFixed(2)}); target >= 10: ${ratio >= 10 ? 'met' : 'NOT met'}`,
  );
  log(
    `  one core for the leader's main thread: ~${fmt(1e6 / leader1.main)} orders/s; one core of an API node: ~${fmt(1e6 / api1.total)} orders/s`,
  );
  if (SPLIT) printSplitCosts(one, two);
  log('');
}

/** In the split topology: what the projector,chain node costs beside the pure sequencer. */
function printSplitCosts(one: PhaseResult, two: PhaseResult) {
  const cost = (p: PhaseResult) => p.costs.find((c) => c.name === 'projector,chain')!;
  log(
    `  projector,chain node: ${fmt(cost(one).total)} µs per order (main thread ${fmt(cost(one).main)}) with 1 API node, ` +
      `${fmt(cost(two).total)} (${fmt(cost(two).main)}) with 2`,
  );
}

// ------------------------------------------------------------------ every acknowledged order present, once

async function checkOrders(db: BenchDatabase, answers: readonly Answer[]) {
  const acknowledged = answers.filter((a) => a.accepted).flatMap((a) => a.orderIds);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    // The projector (on the leader, or the projector,chain node): wait until its cursor reaches the journal's end.
    await waitFor(
      'the projector to catch up',
      async () => {
        const { rows } = await client.query(
          'SELECT (SELECT seq FROM projector_cursor) AS projected, (SELECT max(seq) FROM journal) AS journaled',
        );
        return Number(rows[0].projected) >= Number(rows[0].journaled);
      },
      60_000,
      200,
    ).catch((e: Error) => log(`  ${e.message}`));
    const { rows } = await client.query<{ id: string }>('SELECT id FROM orders WHERE id = ANY($1)', [
      acknowledged,
    ]);
    const present = new Set(rows.map((r) => r.id));
    const missing = acknowledged.filter((id) => !present.has(id));
    const wanted = new Set(acknowledged);
    const journalCounts = new Map<string, number>();
    const { rows: entries } = await client.query<{ payload: string }>('SELECT payload FROM journal');
    for (const { payload } of entries) {
      for (const id of new Set(payload.match(/0x[0-9a-f]{64}/g) ?? [])) {
        if (wanted.has(id)) journalCounts.set(id, (journalCounts.get(id) ?? 0) + 1);
      }
    }
    const notJournaled = acknowledged.filter((id) => !journalCounts.has(id));
    const bytes = entries.reduce((n, e) => n + e.payload.length, 0);
    log(
      `journal: ${fmt(entries.length)} entries, ${fmt(bytes / Math.max(1, entries.length))} bytes of payload per entry`,
    );
    const twice = [...journalCounts].filter(([, n]) => n > 1);
    log(
      `acknowledged orders: ${fmt(acknowledged.length)}; missing from the projections ${missing.length}` +
        `${missing.length ? ` (e.g. ${missing.slice(0, 3).join(', ')})` : ''}; not in the journal ${notJournaled.length}; ` +
        `in more than one journal entry ${twice.length}${twice.length ? ` (e.g. ${twice[0]![0]} x${twice[0]![1]})` : ''}`,
    );
  } finally {
    await client.end();
  }
}

function printErrorLines(outputs: readonly string[]) {
  const lines = outputs
    .flatMap((o) => {
      const [name, ...rest] = o.split('\n');
      return rest
        .filter((l) => /"level":(50|60)/.test(l) || /^\w*Error\b|error:/i.test(l))
        .map((l) => `${name}: ${l}`);
    })
    .slice(0, 20);
  if (lines.length > 0) {
    log("error lines in the nodes' output (first 20):");
    for (const l of lines) log(`  ${l.slice(0, 400)}`);
  }
}

async function deleteStreams(cluster: string) {
  const names = clusterNames(cluster);
  try {
    const nc = await connect({ servers: NATS_URL });
    const jsm = await jetstreamManager(nc);
    for (const s of [names.stream, names.publicationsStream]) {
      const info = await jsm.streams.info(s).catch(() => null);
      if (info)
        log(
          `stream ${s}: ${fmt(info.state.messages)} messages, ${fmt(info.state.bytes / 1e6)} MB, ` +
            `${fmt(info.state.bytes / Math.max(1, info.state.messages))} bytes per message`,
        );
      await jsm.streams.delete(s).catch(() => {});
    }
    await nc.close();
  } catch (e) {
    log(`could not delete the cluster's streams: ${(e as Error).message}`);
  }
}
