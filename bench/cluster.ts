/**
 * The cluster of issue 37 on this machine's PostgreSQL and NATS: `npm run bench:cluster`
 * (node --import tsx bench/cluster.ts [--seconds 20] [--warmup 5] [--writers 32] [--kills 10]).
 *
 * Phases, one after the other, each on a fresh PostgreSQL database (bench/lib/bench-store.ts, dropped after):
 * - (ref) the single process, `serve --role all` on PostgreSQL, under the load below: the same-run
 *   reference (the machine has two shared cores: compare ratios, not absolute figures);
 * - a cluster (`CLUSTER` of its own on the local NATS, its streams deleted after): two `serve --role
 *   sequencer` (a leader, a hot standby) and two `serve --role api`; then
 *   (1 api) the writers post to the first API node only (the second follows the journal, idle), and
 *   (2 api) to both, the writers split evenly;
 * - (failover) writers on both API nodes while the leading sequencer is SIGKILLed `--kills` times, the
 *   killed one started again as a standby each time (as its supervisor would); per kill, the time from the
 *   SIGKILL to the first acknowledged order sent after it.
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
 * `packages/server/bin/oddsbook.js` (npm run build first); NATS_URL (default nats://127.0.0.1:4222).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { clusterNames } from '../packages/server/src/cluster/cluster-names.js';
import {
  type BenchDatabase,
  benchDatabase,
  dropLeftDatabases,
  type PostgresCpuMeter,
  postgresCpu,
} from './lib/bench-store.js';
import {
  type BenchNode,
  nodeHealth,
  restartNode,
  startNode,
  stopNode,
  waitFor,
} from './lib/cluster-nodes.js';
import { type Answer, type IdentifiedRequest, startWriters, windowFigures } from './lib/cluster-writers.js';
import { type GroupCommits, groupCommits, scrape } from './lib/exchange-metrics.js';
import { randomPort, setUpExchange } from './lib/exchange-process.js';
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
/** Seconds of steady writing between a failover and the next kill. */
const BETWEEN_KILLS = option('between-kills', 2);
const TRADERS = 32;
const MARKETS = 8;
const FUNDS = 10n ** 15n;
const ADMIN = `bench-cluster-admin-${randomBytes(12).toString('hex')}`;
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const DIST = process.env.BENCH_SERVER === 'dist';

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1));

const log = (line: string) => console.log(line);
const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

// ------------------------------------------------------------------ CPU of the processes over a window

type CpuSnapshot = { total: number; main: number };

function cpuOf(node: BenchNode): CpuSnapshot {
  const threads = node.child.threadCpuSeconds();
  return { total: node.child.cpuSeconds(), main: threads.get(node.child.child.pid!) ?? Number.NaN };
}

const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** µs of CPU per order of each process between two snapshots. */
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
 * Runs the writers against `targets`: `WARMUP` s unmeasured, then `SECONDS` s measured (answers and CPU of
 * `nodes`), then stops them. `next` gives the requests; pre-signed ones are handed out first.
 */
async function phase(o: {
  name: string;
  targets: string[];
  nodes: BenchNode[];
  next: () => IdentifiedRequest;
  meter: PostgresCpuMeter;
  /** The node whose /metrics has the sequencer's group commits (the leader, or the single process). */
  committer: BenchNode;
}): Promise<PhaseResult> {
  const writers = startWriters({ targets: o.targets, writers: WRITERS, next: o.next });
  await new Promise((r) => setTimeout(r, WARMUP * 1000));
  const before = o.nodes.map(cpuOf);
  const pgBefore = await o.meter.read();
  const benchBefore = selfCpu();
  const metricsBefore = await scrape(o.committer.child.base).catch(() => null);
  const from = performance.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const to = performance.now();
  const after = o.nodes.map(cpuOf);
  const benchAfter = selfCpu();
  const pgCpu = await o.meter.since(pgBefore);
  const metricsAfter = await scrape(o.committer.child.base).catch(() => null);
  await writers.stop();
  const figures = windowFigures(writers.answers, from, to);
  const perOrder = (seconds: number) => (seconds * 1e6) / Math.max(1, figures.orders);
  return {
    name: o.name,
    figures,
    costs: o.nodes.map((n, i) => ({
      name: n.name,
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
 * the measured windows), then signed as they are asked for.
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
  const refill = (n: number) => {
    for (let i = 0; i < n; i++) ready.push(flow.next());
  };
  refill(presign);
  let at = 0;
  return {
    next: (): IdentifiedRequest => (at < ready.length ? ready[at++]! : flow.next()),
    /** Signs `n` more ahead (between phases). */
    refill,
  };
}

// ------------------------------------------------------------------ the run

const traders = Array.from({ length: TRADERS }, (_, i) => newTrader(i));
const dirs: string[] = [];
const tempDir = (label: string) => {
  const d = mkdtempSync(join(tmpdir(), `oddsbook-bench-cluster-${label}-`));
  dirs.push(d);
  return d;
};
const port = (() => {
  const base = randomPort();
  let n = 0;
  return () => base + n++;
})();
const nodes: BenchNode[] = [];
const allAnswers: Answer[] = [];
const logsOfKilled: string[] = [];
let database: BenchDatabase | null = null;
const clusterName = `bench-cluster-${randomBytes(4).toString('hex')}`;
const presignFor = (rate: number) => Math.ceil(rate * (WARMUP + SECONDS) * 1.3);

log(
  `bench:cluster: ${WRITERS} writers, ${WARMUP} s warm-up + ${SECONDS} s measured per phase, ${KILLS} kills; ` +
    `node ${process.version}, server ${DIST ? 'dist' : 'sources (tsx)'}, load average ${load()}`,
);

try {
  // ---------------------------------------------------------------- (ref) the single process on PostgreSQL
  let reference: PhaseResult;
  {
    const db = await benchDatabase();
    const meter = postgresCpu(db);
    const single = await startNode({
      name: 'single',
      role: 'all',
      port: port(),
      dataDir: tempDir('all'),
      adminToken: ADMIN,
      env: { DATABASE_URL: db.url },
      dist: DIST,
    });
    try {
      const setup = await setUpExchange(single.child.base, traders, {
        adminToken: ADMIN,
        markets: MARKETS,
        funds: FUNDS,
      });
      const source = requestSource(setup, traders, presignFor(2_000));
      reference = await phase({
        name: 'ref: single process, PostgreSQL',
        targets: [single.child.base],
        nodes: [single],
        next: source.next,
        meter,
        committer: single,
      });
      printPhase(reference);
    } finally {
      await stopNode(single);
      await meter.close();
      await db.drop();
    }
  }

  // ---------------------------------------------------------------- the cluster
  database = await benchDatabase();
  const env = { DATABASE_URL: database.url, NATS_URL, CLUSTER: clusterName };
  const nodeOptions = { adminToken: ADMIN, env, dist: DIST };
  const seqA = await startNode({
    name: 'seq-a',
    role: 'sequencer',
    port: port(),
    dataDir: tempDir('seq-a'),
    ...nodeOptions,
  });
  await waitFor('seq-a to lead', async () => (await nodeHealth(seqA))?.state === 'leader');
  const started = await Promise.all([
    startNode({ name: 'seq-b', role: 'sequencer', port: port(), dataDir: tempDir('seq-b'), ...nodeOptions }),
    startNode({ name: 'api-1', role: 'api', port: port(), dataDir: tempDir('api-1'), ...nodeOptions }),
    startNode({ name: 'api-2', role: 'api', port: port(), dataDir: tempDir('api-2'), ...nodeOptions }),
  ]);
  const [seqB, api1, api2] = started;
  nodes.push(seqA, ...started);
  await waitFor('seq-b to stand by', async () => (await nodeHealth(seqB))?.state === 'standby');
  const setup = await setUpExchange(api1.child.base, traders, {
    adminToken: ADMIN,
    markets: MARKETS,
    funds: FUNDS,
  });
  const source = requestSource(setup, traders, presignFor(reference.figures.ordersPerSecond));
  const meter = postgresCpu(database);
  try {
    const asLeaderFirst = async () => {
      const healths = await Promise.all([seqA, seqB].map(nodeHealth));
      const leader = healths[0]?.state === 'leader' ? seqA : seqB;
      const standby = leader === seqA ? seqB : seqA;
      return [
        { ...leader, name: `leader(${leader.name})` },
        { ...standby, name: `standby(${standby.name})` },
        api1,
        api2,
      ];
    };
    const one = await phase({
      name: 'cluster, 1 API node',
      targets: [api1.child.base],
      nodes: await asLeaderFirst(),
      next: source.next,
      meter,
      committer: seqA,
    });
    printPhase(one);
    allAnswers.push(...one.answers);
    source.refill(presignFor(one.figures.ordersPerSecond * 1.5));
    const two = await phase({
      name: 'cluster, 2 API nodes',
      targets: [api1.child.base, api2.child.base],
      nodes: await asLeaderFirst(),
      next: source.next,
      meter,
      committer: seqA,
    });
    printPhase(two);
    allAnswers.push(...two.answers);

    printCapacity(reference, one, two);

    // -------------------------------------------------------------- (failover)
    if (KILLS > 0) {
      const sequencers = [seqA, seqB];
      const writers = startWriters({
        targets: [api1.child.base, api2.child.base],
        writers: WRITERS,
        next: source.next,
      });
      const times: number[] = [];
      try {
        await new Promise((r) => setTimeout(r, 1_000));
        for (let k = 0; k < KILLS; k++) {
          const healths = await Promise.all(sequencers.map(nodeHealth));
          const li = healths.findIndex((h) => h?.state === 'leader');
          if (li < 0) throw new Error(`no leader before kill ${k + 1}: ${JSON.stringify(healths)}`);
          const leader = sequencers[li]!;
          const standby = sequencers[1 - li]!;
          const answeredBefore = writers.answers.length;
          const t0 = performance.now();
          leader.child.child.kill('SIGKILL');
          const acked = await waitFor(
            `an order acknowledged after kill ${k + 1}`,
            async () => writers.answers.find((a, i) => i >= answeredBefore && a.accepted && a.sentAt > t0),
            30_000,
            5,
          );
          const seconds = (acked.answeredAt - t0) / 1000;
          times.push(seconds);
          const refused = writers.answers.slice(answeredBefore).filter((a) => !a.accepted);
          const health = await nodeHealth(standby);
          log(
            `kill ${k + 1}: ${leader.name} SIGKILLed; first order sent after it acknowledged in ${seconds.toFixed(3)} s ` +
              `(${standby.name} ${health?.state}, epoch ${health?.epoch})` +
              `${refused.length ? `; ${refused.length} refused, first: ${refused[0]!.status} ${refused[0]!.error}` : ''}`,
          );
          const killed = leader.child.child;
          if (killed.exitCode === null && killed.signalCode === null)
            await new Promise((r) => killed.once('exit', r));
          logsOfKilled.push(leader.child.output());
          const restarted = await restartNode(leader, nodeOptions);
          sequencers[li] = restarted;
          nodes[nodes.indexOf(leader)] = restarted;
          await waitFor(
            `${leader.name} to stand by again`,
            async () => (await nodeHealth(restarted))?.state === 'standby',
          );
          await new Promise((r) => setTimeout(r, BETWEEN_KILLS * 1000));
        }
      } finally {
        await writers.stop();
        allAnswers.push(...writers.answers);
      }
      const sorted = [...times].sort((a, b) => a - b);
      log(
        `failover over ${times.length} kills: SIGKILL to the first acknowledged order p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(3)} s, ` +
          `max ${sorted.at(-1)!.toFixed(3)} s (each: ${times.map((t) => t.toFixed(2)).join(', ')})`,
      );
      const refused = writers.answers.filter((a) => !a.accepted);
      log(`failover phase: ${fmt(writers.answers.length)} answers, ${refused.length} refused`);
      for (const r of refused.slice(0, 5)) log(`  refused: ${r.status} ${r.error}`);
    }
  } finally {
    await meter.close();
  }

  await checkOrders(database, allAnswers, nodes);
} finally {
  for (const n of nodes) await stopNode(n).catch(() => {});
  printErrorLines([...nodes.map((n) => n.child.output()), ...logsOfKilled]);
  if (database) await database.drop().catch(() => {});
  await dropLeftDatabases();
  await deleteStreams(clusterName);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  log(`load average at the end ${load()}`);
}

// ------------------------------------------------------------------ capacity

function printCapacity(reference: PhaseResult, one: PhaseResult, two: PhaseResult) {
  const cost = (p: PhaseResult, prefix: string) => p.costs.find((c) => c.name.startsWith(prefix))!;
  const leader1 = cost(one, 'leader');
  const api1 = cost(one, 'api-1');
  const idle = cost(one, 'api-2');
  // Through two nodes, each node's CPU over the orders it admitted itself.
  const admitted = (target: number) => (two.figures.byTarget.get(target) ?? 0) / two.figures.orders;
  const api1Two = cost(two, 'api-1').total / admitted(0);
  const api2Two = cost(two, 'api-2').total / admitted(1);
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
      `of it following the journal (the idle node's cost per order of the cluster) ${fmt(idle.total)}`,
  );
  const ratio = api1.total / leader1.total;
  const ratioMain = api1.total / leader1.main;
  log(
    `  sequencer capacity / one API node's = API node CPU per order / leader CPU per order = ${ratio.toFixed(2)} ` +
      `(against the leader's main thread alone ${ratioMain.toFixed(2)}); target >= 10: ${ratio >= 10 ? 'met' : 'NOT met'}`,
  );
  log(
    `  one core of the leader's main thread: ~${fmt(1e6 / leader1.main)} orders/s; one core of an API node: ~${fmt(1e6 / api1.total)} orders/s`,
  );
  log('');
}

// ------------------------------------------------------------------ every acknowledged order present, once

async function checkOrders(db: BenchDatabase, answers: readonly Answer[], live: BenchNode[]) {
  const acknowledged = answers.filter((a) => a.accepted).flatMap((a) => a.orderIds);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    // The projector runs on the leader: wait until its cursor reaches the journal's end.
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
    const journalCounts = new Map<string, number>();
    const wanted = new Set(acknowledged);
    const { rows: entries } = await client.query<{ payload: string }>('SELECT payload FROM journal');
    for (const { payload } of entries) {
      for (const id of payload.match(/0x[0-9a-f]{64}/g) ?? []) {
        if (wanted.has(id)) journalCounts.set(id, (journalCounts.get(id) ?? 0) + 1);
      }
    }
    const notJournaled = acknowledged.filter((id) => !journalCounts.has(id));
    const twice = [...journalCounts].filter(([, n]) => n > 1);
    log(
      `acknowledged orders: ${fmt(acknowledged.length)}; missing from the projections ${missing.length}` +
        `${missing.length ? ` (e.g. ${missing.slice(0, 3).join(', ')})` : ''}; not in the journal ${notJournaled.length}; ` +
        `in the journal more than once ${twice.length}${twice.length ? ` (e.g. ${twice[0]![0]} x${twice[0]![1]})` : ''}; ` +
        `live nodes ${live.filter((n) => n.child.child.exitCode === null).length}/${live.length}`,
    );
  } finally {
    await client.end();
  }
}

function printErrorLines(outputs: readonly string[]) {
  const lines = outputs
    .flatMap((o) => o.split('\n'))
    .filter((l) => /"level":(50|60)/.test(l) || /Error|error:/.test(l))
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
    for (const s of [names.stream, names.publicationsStream]) await jsm.streams.delete(s).catch(() => {});
    await nc.close();
  } catch (e) {
    log(`could not delete the cluster's streams: ${(e as Error).message}`);
  }
}
