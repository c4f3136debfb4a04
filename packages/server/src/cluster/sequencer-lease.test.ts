import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../store/postgres/postgres-database.js';
import { createTestDatabase, requirePostgres } from '../store/test-support/postgres-test-database.js';
import { SequencerLease } from './sequencer-lease.js';

await requirePostgres();
const database = await createTestDatabase();
afterAll(() => database.drop());

const settledWithin = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe('the sequencer lease', () => {
  it('is won by one candidate; the other wins once the winner’s connection dies, with the next epoch', async () => {
    const db = await openPostgres({ url: await database.schema(), poolSize: 2 });
    const clients: pg.Client[] = [];
    const lease = async (node: string) => {
      const client = await db.connect();
      clients.push(client);
      return {
        client,
        lease: new SequencerLease({ client, node, clock: { now: () => 1_000 }, tryEveryMs: 100 }),
      };
    };
    try {
      const a = await lease('a');
      const b = await lease('b');
      const lost: Error[] = [];
      a.lease.onLost((error) => lost.push(error));
      expect(await a.lease.acquire()).toBe(1);
      const bWon = b.lease.acquire();
      // b keeps trying (every 100 ms here) and does not win while a's session lives.
      expect(await settledWithin(bWon, 1_000)).toBe(false);
      expect(a.lease.isHeld).toBe(true);
      expect(b.lease.isHeld).toBe(false);
      expect((await db.pool.query('SELECT epoch, node FROM sequencer_leader')).rows).toEqual([
        { epoch: 1, node: 'a' },
      ]);

      // a's process dies: its socket closes without a goodbye (as at a SIGKILL).
      const started = performance.now();
      (a.client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      expect(await bWon).toBe(2);
      console.log(
        `lease taken over ${Math.round(performance.now() - started)} ms after the winner's socket died`,
      );
      expect(lost).toHaveLength(1);
      expect(a.lease.isHeld).toBe(false);
      expect((await db.pool.query('SELECT epoch, node FROM sequencer_leader')).rows).toEqual([
        { epoch: 2, node: 'b' },
      ]);

      // Terminating b's backend (the server's view of a lost session) also frees it for a third.
      const c = await lease('c');
      const bLost = new Promise<Error>((resolve) => b.lease.onLost(resolve));
      const cWon = c.lease.acquire();
      await db.pool.query('SELECT pg_terminate_backend($1)', [await b.lease.backendPid()]).catch(() => {});
      expect(await cWon).toBe(3);
      await expect(bLost).resolves.toBeInstanceOf(Error);
      await c.lease.release();
      // A released lease is free at once.
      const d = await lease('d');
      expect(await d.lease.acquire()).toBe(4);
      await d.lease.release();
    } finally {
      for (const client of clients) await client.end().catch(() => {});
      await db.close();
    }
  });
  it('gives the lock back without taking an epoch when the winner is unfit to lead', async () => {
    const db = await openPostgres({ url: await database.schema(), poolSize: 2 });
    const a = await db.connect();
    const b = await db.connect();
    try {
      const unfit = new SequencerLease({ client: a, node: 'a', key: '5' });
      const broken = new Error('the standby state is broken');
      await expect(unfit.acquire(() => broken)).rejects.toBe(broken);
      expect(unfit.isHeld).toBe(false);
      // Free at once, and the epoch is the first leader's.
      expect(await new SequencerLease({ client: b, node: 'b', key: '5', tryEveryMs: 10_000 }).acquire()).toBe(
        1,
      );
    } finally {
      await a.end();
      await b.end();
      await db.close();
    }
  });
});
