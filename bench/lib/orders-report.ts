/**
 * What `bench/orders.ts` prints after its phases: the table of every phase, each exchange phase against the
 * verify-only server's phase of the same run (issues 35 and 36), the paced phases' generator figures, CPU by
 * thread, the group commits and, per store, the projector and PostgreSQL's own CPU.
 */
import type { StoreKind } from './bench-store.js';
import type { GroupCommits, ProjectorFigures } from './exchange-metrics.js';
import { type LoadResult, percentile } from './http-load.js';
import { LATE_MS, type OpenLoopStats } from './open-loop.js';

export type Row = {
  /** The exchange's store (for the verify-only server: the store of the run it is the reference of). */
  store: StoreKind;
  /** The verify-only server's rows: the key of the exchange phase it is the reference of (`a` for `e`). */
  referenceOf?: string;
  phase: string;
  result: LoadResult;
  perRequest: number;
  fills: number | null;
  /** Makers filled during the phase (one per match), exchange phases only. */
  makerFills: number | null;
  /** Process CPU time of the server / wall time. */
  serverCpu: number;
  /** Bytes written to storage by the server per order (SQLite WAL and checkpoints; PostgreSQL's are its own). */
  bytesPerOrder: number;
  paced?: OpenLoopStats;
  /** Exchange phases only: the sequencer's group commits during the phase (from its /metrics). */
  commits?: GroupCommits;
  /** Exchange phases only: the projector's rows and lag. */
  projector?: ProjectorFigures;
  /** PostgreSQL phases only: the server's CPU seconds for the bench's database, and its shared processes'. */
  postgresCpu?: { backends: number; shared: number };
  /** The server's threads' CPU, µs per order, most first. */
  threads: { tid: number; main: boolean; microsPerOrder: number }[];
};

const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');
const log = (line: string) => console.log(line);

/** The phase's key: `a` of "(a) peak, ...". */
export const phaseKey = (r: Row) => /^\((\w+)\)/.exec(r.phase)?.[1] ?? '';
const label = (r: Row) => `[${r.store}] ${r.phase}`;
/** Each exchange phase's reference by `store|key`. */
type References = ReadonlyMap<string, Row>;
const referenceOf = (references: References, r: Row) =>
  r.referenceOf ? undefined : references.get(`${r.store}|${phaseKey(r)}`);
/** The server process's CPU µs per order. */
export const cpuPerOrder = (r: Row) => (r.serverCpu * 1e6) / r.result.ordersPerSecond;
/** PostgreSQL's backends' CPU µs per order (0 on SQLite, whose work is in the server process). */
export const postgresCpuPerOrder = (r: Row) =>
  r.postgresCpu ? (r.postgresCpu.backends * 1e6) / r.result.orders : 0;

function table(rows: readonly Row[]) {
  const header = [
    'phase'.padEnd(54),
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
  for (const r of rows) {
    const l = r.result.latencies;
    log(
      [
        label(r).padEnd(54),
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
        fmt(cpuPerOrder(r)).padStart(13),
        (r.bytesPerOrder / 1024).toFixed(1).padStart(14),
      ].join(' '),
    );
    if (r.result.firstError) log(`    first error: ${r.result.firstError}`);
  }
}

/** Each exchange phase against its reference (the verify-only server's phase fed the same requests). */
function againstReference(rows: readonly Row[], references: References) {
  log(
    'against the verify-only server fed the same requests right after each phase (issue 35: CPU efficiency >= 0.67 and throughput >= 0.7 for a and x; d p50 <= 2 ms, p99 <= 10 ms; issue 36: throughput >= 0.5 on PostgreSQL)',
  );
  for (const r of rows) {
    const key = phaseKey(r);
    const ref = referenceOf(references, r);
    if (!ref) continue;
    if (key === 'd0' || key === 'd') {
      const l = r.result.latencies;
      const lr = ref.result.latencies;
      log(
        `  ${label(r).padEnd(52)} p50 ${ms(percentile(l, 0.5))} / p99 ${ms(percentile(l, 0.99))} ms vs ${ms(percentile(lr, 0.5))} / ${ms(percentile(lr, 0.99))} ms`,
      );
      continue;
    }
    const takers = key === 'x' ? r.result.orders / 3 : 0;
    const pg = postgresCpuPerOrder(r);
    const withPg =
      pg > 0
        ? `; with PostgreSQL's backends ${fmt(cpuPerOrder(r) + pg)}: efficiency ${(cpuPerOrder(ref) / (cpuPerOrder(r) + pg)).toFixed(2)}`
        : '';
    log(
      `  ${label(r).padEnd(52)} CPU µs/order ${fmt(cpuPerOrder(r))} vs ${fmt(cpuPerOrder(ref))}: efficiency ${(cpuPerOrder(ref) / cpuPerOrder(r)).toFixed(2)}${withPg}; orders/s ${fmt(r.result.ordersPerSecond)} vs ${fmt(ref.result.ordersPerSecond)}: throughput ${(r.result.ordersPerSecond / ref.result.ordersPerSecond).toFixed(2)}${takers > 0 && r.makerFills !== null ? `; ${(r.makerFills / takers).toFixed(2)} makers filled per taker` : ''}`,
    );
  }
}

function paced(rows: readonly Row[]) {
  log(
    'paced phases, open loop: latency above is from the scheduled send; here from the actual send, how late sends went out, and the generator',
  );
  for (const r of rows) {
    const p = r.paced;
    if (!p) continue;
    const l = p.latenciesFromSend;
    log(
      `  ${label(r).padEnd(52)} from send p50 ${ms(percentile(l, 0.5))} p99 ${ms(percentile(l, 0.99))} max ${ms(l[l.length - 1] ?? Number.NaN)} ms; send delay p99 ${ms(percentile(p.sendDelays, 0.99))} max ${ms(p.sendDelays[p.sendDelays.length - 1] ?? Number.NaN)} ms, ${p.late} late (> ${LATE_MS} ms), ${p.waitedForConnection} waited for a connection; ${p.connections} connections, ${p.maxInFlight} max in flight; generator CPU ${fmt(p.generatorCpuMicrosPerRequest)} µs/request; answered ${p.wallSeconds.toFixed(1)} s after the first send`,
    );
  }
}

function threads(rows: readonly Row[]) {
  log(
    "CPU µs per order by thread (/proc/<pid>/task; main = the event loop's; the others by id: verifier, projector (SQLite), WAL checkpointers, libuv's pool, V8's GC helpers)",
  );
  for (const r of rows) {
    if (r.result.requestsPerSecond < 500) continue; // paced phases at low rates: idle threads dominate
    const t = r.threads.slice(0, 8).map((x) => `${x.main ? 'main' : x.tid} ${fmt(x.microsPerOrder)}`);
    log(`  ${label(r).padEnd(52)} ${t.join(', ')}`);
  }
}

function commitsAndProjector(rows: readonly Row[]) {
  log(
    "the exchange's group commits and its projector (its /metrics): batches, inputs per batch, mean time from queue to durable; projector rows (orders, fills, trades, refunds) per second of the phase, its delay per batch (handed on to written: mean, the p99's bucket), the highest lag sampled every 250 ms, inputs not projected at the phase's end",
  );
  for (const r of rows) {
    const c = r.commits;
    const p = r.projector;
    if (!c || !p) continue;
    log(
      `  ${label(r).padEnd(52)} ${fmt(c.batches)} batches, ${(c.inputs / Math.max(1, c.batches)).toFixed(1)} inputs each, ${ms((1000 * c.seconds) / Math.max(1, c.batches))} ms; projector ${fmt(p.rows / r.result.seconds)} rows/s (${(p.rows / Math.max(1, r.result.orders)).toFixed(1)} per order), delay mean ${ms(p.meanDelay * 1000)} ms, p99 <= ${Number.isFinite(p.p99DelayBound) ? `${p.p99DelayBound * 1000} ms` : 'above 5 s'}, lag max ${ms(p.maxLagSeconds * 1000)} ms, ${fmt(p.lagSeqAtEnd)} inputs behind at the end`,
    );
  }
}

function postgres(rows: readonly Row[]) {
  const pgRows = rows.filter((r) => r.postgresCpu && r.result.requestsPerSecond >= 500);
  if (pgRows.length === 0) return;
  log(
    "PostgreSQL's CPU (/proc of its processes): its backends for the bench's database (the pool, the projector's connection), µs per order, and its shared processes (WAL writer, checkpointer, ...: they serve the other databases on the server too)",
  );
  for (const r of pgRows) {
    const cpu = r.postgresCpu!;
    log(
      `  ${label(r).padEnd(52)} backends ${fmt(postgresCpuPerOrder(r))} µs/order (${Math.round((100 * cpu.backends) / r.result.seconds)}% of a core), shared ${fmt((cpu.shared * 1e6) / r.result.orders)} µs/order; exchange + backends ${fmt(cpuPerOrder(r) + postgresCpuPerOrder(r))} µs/order`,
    );
  }
}

/**
 * Issue 36's table: per store and flow, orders/s and throughput against the verify-only server, CPU per
 * order (the server process; on PostgreSQL also with its backends), projector rows/s and lag.
 */
function perStore(rows: readonly Row[], references: References) {
  log(
    'issue 36, per store (throughput = orders/s over the verify-only server fed the same requests right after the phase; CPU = the exchange process, + PostgreSQL = with its backends for this database)',
  );
  log(
    '| phase | store | orders/s | verify-only | throughput | CPU µs/order | + PostgreSQL | verify-only CPU | efficiency | projector rows/s | lag mean / max ms |',
  );
  log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const key of ['a', 'x', 'b']) {
    for (const r of rows.filter((x) => phaseKey(x) === key && !x.referenceOf)) {
      const ref = referenceOf(references, r);
      const own = cpuPerOrder(r);
      const total = own + postgresCpuPerOrder(r);
      const p = r.projector;
      log(
        `| ${key} | ${r.store} | ${fmt(r.result.ordersPerSecond)} | ${ref ? fmt(ref.result.ordersPerSecond) : '-'} | ${ref ? (r.result.ordersPerSecond / ref.result.ordersPerSecond).toFixed(2) : '-'} | ${fmt(own)} | ${r.postgresCpu ? fmt(total) : '-'} | ${ref ? fmt(cpuPerOrder(ref)) : '-'} | ${ref ? (cpuPerOrder(ref) / total).toFixed(2) : '-'} | ${p ? fmt(p.rows / r.result.seconds) : '-'} | ${p ? `${ms(p.meanDelay * 1000)} / ${ms(p.maxLagSeconds * 1000)}` : '-'} |`,
      );
    }
  }
}

/** Prints everything: the exchange's phases and, beside each, its reference of the same store's run. */
export function printReport(rows: readonly Row[]) {
  const sorted = [...rows].sort((x, y) => x.store.localeCompare(y.store) || x.phase.localeCompare(y.phase));
  const references: References = new Map(
    rows.flatMap((r) => (r.referenceOf ? [[`${r.store}|${r.referenceOf}`, r] as const] : [])),
  );
  log('');
  table(sorted);
  for (const section of [
    () => againstReference(sorted, references),
    () => paced(sorted),
    () => threads(sorted),
    () => commitsAndProjector(sorted),
    () => postgres(sorted),
    () => perStore(sorted, references),
  ]) {
    log('');
    section();
  }
  log('');
  log(
    `peak phases: closed loop over keep-alive connections; paced phases: open loop, requests at exactly even times on a pre-opened pool of keep-alive connections, latency from the scheduled send (bench/lib/open-loop.ts). srv CPU = server process CPU time / wall time (200% = both cores); CPU µs/order = server process CPU time per order (all its threads; PostgreSQL's own processes apart), the figure least disturbed by other load on the machine; disk KB/order = bytes the server process wrote to storage per order (PostgreSQL's writes are its own).`,
  );
}
