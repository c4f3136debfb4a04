import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../store/postgres/postgres-database.js';
import { createTestDatabase, requirePostgres } from '../store/test-support/postgres-test-database.js';
import { roleLease } from './role-lease.js';
import { SequencerLease } from './sequencer-lease.js';

await requirePostgres();
const database = await createTestDatabase();
afterAll(() => database.drop());

describe('the projector and chain leases', () => {
  it('are held apart from each other and from the sequencer’s, each with epochs of its own in role_leases', async () => {
    const db = await openPostgres({ url: await database.schema(), poolSize: 2 });
    const clients = await Promise.all(Array.from({ length: 5 }, () => db.connect()));
    const [c0, c1, c2, c3, c4] = clients as [pg.Client, pg.Client, pg.Client, pg.Client, pg.Client];
    try {
      // One node of each role at once: none waits for another role's lease.
      expect(await new SequencerLease({ client: c0, node: 's' }).acquire()).toBe(1);
      const projector = roleLease({ role: 'projector', client: c1, node: 'p1', tryEveryMs: 50 });
      expect(await projector.acquire()).toBe(1);
      expect(await roleLease({ role: 'chain', client: c2, node: 'c1' }).acquire()).toBe(1);
      // A second projector stands by until the first one's session is gone, then leads at epoch 2.
      const standby = roleLease({ role: 'projector', client: c3, node: 'p2', tryEveryMs: 50 });
      const won = standby.acquire();
      const lost = new Promise<Error>((resolve) => projector.onLost(resolve));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(standby.isHeld).toBe(false);
      await db.pool.query('SELECT pg_terminate_backend($1)', [await projector.backendPid()]);
      expect(await won).toBe(2);
      await expect(lost).resolves.toBeInstanceOf(Error);
      const rows = (await db.pool.query('SELECT role, epoch, node FROM role_leases ORDER BY role')).rows;
      expect(rows).toEqual([
        { role: 'chain', epoch: 1, node: 'c1' },
        { role: 'projector', epoch: 2, node: 'p2' },
      ]);
      expect((await db.pool.query('SELECT epoch FROM sequencer_leader')).rows).toEqual([{ epoch: 1 }]);
      // Released, the projector's lease is free at once for the next holder, at the next epoch.
      await standby.release();
      expect(await roleLease({ role: 'projector', client: c4, node: 'p3' }).acquire()).toBe(3);
    } finally {
      for (const client of clients) await client.end().catch(() => {});
      await db.close();
    }
  });
});
