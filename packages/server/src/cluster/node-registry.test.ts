import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../store/postgres/postgres-database.js';
import { createTestDatabase, requirePostgres } from '../store/test-support/postgres-test-database.js';
import { NodeRegistry, type NodeStatus, thisNodeId } from './node-registry.js';

await requirePostgres();
const database = await createTestDatabase();
afterAll(() => database.drop());

/** A clock the test moves; the registries never refresh on their own (an hour apart). */
function manualClock(start = 1_700_000_000_000) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}
const HOUR = 3_600_000;

describe('the node registry (cluster_nodes)', () => {
  it('registers a node, refreshes its state and seq, shows it not alive after missed refreshes, removes it after the grace period, and a clean stop deletes its row', async () => {
    const db = await openPostgres({ url: await database.schema(), poolSize: 2 });
    const clock = manualClock();
    const a: NodeStatus = { state: 'standby', epoch: null, lastSeq: 0 };
    const b: NodeStatus = { state: 'serving', epoch: null, lastSeq: 7 };
    const registries: NodeRegistry[] = [];
    const start = async (node: string, roles: string[], address: string | null, status: NodeStatus) => {
      const registry = await NodeRegistry.start({
        pool: db.pool,
        node,
        roles,
        address,
        status: () => status,
        clock,
        refreshMs: HOUR,
        onError: (error) => {
          throw error;
        },
      });
      registries.push(registry);
      return registry;
    };
    try {
      const seqA = await start('host:1', ['sequencer'], '127.0.0.1:9001', a);
      clock.advance(100);
      const apiB = await start('host:2', ['api'], '127.0.0.1:9002', b);
      expect(await seqA.list()).toEqual([
        {
          node: 'host:1',
          roles: ['sequencer'],
          pid: process.pid,
          address: '127.0.0.1:9001',
          state: 'standby',
          epoch: null,
          lastSeq: 0,
          startedAt: 1_700_000_000_000,
          seenAt: 1_700_000_000_000,
          alive: true,
        },
        {
          node: 'host:2',
          roles: ['api'],
          pid: process.pid,
          address: '127.0.0.1:9002',
          state: 'serving',
          epoch: null,
          lastSeq: 7,
          startedAt: 1_700_000_000_100,
          seenAt: 1_700_000_000_100,
          alive: true,
        },
      ]);

      // The sequencer leads: its next refresh carries it.
      Object.assign(a, { state: 'leader', epoch: 3, lastSeq: 42 });
      clock.advance(1_000);
      await seqA.refresh();
      await apiB.refresh();
      expect(await apiB.list()).toMatchObject([
        { node: 'host:1', state: 'leader', epoch: 3, lastSeq: 42, seenAt: 1_700_000_001_100, alive: true },
        { node: 'host:2', state: 'serving', lastSeq: 7, alive: true },
      ]);

      // host:2 is killed (no more refreshes, its row stays): alive up to 5 s after its last refresh, not after.
      clock.advance(5_000);
      await seqA.refresh();
      expect((await seqA.list()).map((n) => [n.node, n.alive])).toEqual([
        ['host:1', true],
        ['host:2', true],
      ]);
      clock.advance(1);
      await seqA.refresh();
      expect((await seqA.list()).map((n) => [n.node, n.alive])).toEqual([
        ['host:1', true],
        ['host:2', false],
      ]);
      // Shown until a minute after it was last seen; then the next refresh of another node removes it.
      clock.advance(60_000 - 5_001);
      await seqA.refresh();
      expect((await db.pool.query('SELECT node_id FROM cluster_nodes ORDER BY node_id')).rows).toEqual([
        { node_id: 'host:1' },
        { node_id: 'host:2' },
      ]);
      clock.advance(1);
      await seqA.refresh();
      expect((await db.pool.query('SELECT node_id FROM cluster_nodes')).rows).toEqual([
        { node_id: 'host:1' },
      ]);

      // A node stalled past the grace period writes its row again at its next refresh.
      await apiB.refresh();
      expect((await seqA.list()).map((n) => [n.node, n.alive])).toEqual([
        ['host:1', true],
        ['host:2', true],
      ]);
      // Listing also removes what is gone: host:1 stops refreshing, a minute passes, host:2 lists.
      clock.advance(30_000);
      await apiB.refresh();
      clock.advance(30_001);
      expect((await apiB.list()).map((n) => [n.node, n.alive])).toEqual([['host:2', false]]);

      // A clean stop deletes the node's row at once, and it refreshes no more.
      await apiB.stop();
      expect((await db.pool.query('SELECT node_id FROM cluster_nodes')).rows).toEqual([]);
      await apiB.refresh();
      expect((await db.pool.query('SELECT node_id FROM cluster_nodes')).rows).toEqual([]);
    } finally {
      for (const registry of registries) await registry.stop();
      await db.close();
    }
  });

  it('refreshes on its own every refreshMs, and names a node by host and pid by default', async () => {
    const db = await openPostgres({ url: await database.schema(), poolSize: 2 });
    let lastSeq = 0;
    const registry = await NodeRegistry.start({
      pool: db.pool,
      roles: ['sequencer'],
      address: null,
      status: () => ({ state: 'standby', epoch: null, lastSeq }),
      refreshMs: 20,
    });
    try {
      expect(registry.node).toBe(thisNodeId());
      lastSeq = 5;
      await expect.poll(async () => (await registry.list())[0]?.lastSeq, { timeout: 10_000 }).toBe(5);
      expect(await registry.list()).toMatchObject([{ node: thisNodeId(), address: null, alive: true }]);
      await registry.stop();
      expect((await db.pool.query('SELECT node_id FROM cluster_nodes')).rows).toEqual([]);
    } finally {
      await registry.stop();
      await db.close();
    }
  });
});
