import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeRegistry, type NodeStatus, thisNodeId } from '../../src/cluster/node-registry.js';
import { buildNodeApp } from '../../src/http/node-app.js';
import { openPostgres } from '../../src/store/postgres/postgres-database.js';
import { createTestDatabase, requirePostgres } from '../../src/store/test-support/postgres-test-database.js';
import {
  ADMIN_TOKEN,
  removeDataDir,
  startTestExchange,
  type TestExchange,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, postOrders, signOrder, USDC } from '../helpers/trading.js';

/** The value of one sample of a Prometheus text exposition. */
function sample(body: string, name: string, labels = ''): number {
  const line = body.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  if (!line) throw new Error(`no sample ${name}${labels}`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /admin/cluster in the single process (--role all)', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('needs the operator token', async () => {
    for (const headers of [{}, { 'x-admin-token': 'not-the-operator-token-at-all' }]) {
      const response = await t.app.inject({ method: 'GET', url: '/admin/cluster', headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        message: 'BAD_AUTH',
        error: 'Unauthorized',
        statusCode: 401,
        code: 'BAD_AUTH',
      });
    }
  });

  it('answers this one node: roles all, leader, its last seq and its address', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t, 100n * USDC);
    await postOrders(t, maker, [await signOrder(t, maker, { marketHash, tick: 400, size: 10n * USDC })]);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const response = await t.app.inject({ method: 'GET', url: '/admin/cluster', headers: t.admin });
    expect(response.statusCode).toBe(200);
    const { status, data } = response.json();
    expect(status).toBe('success');
    expect(data).toEqual([
      {
        node: thisNodeId(),
        roles: ['all'],
        pid: process.pid,
        address: new URL(address).host,
        state: 'leader',
        epoch: null,
        lastSeq: t.exchange.trading.sequencer.lastSeq,
        startedAt: expect.any(String),
        seenAt: expect.any(String),
        alive: true,
      },
    ]);
    expect(data[0].lastSeq).toBeGreaterThan(0);
    expect(Date.parse(data[0].seenAt)).toBeGreaterThanOrEqual(Date.parse(data[0].startedAt));
  });
});

describe('a node without the API (buildNodeApp) with the registry on PostgreSQL', () => {
  it('lists the registered nodes behind the operator token, and answers /health and /metrics with its state', async () => {
    await requirePostgres();
    const database = await createTestDatabase();
    const db = await openPostgres({ url: await database.schema(), poolSize: 2 });
    const sequencer: NodeStatus = { state: 'standby', epoch: null, lastSeq: 12 };
    const registries: NodeRegistry[] = [];
    const register = async (node: string, roles: string[], address: string, status: NodeStatus) => {
      const registry = await NodeRegistry.start({
        pool: db.pool,
        node,
        roles,
        address,
        status: () => status,
        refreshMs: 3_600_000,
      });
      registries.push(registry);
      return registry;
    };
    const { app } = await buildNodeApp({
      roles: ['sequencer'],
      status: () => sequencer,
      nodes: { list: () => registries[0]!.list() },
      adminToken: ADMIN_TOKEN,
      clock: { now: () => Date.now() },
    });
    try {
      const seq = await register('host-a:11', ['sequencer'], '10.0.0.1:8080', sequencer);
      await register('host-b:22', ['api'], '10.0.0.2:8080', { state: 'serving', epoch: null, lastSeq: 9 });
      const url = '/admin/cluster';
      const refused = await app.inject({ method: 'GET', url });
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toMatchObject({ statusCode: 401, code: 'BAD_AUTH' });
      const listed = await app.inject({ method: 'GET', url, headers: { 'x-admin-token': ADMIN_TOKEN } });
      expect(listed.statusCode).toBe(200);
      expect(listed.json()).toEqual({
        status: 'success',
        data: [
          {
            node: 'host-a:11',
            roles: ['sequencer'],
            pid: process.pid,
            address: '10.0.0.1:8080',
            state: 'standby',
            epoch: null,
            lastSeq: 12,
            startedAt: expect.any(String),
            seenAt: expect.any(String),
            alive: true,
          },
          {
            node: 'host-b:22',
            roles: ['api'],
            pid: process.pid,
            address: '10.0.0.2:8080',
            state: 'serving',
            epoch: null,
            lastSeq: 9,
            startedAt: expect.any(String),
            seenAt: expect.any(String),
            alive: true,
          },
        ],
      });

      const health = await app.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(200);
      expect(health.json().data).toMatchObject({ healthy: true, roles: ['sequencer'], state: 'standby' });
      const scrape = async () => (await app.inject({ method: 'GET', url: '/metrics' })).body;
      let metrics = await scrape();
      expect(sample(metrics, 'oddsbook_cluster_leader', '{role="sequencer"}')).toBe(0);
      expect(sample(metrics, 'oddsbook_cluster_epoch', '{role="sequencer"}')).toBe(0);
      expect(sample(metrics, 'oddsbook_journal_last_seq', '{role="sequencer"}')).toBe(12);
      expect(metrics).toContain('oddsbook_process_cpu_seconds_total');

      // It leads: the gauges and the registry (at its next refresh) say so.
      Object.assign(sequencer, { state: 'leader', epoch: 2, lastSeq: 30 });
      metrics = await scrape();
      expect(sample(metrics, 'oddsbook_cluster_leader', '{role="sequencer"}')).toBe(1);
      expect(sample(metrics, 'oddsbook_cluster_epoch', '{role="sequencer"}')).toBe(2);
      expect(sample(metrics, 'oddsbook_journal_last_seq', '{role="sequencer"}')).toBe(30);
      await seq.refresh();
      const again = await app.inject({ method: 'GET', url, headers: { 'x-admin-token': ADMIN_TOKEN } });
      expect(again.json().data[0]).toMatchObject({ state: 'leader', epoch: 2, lastSeq: 30 });

      // Deposed or stopping, it is not healthy.
      sequencer.state = 'deposed';
      const deposed = await app.inject({ method: 'GET', url: '/health' });
      expect(deposed.statusCode).toBe(503);
      expect(deposed.json()).toEqual({ statusCode: 503, message: 'This node is deposed' });
    } finally {
      await app.close();
      for (const registry of registries) await registry.stop();
      await db.close();
      await database.drop();
    }
  });
});
