import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { MultisigRecord } from '../../chain/multisig-store.js';
import { roleLease } from '../../cluster/role-lease.js';
import type { ProjectionWrites } from '../projection-store.js';
import { createTestDatabase, requirePostgres } from '../test-support/postgres-test-database.js';
import { fenceStatement, LEASE_FENCED_SQLSTATE, LeaseFenced } from './lease-fence.js';
import { PostgresChainStore } from './postgres-chain-store.js';
import { openPostgres, type PostgresDatabase } from './postgres-database.js';
import { PostgresMultisigStore } from './postgres-multisig-store.js';
import { PostgresProjectionStore } from './postgres-projection-store.js';

await requirePostgres();
const database = await createTestDatabase();
afterAll(() => database.drop());

/** A projection that moves the cursor to `cursor` and nothing else. */
const moveCursor = (cursor: number): ProjectionWrites => ({
  cursor,
  at: 1_700_000_000_000,
  orders: [],
  trades: [],
  fills: [],
  refunds: [],
  failedFills: [],
  balances: new Map(),
  owed: new Map(),
  positions: [],
  markets: new Map(),
  resolutions: [],
  payouts: [],
  paid: [],
  locks: [],
  outstanding: [],
  block: null,
});

const cursorOf = async (db: PostgresDatabase) =>
  Number((await db.pool.query('SELECT seq FROM projector_cursor')).rows[0].seq);

/**
 * A role's lease taken by a successor: the first holder's lease session is ended (as a partition from it
 * would, unnoticed by the writer under test) and a second holder wins the lock and bumps the epoch.
 */
async function takenOver(db: PostgresDatabase, role: 'projector' | 'chain', clients: pg.Client[]) {
  const held = await db.connect();
  clients.push(held);
  const first = roleLease({ role, client: held, node: 'first', tryEveryMs: 20 });
  const epoch = await first.acquire();
  return {
    epoch,
    async takeOver() {
      await db.pool.query('SELECT pg_terminate_backend($1)', [await first.backendPid()]);
      const client = await db.connect();
      clients.push(client);
      const successor = await roleLease({ role, client, node: 'second', tryEveryMs: 20 }).acquire();
      return successor;
    },
  };
}

describe('the lease fence (role_lease_fence)', () => {
  it('passes the epoch that holds the lease, and refuses an older one or a role without a lease (OBF01)', async () => {
    const db = await openPostgres({ url: await database.schema(), poolSize: 2 });
    const clients: pg.Client[] = [];
    try {
      const run = (role: string, epoch: number) =>
        db.pool.query(fenceStatement({ role, epoch }).text, fenceStatement({ role, epoch }).values);
      await expect(run('projector', 1)).rejects.toMatchObject({ code: LEASE_FENCED_SQLSTATE });
      const lease = await takenOver(db, 'projector', clients);
      expect(lease.epoch).toBe(1);
      await run('projector', 1);
      expect(await lease.takeOver()).toBe(2);
      await expect(run('projector', 1)).rejects.toMatchObject({
        code: LEASE_FENCED_SQLSTATE,
        message: 'the projector lease of epoch 1 was taken: epoch 2',
      });
      await run('projector', 2);
      // Each role's epoch is its own.
      await expect(run('chain', 2)).rejects.toMatchObject({ code: LEASE_FENCED_SQLSTATE });
    } finally {
      for (const client of clients) await client.end().catch(() => {});
      await db.close();
    }
  });

  it('orders a write in flight before the successor’s bump, which waits for it; nothing after the bump commits', async () => {
    const db = await openPostgres({ url: await database.schema(), poolSize: 3 });
    const clients: pg.Client[] = [];
    const writer = await db.connect();
    clients.push(writer);
    try {
      const lease = await takenOver(db, 'projector', clients);
      // A projection of epoch 1 under way: the fence passed, its transaction still open.
      await writer.query('BEGIN');
      await writer.query(fenceStatement({ role: 'projector', epoch: lease.epoch }).text, [
        'projector',
        lease.epoch,
      ]);
      await writer.query('UPDATE projector_cursor SET seq = 5 WHERE id = 1');
      let bumped = false;
      const successor = lease.takeOver().then((epoch) => {
        bumped = true;
        return epoch;
      });
      // The bump waits on the row the write holds FOR SHARE.
      for (;;) {
        const { rows } = await db.pool.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO role_leases%'",
        );
        if (rows[0].n === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(bumped).toBe(false);
      await writer.query('COMMIT');
      expect(await successor).toBe(2);
      expect(await cursorOf(db)).toBe(5);
      // After the bump, the former holder's next write is refused and rolled back.
      const store = await PostgresProjectionStore.open(db, { fence: { role: 'projector', epoch: 1 } });
      try {
        await expect(store.write(moveCursor(6))).rejects.toBeInstanceOf(LeaseFenced);
        expect(await cursorOf(db)).toBe(5);
      } finally {
        await store.close();
      }
    } finally {
      for (const client of clients) await client.end().catch(() => {});
      await db.close();
    }
  });
});

describe('fenced stores', () => {
  it('a projector whose lease was taken commits no projection (rows unchanged), is told once, and sends nothing more', async () => {
    const db = await openPostgres({ url: await database.schema(), poolSize: 2 });
    const clients: pg.Client[] = [];
    const fenced: LeaseFenced[] = [];
    const lease = await takenOver(db, 'projector', clients);
    const mine = await PostgresProjectionStore.open(db, {
      fence: { role: 'projector', epoch: lease.epoch, onFenced: (error) => void fenced.push(error) },
    });
    let successor: PostgresProjectionStore | null = null;
    try {
      await mine.write(moveCursor(3));
      expect(await cursorOf(db)).toBe(3);
      const epoch = await lease.takeOver();
      await expect(mine.write(moveCursor(4))).rejects.toThrow('the projector lease of epoch 1 was taken');
      await expect(mine.write(moveCursor(5))).rejects.toBeInstanceOf(LeaseFenced);
      expect(fenced).toHaveLength(1);
      expect(fenced[0]).toMatchObject({ role: 'projector', epoch: 1 });
      expect(await cursorOf(db)).toBe(3);
      // The successor's projections commit under its epoch.
      successor = await PostgresProjectionStore.open(db, { fence: { role: 'projector', epoch } });
      await successor.write(moveCursor(4));
      expect(await cursorOf(db)).toBe(4);
    } finally {
      await mine.close();
      await successor?.close();
      for (const client of clients) await client.end().catch(() => {});
      await db.close();
    }
  });

  it('a chain node whose lease was taken records nothing in the chain or multisig stores', async () => {
    const db = await openPostgres({ url: await database.schema(), poolSize: 2 });
    const clients: pg.Client[] = [];
    const fenced: LeaseFenced[] = [];
    const lease = await takenOver(db, 'chain', clients);
    const fence = {
      role: 'chain',
      epoch: lease.epoch,
      onFenced: (error: LeaseFenced) => void fenced.push(error),
    };
    const chain = await PostgresChainStore.open(db, { fence });
    const multisig = new PostgresMultisigStore(db.pool, { fence });
    const confirmation = (owner: string) => ({
      safeTxHash: `0x${'ab'.repeat(32)}` as const,
      owner: owner as `0x${string}`,
      signature: '0x01' as const,
      createdAt: 1,
    });
    const meta = async () =>
      (await db.pool.query('SELECT key, value FROM chain_meta ORDER BY key')).rows as unknown[];
    const record = {
      safeTxHash: confirmation('0x01').safeTxHash,
      safe: '0x00000000000000000000000000000000000000bb' as const,
      nonce: 0,
      requiredThreshold: 1,
      transaction: {} as MultisigRecord['transaction'],
      status: 'pending' as const,
      submissionTxHash: null,
      executionTxHash: null,
      failure: null,
      createdAt: 1,
      updatedAt: 1,
    };
    try {
      await chain.putMeta(new Map([['k', '1']]));
      await multisig.putReplacingAtNonce(record);
      expect(await multisig.addConfirmation(confirmation('0x01'))).toBe(true);
      await lease.takeOver();
      await expect(chain.putMeta(new Map([['k', '2']]))).rejects.toBeInstanceOf(LeaseFenced);
      await expect(
        chain.addPending([], { balances: new Map([['0x00000000000000000000000000000000000000aa', 5n]]) }),
      ).rejects.toBeInstanceOf(LeaseFenced);
      await expect(multisig.addConfirmation(confirmation('0x02'))).rejects.toBeInstanceOf(LeaseFenced);
      await expect(multisig.update(record.safeTxHash, { status: 'failed' })).rejects.toBeInstanceOf(
        LeaseFenced,
      );
      await expect(multisig.putReplacingAtNonce({ ...record, updatedAt: 2 })).rejects.toBeInstanceOf(
        LeaseFenced,
      );
      expect(await multisig.get(record.safeTxHash)).toMatchObject({ status: 'pending', updatedAt: 1 });
      // One report per store, however many writes it refused.
      expect(fenced.map((e) => e.role)).toEqual(['chain', 'chain']);
      expect(await meta()).toEqual([{ key: 'k', value: '1' }]);
      expect((await db.pool.query('SELECT count(*)::int AS n FROM chain_balances')).rows[0].n).toBe(0);
      expect(
        (await db.pool.query('SELECT count(*)::int AS n FROM chain_multisig_confirmations')).rows[0].n,
      ).toBe(1);
    } finally {
      await chain.close();
      for (const client of clients) await client.end().catch(() => {});
      await db.close();
    }
  });
});
