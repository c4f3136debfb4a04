import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalCluster } from '../../src/cluster/local-cluster.js';
import { createTestDatabase, requirePostgres } from '../../src/store/test-support/postgres-test-database.js';
import {
  admin,
  call,
  createMarketOver,
  createTraderOver,
  type HttpTrader,
  moneyOf,
  postOrders,
  signedOrder,
  signingMeta,
  stopTestCluster,
  testCluster,
  USDC,
  until,
} from '../helpers/cluster-http.js';

/**
 * The leading sequencer SIGKILLed under load, in a cluster of real processes (`LocalCluster`): two sequencers
 * and two API nodes on the test PostgreSQL and NATS, 16 writers signing and posting orders through both API
 * nodes. The standby leads; every acknowledged order is journaled exactly once, a client's retry of a signed
 * order places nothing twice, money is conserved to the base unit, and the killed sequencer, started again,
 * is a standby.
 */
await requirePostgres();
const database = await createTestDatabase();
let cluster: LocalCluster;
let databaseUrl: string;

beforeAll(async () => {
  databaseUrl = await database.schema();
  cluster = testCluster(databaseUrl, [
    { name: 'sequencer-1', role: 'sequencer,projector,chain', port: 0 },
    { name: 'sequencer-2', role: 'sequencer,projector,chain', port: 0 },
    { name: 'api-1', role: 'api', port: 0 },
    { name: 'api-2', role: 'api', port: 0 },
  ]);
  await cluster.start();
}, 120_000);

afterAll(async () => {
  await stopTestCluster(cluster);
  await database.drop();
});

const WRITERS = 16;
const FUNDS = 1_000n * USDC;

type Acknowledged = { orderId: string; order: unknown; writer: number; sent: number; at: number };

/** The orders each journal entry places, by id (an engine `place`, or an order admitted after its delay). */
async function placings(): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ payload: string }>('SELECT payload FROM journal ORDER BY seq');
    const count = new Map<string, number>();
    for (const { payload } of rows) {
      const input = JSON.parse(payload) as { command?: { type?: string; orderId?: string } };
      if (input.command?.type === 'place' && input.command.orderId)
        count.set(input.command.orderId, (count.get(input.command.orderId) ?? 0) + 1);
    }
    return count;
  } finally {
    await client.end();
  }
}

async function leaderRow(): Promise<{ epoch: number; node: string }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ epoch: string; node: string }>(
      'SELECT epoch, node FROM sequencer_leader',
    );
    return { epoch: Number(rows[0]!.epoch), node: rows[0]!.node };
  } finally {
    await client.end();
  }
}

describe('a local cluster: the leading sequencer SIGKILLed under load', () => {
  it('the standby leads; every acknowledged order is there once, retries place nothing twice, money is conserved, the killed node comes back a standby', async () => {
    const apis = [cluster.node('api-1').url!, cluster.node('api-2').url!];
    const meta = await signingMeta(apis[0]!);
    const marketHash = await createMarketOver(apis[0]!);
    const traders: HttpTrader[] = [];
    for (let w = 0; w < WRITERS; w++) traders.push(await createTraderOver(apis[w % 2]!, FUNDS));
    const first = cluster.leader()!;
    expect(first.epoch).toBe(1);

    // 16 writers, half on each API node: makers on outcome one, takers on outcome two, crossing often.
    const acknowledged: Acknowledged[] = [];
    const refused = new Map<number, number>();
    let stop = false;
    let killedAt = 0;
    let longestAcrossKill = 0;
    const writers = traders.map(async (trader, w) => {
      const base = apis[w % 2]!;
      for (let i = 0; !stop; i++) {
        const isOne = w % 4 < 2;
        const order = await signedOrder(meta, trader, {
          marketHash,
          tick: isOne ? 380 + (i % 40) : 400 + (i % 40),
          size: BigInt(1 + (i % 3)) * USDC,
          isOne,
          timeInForce: i % 3 === 0 ? 'IOC' : 'GTC',
        });
        const sent = performance.now();
        const reply = await postOrders(base, trader, [order]).catch(() => null);
        const at = performance.now();
        if (killedAt > 0 && sent < killedAt) longestAcrossKill = Math.max(longestAcrossKill, at - killedAt);
        const placed = reply?.status === 200 ? reply.body.data.orders[0] : undefined;
        if (placed?.orderId) acknowledged.push({ orderId: placed.orderId, order, writer: w, sent, at });
        else refused.set(reply?.status ?? 0, (refused.get(reply?.status ?? 0) ?? 0) + 1);
      }
    });

    await until(() => acknowledged.length >= 120, 60_000, 'load before the kill');
    killedAt = performance.now();
    const killed = await cluster.signal(first.name, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const next = await cluster.waitForLeader({ except: first.name, timeoutMs: 30_000 });
    const leadingAfter = performance.now() - killedAt;
    expect(next.epoch).toBe(2);
    const beforeKill = acknowledged.filter((a) => a.at < killedAt).length;
    await until(
      () => acknowledged.filter((a) => a.at > killedAt).length >= 120,
      60_000,
      'load acknowledged by the new leader',
    );
    stop = true;
    await Promise.all(writers);
    const firstAfter = Math.min(...acknowledged.filter((a) => a.sent > killedAt).map((a) => a.at)) - killedAt;
    console.log(
      `failover: SIGKILL of the leader to the standby logging "leader" ${Math.round(leadingAfter)} ms; to the first order sent after it acknowledged ${Math.round(firstAfter)} ms; longest wait of a request in flight across it ${Math.round(longestAcrossKill)} ms; ${acknowledged.length} orders acknowledged (${beforeKill} before the kill), not acknowledged by status: ${JSON.stringify(Object.fromEntries(refused))}`,
    );

    // Every acknowledged order placed exactly once in the journal, and readable through both nodes.
    const placed = await until(
      async () => {
        const count = await placings();
        return acknowledged.every((a) => count.has(a.orderId)) ? count : undefined;
      },
      30_000,
      'every acknowledged order in the journal',
    );
    for (const { orderId } of acknowledged) expect(placed.get(orderId), orderId).toBe(1);
    for (const { orderId, writer } of acknowledged.filter((_, i) => i % 10 === 0)) {
      for (const base of apis) {
        const row = await until(
          async () => {
            const r = await call(base, 'GET', `/orders-v3/${orderId}`, undefined, traders[writer]!.headers);
            return r.status === 200 ? r : undefined;
          },
          30_000,
          `order ${orderId} on ${base}`,
        );
        expect(row.body.data.orderId ?? row.body.data.id ?? orderId).toBe(orderId);
      }
    }

    // A client retrying a signed order it may not have had an answer for (before and after the failover,
    // through the other node): nothing is placed a second time.
    const retried = [
      ...acknowledged.filter((a) => a.at < killedAt).slice(-4),
      ...acknowledged.filter((a) => a.at > killedAt).slice(0, 4),
    ];
    const retryAnswers: string[] = [];
    for (const a of retried) {
      const reply = await postOrders(apis[(a.writer + 1) % 2]!, traders[a.writer]!, [a.order]);
      const again = reply.body.data?.orders?.[0];
      retryAnswers.push(`${reply.status} ${again?.status ?? JSON.stringify(reply.body.error ?? reply.body)}`);
      // Answered with the same order (its first result) or refused as a duplicate; never a new order.
      if (reply.status === 200) expect(again.orderId).toBe(a.orderId);
    }
    console.log(`retries of acknowledged signed orders answered: ${retryAnswers.join('; ')}`);
    const afterRetries = await placings();
    for (const a of retried) expect(afterRetries.get(a.orderId), a.orderId).toBe(1);
    expect([...afterRetries.values()].every((n) => n === 1)).toBe(true);

    // Money conserved to the base unit: nothing resolved, so every unit is available or escrowed.
    const total = await until(
      async () => {
        let sum = 0n;
        for (const trader of traders) sum += await moneyOf(apis[0]!, trader);
        return sum === FUNDS * BigInt(WRITERS) ? sum : undefined;
      },
      30_000,
      'the funds conserved',
    );
    expect(total).toBe(FUNDS * BigInt(WRITERS));
    // And the new leader's chain holds what its engine says.
    const report = await until(
      async () => {
        const r = await call(apis[1]!, 'GET', '/admin/reconcile', undefined, admin);
        return r.status === 200 && r.body.data.differences.length === 0 ? r.body.data : undefined;
      },
      60_000,
      'the reconciliation without differences',
    );
    expect(report.totals.chain).toBe(report.totals.engine);

    // The killed sequencer, started again, is a standby: the lease and the epoch stay with the new leader.
    const back = await cluster.startNode(first.name);
    expect(back.state).toBe('standby');
    const health = (await call(back.url!, 'GET', '/health')).body.data;
    expect(health).toMatchObject({ state: 'standby', epoch: null });
    const lastWrite = await postOrders(apis[0]!, traders[0]!, [
      await signedOrder(meta, traders[0]!, { marketHash, tick: 300, size: USDC, isOne: true }),
    ]);
    expect(lastWrite.status).toBe(200);
    const row = await leaderRow();
    expect(row.epoch).toBe(2);
    expect(row.node).toContain(String(next.pid));
    expect(cluster.node(first.name).state).toBe('standby');
    expect(cluster.leader()?.name).toBe(next.name);
  }, 120_000);
});
