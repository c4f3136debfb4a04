import { Buffer } from 'node:buffer';

/** Deterministic PRNG (mulberry32) so every run measures the same stream. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HEX = Buffer.from('0123456789abcdef', 'latin1');
const idBuffer = Buffer.alloc(66);
idBuffer[0] = 0x30;
idBuffer[1] = 0x78;

/**
 * The order id with number `n`: a flat 66-character string (`0x` + 64 hex digits that look random),
 * built afresh on every call, as JSON.parse hands a new string to the server for every request.
 */
export function orderIdOf(n: number): string {
  let x = (n + 1) >>> 0;
  for (let i = 2; i < 66; i += 8) {
    x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
    x = Math.imul(x ^ (x >>> 13), 0x27d4eb2d) >>> 0;
    x = (x ^ (x >>> 16) ^ n) >>> 0;
    for (let j = 0; j < 8; j++) idBuffer[i + j] = HEX[(x >>> (j * 4)) & 15]!;
  }
  return idBuffer.toString('latin1');
}

/** One operation of a workload, independent of the engine under test; ids are numbers (see orderIdOf). */
export interface Op {
  readonly kind: 'limit' | 'cancel';
  readonly id: number;
  readonly account: number;
  /** 0: betting outcome one (a bid on the outcome-one price), 1: outcome two. */
  readonly side: 0 | 1;
  /** Own-frame tick. */
  readonly tick: number;
  readonly size: bigint;
  readonly tif: 'GTC' | 'IOC';
}

export interface MixOptions {
  readonly ops: number;
  readonly accounts: number;
  readonly seed: number;
  readonly ladderSize: number;
  /** First order id number, so that streams for one engine never reuse ids. */
  readonly firstId: number;
  readonly restingAtStart: number;
}

export interface Workload {
  /** Builds the starting book; applied before timing starts. */
  readonly setup: Op[];
  readonly ops: Op[];
}

/**
 * A realistic exchange mix around an even-money market (mid tick N/2): a book of `restingAtStart`
 * orders within a few ticks of the top is built first (not timed), then 45 % resting inserts near the
 * top, 45 % cancels of an earlier resting order (some already filled: a no-op) and 10 % crossing orders
 * (IOC mostly, some GTC) that take one or several orders, so the book stays about that deep.
 */
export function mixedWorkload(o: MixOptions): Workload {
  const rnd = prng(o.seed);
  const half = o.ladderSize / 2;
  const ops: Op[] = [];
  const live: { id: number; account: number }[] = [];
  let nextId = o.firstId;
  for (let i = 0; i < o.restingAtStart + o.ops; i++) {
    const r = i < o.restingAtStart ? 0 : rnd();
    const account = (rnd() * o.accounts) | 0;
    const side = rnd() < 0.5 ? 0 : 1;
    const size = BigInt(1_000_000 + ((rnd() * 200) | 0) * 100_000);
    if (r < 0.45 || live.length === 0) {
      // Depth concentrates near the top: offsets 0..14 ticks from mid, triangular.
      const off = ((rnd() * 8) | 0) + ((rnd() * 8) | 0);
      const id = nextId++;
      ops.push({ kind: 'limit', id, account, side, tick: half - 1 - off, size, tif: 'GTC' });
      live.push({ id, account });
    } else if (r < 0.9) {
      const j = (rnd() * live.length) | 0;
      const victim = live[j]!;
      live[j] = live[live.length - 1]!;
      live.pop();
      ops.push({
        kind: 'cancel',
        id: victim.id,
        account: victim.account,
        side: 0,
        tick: 0,
        size: 0n,
        tif: 'GTC',
      });
    } else {
      const id = nextId++;
      const tif = rnd() < 0.8 ? 'IOC' : 'GTC';
      const tick = half + 1 + ((rnd() * 4) | 0);
      ops.push({ kind: 'limit', id, account, side, tick, size: size * 3n, tif });
      if (tif === 'GTC') live.push({ id, account });
    }
  }
  return { setup: ops.slice(0, o.restingAtStart), ops: ops.slice(o.restingAtStart) };
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}
