import { Worker } from 'node:worker_threads';
import { buildOrderDomain } from '@oddsbook/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOrderVerifier } from './order-verifier.js';
import { makeSignedOrders, type SignedTestOrder } from './test-orders.js';
import { createVerifierPool, VerifierBusy, type VerifierPool } from './verifier-pool.js';

const domain = buildOrderDomain({
  name: 'oddsbook',
  chainId: 4162,
  verifyingContract: '0xa70B8BddF7B752f3756BecCB7710584d47597fC3',
});

describe('verifier pool', () => {
  let orders: SignedTestOrder[];
  let pool: VerifierPool;
  const workerErrors: unknown[] = [];

  beforeAll(async () => {
    orders = await makeSignedOrders(domain, 200, 99);
    pool = createVerifierPool({ domain, size: 2, maxBatch: 32, onWorkerError: (e) => workerErrors.push(e) });
  });
  afterAll(async () => {
    await pool.close();
  });

  it('verifies batches on worker threads with the same results as in-thread', async () => {
    const local = createOrderVerifier(domain);
    const items = orders.map((o) => ({ order: o.order, signature: o.signature }));
    const expected = items.map((i) => local.verify(i.order, i.signature));
    expect(pool.size).toBe(2);
    const results = await pool.verifyBatch(items);
    expect(results).toEqual(expected);
    for (let i = 0; i < orders.length; i++)
      expect(results[i]).toMatchObject({ ok: true, signer: orders[i]!.signer });
    // The work really ran on the workers (loaded from .ts through tsx under vitest).
    expect(workerErrors).toEqual([]);
    expect(pool.size).toBe(2);
    expect(pool.stats()).toEqual({ onWorkers: 200, inThread: 0 });
  });

  it('gathers single verify calls into batches', async () => {
    const results = await Promise.all(orders.slice(0, 50).map((o) => pool.verify(o)));
    for (const [i, r] of results.entries()) expect(r).toMatchObject({ ok: true, signer: orders[i]!.signer });
    const bad = await pool.verify({ order: orders[0]!.order, signature: '0x00' });
    expect(bad).toMatchObject({ ok: false, code: 'INVALID_SIGNATURE' });
  });

  it('refuses a call past maxPending whole and at once, and takes work again as checks finish', async () => {
    const bounded = createVerifierPool({ domain, size: 1, maxPending: 10 });
    try {
      const items = orders.slice(0, 10).map((o) => ({ order: o.order, signature: o.signature }));
      const first = bounded.verifyBatch(items);
      expect(bounded.pending).toBe(10);
      expect(bounded.saturated).toBe(true);
      await expect(bounded.verify(items[0]!)).rejects.toBeInstanceOf(VerifierBusy);
      await expect(bounded.verifyBatch(items.slice(0, 2))).rejects.toThrow(/already wait/);
      expect(bounded.pending).toBe(10);
      for (const [i, r] of (await first).entries())
        expect(r).toMatchObject({ ok: true, signer: orders[i]!.signer });
      expect(bounded.pending).toBe(0);
      expect(bounded.saturated).toBe(false);
      expect(await bounded.verifyBatch(items)).toHaveLength(10);
    } finally {
      await bounded.close();
    }
  });

  it('size 0 is the in-thread fallback', async () => {
    const inThread = createVerifierPool({ domain, size: 0 });
    expect(inThread.size).toBe(0);
    const r = await inThread.verify(orders[3]!);
    expect(r).toMatchObject({ ok: true, signer: orders[3]!.signer });
    expect(inThread.verifySync(orders[3]!)).toEqual(r);
    await inThread.close();
  });

  it('verifies a small call in-thread while the pool is idle, once per event-loop turn', async () => {
    const p = createVerifierPool({ domain, size: 1, inlineWhenIdle: 1 });
    try {
      await p.verifyBatch(orders.slice(0, 2)); // over the inline size: the worker
      expect(p.stats()).toEqual({ onWorkers: 2, inThread: 0 });
      await new Promise((resolve) => setImmediate(resolve));
      const alone = await p.verify(orders[5]!);
      expect(alone).toMatchObject({ ok: true, signer: orders[5]!.signer });
      expect(p.stats()).toEqual({ onWorkers: 2, inThread: 1 });
      await new Promise((resolve) => setImmediate(resolve));
      // Several in one turn (a burst): only the first is in-thread, the rest go to the worker together.
      const burst = await Promise.all(orders.slice(10, 14).map((o) => p.verify(o)));
      expect(burst.every((r) => r.ok)).toBe(true);
      expect(p.stats()).toEqual({ onWorkers: 5, inThread: 2 });
      // A worker busy with a batch: a small call joins the workers instead of blocking this thread.
      await new Promise((resolve) => setImmediate(resolve));
      // (400 checks: about 30 ms on the worker, far longer than the turn in between.)
      const busy = p.verifyBatch(Array.from({ length: 400 }, (_, i) => orders[i % orders.length]!));
      await new Promise((resolve) => setImmediate(resolve));
      const during = p.verify(orders[150]!);
      expect((await busy).every((r) => r.ok) && (await during).ok).toBe(true);
      expect(p.stats()).toEqual({ onWorkers: 406, inThread: 2 });
    } finally {
      await p.close();
    }
  });

  it('closing while a worker is mid-batch answers everything and stops the worker between batches', async () => {
    // A thread terminated inside keccak or libsecp256k1 aborts the process (node-addon-api's fatal error),
    // so close must let the worker finish its batch and exit by itself, never terminate it.
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    try {
      const many = Array.from({ length: 400 }, (_, i) => orders[i % orders.length]!);
      for (let round = 0; round < 3; round++) {
        const p = createVerifierPool({ domain, size: 1 });
        await p.verifyBatch(orders.slice(0, 4)); // the worker is up
        const inFlight = p.verifyBatch(many);
        await new Promise((resolve) => setTimeout(resolve, round));
        const gathered = p.verifyBatch(orders.slice(0, 3));
        await p.close();
        expect((await inFlight).every((r) => r.ok)).toBe(true);
        expect((await gathered).every((r) => r.ok)).toBe(true);
      }
      expect(terminate).not.toHaveBeenCalled();
    } finally {
      terminate.mockRestore();
    }
  });

  it('after close, work still completes in-thread', async () => {
    const p = createVerifierPool({ domain, size: 1 });
    const pending = p.verifyBatch(orders.slice(0, 10));
    await p.close();
    expect(p.size).toBe(0);
    const late = await p.verifyBatch(orders.slice(10, 20));
    expect((await pending).every((r) => r.ok)).toBe(true);
    expect(late.every((r) => r.ok)).toBe(true);
  });
});
