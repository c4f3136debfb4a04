/**
 * Matching engine benchmark: `npm run bench:engine` (node --expose-gc --import tsx bench/engine.ts).
 * Throughput and per-op latency of resting inserts, cancels, IOC sweeps and a realistic mix, heap per
 * resting order at 1 M orders, and the same mix through nodejs-order-book as the peer.
 *
 * Commands are built in batches of 1,024 right before they are applied, with fresh id strings (as the
 * sequencer receives them from the parser); only the apply calls are timed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { OrderBook, Side } from 'nodejs-order-book';
import { Engine, type EngineCommand, type EngineRuleOptions } from '../packages/server/src/engine/index.js';
import { mixedWorkload, type Op, orderIdOf, percentile, prng } from './lib/workload.js';

const N = 800;
const MARKET = `0x${'ab'.repeat(32)}`;
const ACCOUNTS = 1000;
// Account strings come from the API-key cache in the server, one string object per account.
const ACCOUNT_NAMES = Array.from({ length: ACCOUNTS }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
const EXPIRY = 4_000_000_000;
const BATCH = 1024;
const gc = (globalThis as { gc?: () => void }).gc;

function fullGc(): void {
  if (gc === undefined) throw new Error('run with node --expose-gc');
  for (let i = 0; i < 3; i++) gc();
}

let seq = 0;
/** An engine class: this tree's, or another revision's (`versus`). */
type EngineClass = new (options: EngineRuleOptions & { ladderSize: number }) => Engine;

function freshEngine(rules: EngineRuleOptions = {}, Class: EngineClass = Engine): Engine {
  const engine = new Class({ ...rules, ladderSize: N });
  engine.apply({ type: 'openMarket', seq: ++seq, ts: 1, marketHash: MARKET, eventId: '1' });
  for (let i = 0; i < ACCOUNTS; i++) {
    engine.apply({ type: 'credit', seq: ++seq, ts: 1, account: ACCOUNT_NAMES[i]!, amount: 10n ** 18n });
  }
  return engine;
}

function toCommand(engine: Engine, op: Op): EngineCommand {
  const s = ++seq;
  if (op.kind === 'cancel') {
    return {
      type: 'cancel',
      seq: s,
      ts: 2000,
      orderIds: [orderIdOf(op.id)],
      account: ACCOUNT_NAMES[op.account]!,
    };
  }
  return {
    type: 'place',
    seq: s,
    ts: 2000,
    orderId: orderIdOf(op.id),
    account: ACCOUNT_NAMES[op.account]!,
    marketHash: MARKET,
    isBettingOutcomeOne: op.side === 0,
    percentageOdds: engine.ladder.odds[op.tick]!,
    totalBetSize: op.size,
    expiry: EXPIRY,
    timeInForce: op.tif,
  };
}

interface RunResult {
  opsPerSec: number;
  /** Sorted per-op latencies in ns, when asked for. */
  latency: Float64Array;
  fills: number;
}

/**
 * CPU time of this process in ns: throughput is measured per CPU-second so that other work on a shared
 * machine does not distort it (the engine is single-threaded and never waits).
 */
function cpuNs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

/** Applies the ops batch by batch; times either whole batches (throughput) or every op (latency). */
function run(engine: Engine, ops: readonly Op[], perOp: boolean): RunResult {
  const latency = new Float64Array(perOp ? ops.length : 0);
  const batch: EngineCommand[] = new Array(BATCH);
  let ns = 0;
  let fills = 0;
  for (let start = 0; start < ops.length; start += BATCH) {
    const end = Math.min(ops.length, start + BATCH);
    for (let i = start; i < end; i++) batch[i - start] = toCommand(engine, ops[i]!);
    if (perOp) {
      for (let i = start; i < end; i++) {
        const t0 = performance.now();
        const events = engine.apply(batch[i - start]!);
        latency[i] = (performance.now() - t0) * 1e6;
        for (const e of events) if (e.type === 'orderMatched') fills++;
      }
    } else {
      const t0 = cpuNs();
      for (let i = start; i < end; i++) {
        const events = engine.apply(batch[i - start]!);
        for (let k = 0; k < events.length; k++) if (events[k]!.type === 'orderMatched') fills++;
      }
      ns += cpuNs() - t0;
    }
  }
  if (perOp) for (const x of latency) ns += x;
  return { opsPerSec: (ops.length * 1e9) / ns, latency: latency.sort(), fills };
}

function runPeer(setup: readonly Op[], ops: readonly Op[]): number {
  const book = new OrderBook();
  for (const op of setup) {
    book.limit({
      id: orderIdOf(op.id),
      side: op.side === 0 ? Side.BUY : Side.SELL,
      price: op.side === 0 ? op.tick : N - op.tick,
      size: Number(op.size),
    });
  }
  const batch: Op[] = [];
  const ids: string[] = new Array(BATCH);
  let ns = 0;
  for (let start = 0; start < ops.length; start += BATCH) {
    const end = Math.min(ops.length, start + BATCH);
    batch.length = 0;
    for (let i = start; i < end; i++) {
      batch.push(ops[i]!);
      ids[i - start] = orderIdOf(ops[i]!.id);
    }
    const t0 = cpuNs();
    for (let i = 0; i < batch.length; i++) {
      const op = batch[i]!;
      if (op.kind === 'cancel') {
        book.cancel(ids[i]!);
      } else {
        book.limit({
          id: ids[i]!,
          side: op.side === 0 ? Side.BUY : Side.SELL,
          price: op.side === 0 ? op.tick : N - op.tick,
          size: Number(op.size),
          // biome-ignore lint/suspicious/noExplicitAny: the peer does not export its TimeInForce enum
          timeInForce: op.tif as any,
        });
      }
    }
    ns += cpuNs() - t0;
  }
  return (ops.length * 1e9) / ns;
}

const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
const us = (ns: number) => `${(ns / 1000).toFixed(2)} µs`;

function report(name: string, opsPerSec: number, lat: Float64Array, extra = ''): void {
  const p50 = us(percentile(lat, 0.5));
  const p99 = us(percentile(lat, 0.99));
  console.log(`${name.padEnd(30)} ${fmt(opsPerSec).padStart(11)} ops/s   p50 ${p50}   p99 ${p99}${extra}`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

let idCounter = 0;

function restingOps(count: number, seed: number, side?: 0 | 1): Op[] {
  const rnd = prng(seed);
  const ops: Op[] = [];
  for (let i = 0; i < count; i++) {
    const off = ((rnd() * 50) | 0) + ((rnd() * 50) | 0);
    ops.push({
      kind: 'limit',
      id: idCounter++,
      account: 1 + ((rnd() * (ACCOUNTS - 1)) | 0),
      side: side ?? (rnd() < 0.5 ? 0 : 1),
      tick: N / 2 - 1 - off,
      size: BigInt(1_000_000 + ((rnd() * 200) | 0) * 100_000),
      tif: 'GTC',
    });
  }
  return ops;
}

function shuffledCancels(ops: readonly Op[], seed: number): Op[] {
  const rnd = prng(seed);
  const out: Op[] = ops.map((o) => ({ ...o, kind: 'cancel' }));
  for (let i = out.length - 1; i > 0; i--) {
    const j = (rnd() * (i + 1)) | 0;
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function benchInsertsAndCancels(count: number): void {
  const warm = freshEngine();
  const warmOps = restingOps(200_000, 99);
  run(warm, warmOps, false);
  run(warm, shuffledCancels(warmOps, 98), false);
  const inserts = restingOps(count, 11);
  const cancels = shuffledCancels(inserts, 12);
  const a = freshEngine();
  const insertRate = run(a, inserts, false).opsPerSec;
  const cancelRate = run(a, cancels, false).opsPerSec;
  const b = freshEngine();
  const insertLat = run(b, inserts, true).latency;
  const cancelLat = run(b, cancels, true).latency;
  report(`resting insert (${count / 1e6} M)`, insertRate, insertLat);
  report(`cancel (${count / 1e6} M, random)`, cancelRate, cancelLat);
}

function benchSweeps(): void {
  const depth = 200_000;
  const sweeps = 5_000;
  const once = (perOp: boolean): RunResult => {
    const engine = freshEngine();
    run(engine, restingOps(depth, 21, 1), false);
    const takers: Op[] = [];
    for (let i = 0; i < sweeps; i++) {
      // About 20 resting orders' worth of stake, limit deep enough to cross every level.
      takers.push({
        kind: 'limit',
        id: idCounter++,
        account: 0,
        side: 0,
        tick: 460,
        size: 230_000_000n,
        tif: 'IOC',
      });
    }
    return run(engine, takers, perOp);
  };
  once(false);
  const { opsPerSec, fills } = once(false);
  const { latency } = once(true);
  const perSweep = fills / sweeps;
  report(
    'IOC sweep (200 k deep)',
    opsPerSec,
    latency,
    `   ${perSweep.toFixed(1)} fills/sweep, ${fmt(opsPerSec * perSweep)} fills/s`,
  );
}

function benchMixed(): { engine: number; peer: number } {
  const common = { accounts: ACCOUNTS, ladderSize: N, restingAtStart: 20_000 };
  const { setup, ops } = mixedWorkload({ ...common, ops: 1_000_000, seed: 1, firstId: 50_000_000 });
  const warm = mixedWorkload({ ...common, ops: 200_000, seed: 2, firstId: 60_000_000 });
  const prepared = (w: { setup: Op[] }) => {
    const engine = freshEngine();
    run(engine, w.setup, false);
    return engine;
  };
  run(prepared(warm), warm.ops, false);
  const runs = [0, 1, 2].map(() => run(prepared({ setup }), ops, false));
  const latEngine = prepared({ setup });
  const lat = run(latEngine, ops, true);
  const engineRate = median(runs.map((r) => r.opsPerSec));
  report(
    'mixed (1 M ops, 20 k deep)',
    engineRate,
    lat.latency,
    `   ${fmt(lat.fills)} fills, ${fmt(latEngine.restingOrderCount)} resting at end`,
  );
  runPeer(warm.setup, warm.ops);
  const peerRate = median([runPeer(setup, ops), runPeer(setup, ops), runPeer(setup, ops)]);
  console.log(`${'peer nodejs-order-book mixed'.padEnd(30)} ${fmt(peerRate).padStart(11)} ops/s`);
  return { engine: engineRate, peer: peerRate };
}

/** The engine rules whose cost `benchRule` measures, by the name it is asked for on the command line. */
const RULES = {
  'capital-efficiency': { label: 'capital efficiency', option: 'capitalEfficiency' },
  'honest-liquidity': { label: 'honest liquidity', option: 'honestLiquidity' },
} as const;

/**
 * The mixed workload on two engines, `a` and `b`, in alternating runs in one process (runs minutes apart
 * move by half on this shared machine; adjacent ones much less); prints each pair and the median b/a.
 */
function benchPairs(
  label: string,
  a: [string, () => Engine],
  b: [string, () => Engine],
  pairs: number,
): void {
  const common = { accounts: ACCOUNTS, ladderSize: N, restingAtStart: 20_000 };
  const { setup, ops } = mixedWorkload({ ...common, ops: 1_000_000, seed: 1, firstId: 50_000_000 });
  const timed = (make: () => Engine) => {
    const engine = make();
    run(engine, setup, false);
    fullGc();
    return run(engine, ops, false).opsPerSec;
  };
  timed(a[1]);
  timed(b[1]);
  const ratios: number[] = [];
  for (let i = 0; i < pairs; i++) {
    // Which goes first alternates, so that a drift of the machine favours neither.
    let x: number;
    let y: number;
    if (i % 2 === 0) {
      x = timed(a[1]);
      y = timed(b[1]);
    } else {
      y = timed(b[1]);
      x = timed(a[1]);
    }
    ratios.push(y / x);
    console.log(
      `mixed, ${a[0]} ${fmt(x).padStart(11)} ops/s, ${b[0]} ${fmt(y).padStart(11)} ops/s: ${(y / x).toFixed(3)}`,
    );
  }
  // The second run of a pair is slower on this machine whichever engine it is (about 10 %, measured with
  // the same engine on both sides): with as many pairs of each order, the geometric mean cancels it out.
  const geometric = Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length);
  console.log(
    `${label}: ${b[0]}/${a[0]} geometric mean ${geometric.toFixed(3)} over ${pairs} pairs (median ${median(ratios).toFixed(3)})`,
  );
}

/** What a rule costs the hot path: the same engine with it off and on. Rich accounts: nothing is refused. */
function benchRule(name: keyof typeof RULES, pairs: number): void {
  const { label, option } = RULES[name];
  benchPairs(
    label,
    ['off', () => freshEngine({ [option]: false })],
    ['on', () => freshEngine({ [option]: true })],
    pairs,
  );
}

/**
 * This tree's engine against the engine of git revision `rev` (its `packages/server/src/engine`, extracted
 * beside this one, under `packages/server/.versus/`, so that it is compiled with the same tsconfig, and
 * imported from there): what a change costs, before and after, in one process.
 */
async function benchVersus(rev: string, pairs: number): Promise<void> {
  const root = fileURLToPath(new URL('../packages/server/.versus/', import.meta.url));
  mkdirSync(root, { recursive: true });
  const dir = mkdtempSync(root);
  execFileSync('sh', [
    '-c',
    'git archive "$1" packages/server/src/engine | tar -x --strip-components=3 -C "$2"',
    'sh',
    rev,
    dir,
  ]);
  try {
    const entry = join(dir, 'engine/index.ts');
    const { Engine: Before } = (await import(pathToFileURL(entry).href)) as { Engine: EngineClass };
    benchPairs(
      `this tree vs ${rev}`,
      [rev, () => freshEngine({}, Before)],
      ['now', () => freshEngine()],
      pairs,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function benchMemory(count: number): void {
  const engine = freshEngine();
  const rnd = prng(32);
  const odds = engine.ladder.odds;
  // Order records live in ArrayBuffers, which V8 keeps outside the JS heap: count both.
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  fullGc();
  const before = used();
  for (let i = 0; i < count; i++) {
    const off = ((rnd() * 50) | 0) + ((rnd() * 50) | 0);
    engine.apply({
      type: 'place',
      seq: ++seq,
      ts: 2000,
      orderId: orderIdOf(idCounter++),
      account: ACCOUNT_NAMES[(rnd() * ACCOUNTS) | 0]!,
      marketHash: MARKET,
      isBettingOutcomeOne: rnd() < 0.5,
      percentageOdds: odds[N / 2 - 1 - off]!,
      totalBetSize: BigInt(1_000_000 + ((rnd() * 200) | 0) * 100_000),
      expiry: EXPIRY + ((rnd() * 3600) | 0),
      timeInForce: 'GTC',
    });
  }
  fullGc();
  const after = used();
  if (engine.restingOrderCount !== count) throw new Error('orders did not all rest');
  const perOrder = ((after - before) / count).toFixed(0);
  console.log(
    `${'memory per resting order'.padEnd(30)} ${perOrder.padStart(11)} bytes   (${count / 1e6} M resting, 66-char ids; heap + array buffers +${fmt((after - before) / 2 ** 20)} MiB)`,
  );
}

console.log(
  `oddsbook engine benchmark: node ${process.version}, ladder N = ${N}, ${ACCOUNTS} accounts, bigint money, batches of ${BATCH}`,
);
// Optional argument: run one part only (inserts, sweeps, memory, mixed), e.g. while profiling; or
// `capital-efficiency` or `honest-liquidity`, which only compare the mixed workload with the rule off and on;
// or `versus <git revision>`, this tree's engine against that revision's on the mixed workload.
const only = process.argv[2];
if (only === undefined || only === 'inserts') benchInsertsAndCancels(1_000_000);
fullGc();
if (only === undefined || only === 'sweeps') benchSweeps();
fullGc();
if (only === undefined || only === 'memory') benchMemory(1_000_000);
fullGc();
if (only === 'capital-efficiency' || only === 'honest-liquidity') benchRule(only, 10);
if (only === 'versus') await benchVersus(process.argv[3] ?? 'HEAD', 10);
if (only === undefined || only === 'mixed') {
  const mixed = benchMixed();
  const ratio = (mixed.engine / mixed.peer).toFixed(1);
  console.log(
    `engine: ${Math.round(mixed.engine)} ops/s mixed, peer nodejs-order-book ${Math.round(mixed.peer)} ops/s, ratio ${ratio}`,
  );
}
