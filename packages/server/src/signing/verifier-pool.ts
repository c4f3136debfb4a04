import type { Worker } from 'node:worker_threads';
import type { OrderDomain } from '@oddsbook/protocol';
import { spawnWorker } from '../lib/spawn-worker.js';
import { createOrderVerifier, type VerifyResult, type WireOrder } from './order-verifier.js';
import { decodeReply, encodeRequest, STOP } from './verifier-wire.js';

export type VerifyItem = { order: WireOrder; signature: string };

export type VerifierPoolOptions = {
  domain: OrderDomain;
  /** Worker threads; 0 verifies in-thread (synchronously, still behind the same async API). */
  size: number;
  /** Calls are gathered until the end of the current I/O phase, up to this many items per message. */
  maxBatch?: number;
  /**
   * The first call of an event-loop turn with at most this many items, while the pool is idle (no batch
   * on a worker, none gathering), is verified in-thread at once: about 75 µs per signature against a
   * round trip to a sleeping worker of 0.3-0.7 ms. Under load the workers are busy and every call goes to
   * them. Default 0 (never).
   */
  inlineWhenIdle?: number;
  /** Called when a worker dies; its in-flight batches are re-run in-thread and it is not replaced. */
  onWorkerError?: (error: unknown) => void;
  /**
   * Items waiting for a worker or on one at most (default unbounded). A call that would go past it is
   * refused whole with `VerifierBusy` at once, rather than queueing work nobody will wait for.
   */
  maxPending?: number;
};

/** The pool already holds `maxPending` items: the caller should shed the request (503), not wait. */
export class VerifierBusy extends Error {
  override name = 'VerifierBusy';
}

export type VerifierPool = {
  /** Live worker threads (0 after close, or when every worker died). */
  readonly size: number;
  verify(item: VerifyItem): Promise<VerifyResult>;
  verifyBatch(items: readonly VerifyItem[]): Promise<VerifyResult[]>;
  /** The in-thread fallback, for callers that need an answer now. */
  verifySync(item: VerifyItem): VerifyResult;
  /** The order id (EIP-712 digest) alone, in-thread: a hash, no signature recovery. Null when malformed. */
  orderId(order: WireOrder): `0x${string}` | null;
  /** Items verified so far on worker threads and in-thread. */
  stats(): { onWorkers: number; inThread: number };
  /** Items gathered for or on the workers, not yet answered. */
  readonly pending: number;
  /** Whether `pending` has reached `maxPending`: a new call would be refused. */
  readonly saturated: boolean;
  close(): Promise<void>;
};

type Job = { id: number; items: readonly VerifyItem[]; resolve: (results: VerifyResult[]) => void };
type Slot = { worker: Worker; exited: Promise<void>; inFlight: Map<number, Job>; load: number };

/** How long `close` lets a worker finish its batches before terminating it anyway. */
const STOP_TIMEOUT_MS = 5_000;

/**
 * Stops a worker between batches: a thread terminated inside a native keccak or libsecp256k1 call aborts
 * the whole process. It finishes what was posted before, then exits; terminate is only the fallback.
 */
async function stopWorker(slot: Slot): Promise<void> {
  slot.worker.ref();
  slot.worker.postMessage(STOP);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), STOP_TIMEOUT_MS);
  });
  const outcome = await Promise.race([slot.exited, late]);
  clearTimeout(timer);
  if (outcome === 'late') await slot.worker.terminate();
}

export function createVerifierPool(options: VerifierPoolOptions): VerifierPool {
  const local = createOrderVerifier(options.domain);
  const maxBatch = options.maxBatch ?? 128;
  const inlineWhenIdle = options.inlineWhenIdle ?? 0;
  const maxPending = options.maxPending ?? Number.POSITIVE_INFINITY;
  let pending = 0;
  const slots: Slot[] = [];
  let nextJobId = 1;
  let closed = false;
  let onWorkers = 0;
  let inThread = 0;

  const runLocal = (items: readonly VerifyItem[]): VerifyResult[] => {
    inThread += items.length;
    return items.map((item) => local.verify(item.order, item.signature));
  };

  function retire(slot: Slot, error?: unknown): void {
    const index = slots.indexOf(slot);
    if (index < 0) return;
    slots.splice(index, 1);
    if (error !== undefined) options.onWorkerError?.(error);
    for (const job of slot.inFlight.values()) job.resolve(runLocal(job.items));
    slot.inFlight.clear();
  }

  for (let i = 0; i < options.size; i++) {
    const worker = spawnWorker(import.meta.url, 'verifier-worker', { domain: options.domain });
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const slot: Slot = { worker, exited, inFlight: new Map(), load: 0 };
    worker.on('message', (message: string) => {
      const reply = decodeReply(message);
      const job = slot.inFlight.get(reply.id);
      if (!job) return;
      slot.inFlight.delete(reply.id);
      slot.load -= job.items.length;
      onWorkers += job.items.length;
      job.resolve(reply.results);
    });
    worker.on('error', (error) => retire(slot, error));
    worker.on('exit', (code) => {
      if (!closed) retire(slot, new Error(`verifier worker exited with code ${code}`));
    });
    worker.unref();
    slots.push(slot);
  }

  function dispatch(items: readonly VerifyItem[]): Promise<VerifyResult[]> {
    if (items.length === 0) return Promise.resolve([]);
    if (slots.length === 0) return Promise.resolve(runLocal(items));
    let slot = slots[0]!;
    for (const s of slots) if (s.load < slot.load) slot = s;
    return new Promise((resolve) => {
      const id = nextJobId++;
      slot.inFlight.set(id, { id, items, resolve });
      slot.load += items.length;
      // A busy pool keeps the process alive only while it has work.
      if (slot.inFlight.size === 1) slot.worker.ref();
      // One string per batch: only the signed fields and the signature travel (verifier-wire.ts).
      slot.worker.postMessage(encodeRequest(id, items));
    }).then((results) => {
      if (slot.inFlight.size === 0) slot.worker.unref();
      return results as VerifyResult[];
    });
  }

  /**
   * Work asked for during one event-loop turn goes out together at the end of the turn's I/O phase
   * (setImmediate), or as soon as `maxBatch` items wait: one message per turn instead of one per request,
   * spread over the workers.
   */
  type Part = { start: number; count: number; resolve: (results: VerifyResult[]) => void };
  let gathering: { items: VerifyItem[]; parts: Part[] } | null = null;
  function flush(): void {
    const batch = gathering;
    gathering = null;
    if (!batch) return;
    void dispatchSpread(batch.items).then((results) => {
      for (const part of batch.parts) {
        part.resolve(
          part.count === results.length ? results : results.slice(part.start, part.start + part.count),
        );
      }
    });
  }
  function dispatchSpread(items: readonly VerifyItem[]): Promise<VerifyResult[]> {
    if (slots.length <= 1 || items.length < 2) return dispatch(items);
    const parts: Promise<VerifyResult[]>[] = [];
    const step = Math.ceil(items.length / slots.length);
    for (let i = 0; i < items.length; i += step) parts.push(dispatch(items.slice(i, i + step)));
    return Promise.all(parts).then((chunks) => chunks.flat());
  }
  let inlinedThisTurn = false;
  const endTurn = () => {
    inlinedThisTurn = false;
  };
  /** Whether a call of `count` items is verified in-thread now (see `inlineWhenIdle`). */
  function inline(count: number): boolean {
    if (slots.length === 0) return true;
    if (count > inlineWhenIdle || inlinedThisTurn || gathering !== null) return false;
    for (const slot of slots) if (slot.inFlight.size > 0) return false;
    inlinedThisTurn = true;
    setImmediate(endTurn);
    return true;
  }
  function enqueue(
    items: readonly VerifyItem[],
    resolve: (results: VerifyResult[]) => void,
    reject: (error: Error) => void,
  ): void {
    if (pending + items.length > maxPending) {
      reject(new VerifierBusy(`${pending} signatures already wait for a check`));
      return;
    }
    pending += items.length;
    const done = resolve;
    resolve = (results) => {
      pending -= items.length;
      done(results);
    };
    if (!gathering) {
      gathering = { items: [], parts: [] };
      setImmediate(flush);
    }
    gathering.parts.push({ start: gathering.items.length, count: items.length, resolve });
    for (const item of items) gathering.items.push(item);
    if (gathering.items.length >= maxBatch) flush();
  }

  return {
    get size() {
      return slots.length;
    },
    get pending() {
      return pending;
    },
    get saturated() {
      return pending >= maxPending;
    },
    verify(item) {
      if (inline(1)) return Promise.resolve(runLocal([item])[0]!);
      return new Promise((resolve, reject) => enqueue([item], (results) => resolve(results[0]!), reject));
    },
    verifyBatch(items) {
      if (items.length === 0) return Promise.resolve([]);
      if (inline(items.length)) return Promise.resolve(runLocal(items));
      return new Promise((resolve, reject) => enqueue(items, resolve, reject));
    },
    verifySync(item) {
      return runLocal([item])[0]!;
    },
    orderId(order) {
      return local.orderId(order);
    },
    stats() {
      return { onWorkers, inThread };
    },
    async close() {
      closed = true;
      const live = [...slots];
      // In-flight batches are answered in-thread now, and so is work gathered this turn (no workers left).
      for (const slot of live) retire(slot);
      flush();
      await Promise.all(live.map(stopWorker));
    },
  };
}
