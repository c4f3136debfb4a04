import { GLOBAL_CHANNELS } from '@oddsbook/protocol';
import type { Centrifuge, PublicationContext } from 'centrifuge';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { LocalCluster } from '../../src/cluster/local-cluster.js';
import { createTestDatabase, requirePostgres } from '../../src/store/test-support/postgres-test-database.js';
import {
  call,
  clusterListing,
  createMarketOver,
  createTraderOver,
  type HttpTrader,
  placeOver,
  realtimeTokenOver,
  type SigningMeta,
  signingMeta,
  stopTestCluster,
  testCluster,
  USDC,
  until,
} from '../helpers/cluster-http.js';
import { officialClient } from '../realtime/helpers.js';

/**
 * Nodes that run several roles in one process (`serve --role a,b,…`, ADR 0018), as real processes on the
 * test PostgreSQL and NATS (`LocalCluster`): an HA pair of nodes that are each everything, and an
 * `api,realtime` node beside a sequencer that also serves the realtime WebSocket on its status server.
 */
await requirePostgres();
const database = await createTestDatabase();
let cluster: LocalCluster | undefined;
const clients: Centrifuge[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  await stopTestCluster(cluster);
  cluster = undefined;
});
afterAll(async () => {
  await database.drop();
});

const EVERYTHING = 'sequencer,projector,chain,api,realtime';

/** A resting maker through `makerAt`, an IOC taker against it through `takerAt`: the taker fills. */
async function fill(
  meta: SigningMeta,
  marketHash: `0x${string}`,
  maker: { base: string; trader: HttpTrader },
  taker: { base: string; trader: HttpTrader },
): Promise<void> {
  const made = await placeOver(maker.base, meta, maker.trader, { marketHash, tick: 480, size: 2n * USDC });
  expect(made.state).toBe('RESTED');
  const took = await placeOver(taker.base, meta, taker.trader, {
    marketHash,
    tick: 360,
    size: USDC,
    isOne: false,
    timeInForce: 'IOC',
  });
  expect(took).toMatchObject({ state: 'FULLY_FILLED', fillAmount: USDC.toString() });
}

describe('two nodes each --role sequencer,projector,chain,api,realtime (an HA pair)', () => {
  it('orders through both fill in one book; the leader SIGKILLed, the other leads and serves; the killed one comes back a standby; SIGTERM stops each with exit 0', async () => {
    cluster = testCluster(await database.schema(), [
      { name: 'node-1', role: EVERYTHING, port: 0 },
      { name: 'node-2', role: EVERYTHING, port: 0 },
    ]);
    await cluster.start();
    const first = cluster.leader()!;
    const other = cluster.nodes.find((n) => n.name !== first.name)!;
    expect(first.epoch).toBe(1);
    expect(other.state).toBe('standby');
    const [leaderUrl, standbyUrl] = [first.url!, other.url!];

    // One row a process, with every role; leader and standby; /health and /metrics say the same.
    const roles = ['api', 'chain', 'projector', 'realtime', 'sequencer'];
    await until(
      async () => {
        const nodes = await clusterListing(standbyUrl);
        const state = (pid: number | null) => nodes.find((n) => n.pid === pid)?.state;
        return nodes.length === 2 && state(first.pid) === 'leader' && state(other.pid) === 'standby';
      },
      30_000,
      'both nodes listed, leader and standby',
    );
    for (const n of await clusterListing(leaderUrl)) expect(n.roles).toEqual(roles);
    expect((await call(leaderUrl, 'GET', '/health')).body.data).toMatchObject({
      roles,
      state: 'leader',
      epoch: 1,
    });
    expect((await call(standbyUrl, 'GET', '/health')).body.data).toMatchObject({
      roles,
      state: 'standby',
      epoch: null,
    });
    const metrics = await (await fetch(`${standbyUrl}/metrics`)).text();
    expect(metrics).toContain(`oddsbook_cluster_leader{role="${roles.join(',')}"} 0`);

    // A maker through one node, a taker through the other: one book, wherever the leader is.
    const meta = await signingMeta(standbyUrl);
    const marketHash = await createMarketOver(standbyUrl);
    const [makerA, takerA] = [
      await createTraderOver(leaderUrl, 100n * USDC),
      await createTraderOver(leaderUrl, 100n * USDC),
    ];
    const [makerB, takerB] = [
      await createTraderOver(standbyUrl, 100n * USDC),
      await createTraderOver(standbyUrl, 100n * USDC),
    ];
    await fill(meta, marketHash, { base: leaderUrl, trader: makerA }, { base: standbyUrl, trader: takerB });
    await fill(meta, marketHash, { base: standbyUrl, trader: makerB }, { base: leaderUrl, trader: takerA });

    // The leader SIGKILLed: the other process leads and goes on serving, its API and its leader's parts.
    const killedAt = performance.now();
    expect((await cluster.signal(first.name, 'SIGKILL')).signal).toBe('SIGKILL');
    const next = await cluster.waitForLeader({ except: first.name, timeoutMs: 30_000 });
    const leadingAfter = performance.now() - killedAt;
    expect(next.name).toBe(other.name);
    expect(next.epoch).toBe(2);
    await fill(meta, marketHash, { base: standbyUrl, trader: makerB }, { base: standbyUrl, trader: takerB });
    console.log(
      `HA pair: SIGKILL of the leading node to the other logging "leader" ${Math.round(leadingAfter)} ms, to a fill through it acknowledged ${Math.round(performance.now() - killedAt)} ms`,
    );
    expect((await call(standbyUrl, 'GET', '/health')).body.data).toMatchObject({ state: 'leader', epoch: 2 });
    await until(
      async () => {
        const nodes = await clusterListing(standbyUrl);
        return (
          nodes.find((n) => n.pid === first.pid)?.alive === false &&
          nodes.find((n) => n.pid === next.pid)?.state === 'leader'
        );
      },
      30_000,
      'the killed node shown not alive, the survivor leading',
    );

    // Started again, the killed node is a standby; its API serves through the new leader.
    const back = await cluster.startNode(first.name);
    expect(back.state).toBe('standby');
    expect((await call(back.url!, 'GET', '/health')).body.data).toMatchObject({
      state: 'standby',
      epoch: null,
    });
    await fill(meta, marketHash, { base: standbyUrl, trader: makerA }, { base: back.url!, trader: takerA });
    expect(cluster.leader()?.name).toBe(next.name);

    // SIGTERM stops every role of each process cleanly: the standby, then the leader.
    expect(await cluster.signal(back.name, 'SIGTERM')).toEqual({ code: 0, signal: null });
    expect(await cluster.signal(next.name, 'SIGTERM')).toEqual({ code: 0, signal: null });
  }, 240_000);
});

describe('--role api,realtime beside --role sequencer,projector,chain,realtime', () => {
  it('one port each: the API node serves the realtime WebSocket from the stamped publications, as does the sequencer’s status server; both listed with their roles', async () => {
    cluster = testCluster(await database.schema(), [
      { name: 'sequencer-1', role: 'sequencer,projector,chain,realtime', port: 0 },
      { name: 'front-1', role: 'api,realtime', port: 0 },
    ]);
    await cluster.start();
    const front = cluster.node('front-1').url!;
    const sequencer = cluster.node('sequencer-1');

    const nodes = await until(
      async () => {
        const listed = await clusterListing(front);
        return listed.length === 2 ? listed : undefined;
      },
      30_000,
      'both nodes listed',
    );
    expect(nodes.map((n) => [n.roles, n.state]).sort()).toEqual([
      [['api', 'realtime'], 'serving'],
      [['chain', 'projector', 'realtime', 'sequencer'], 'leader'],
    ]);
    expect((await call(front, 'GET', '/health')).body.data).toMatchObject({
      roles: ['api', 'realtime'],
      state: 'serving',
    });

    const meta = await signingMeta(front);
    const marketHash = await createMarketOver(front);
    const maker = await createTraderOver(front, 100n * USDC);
    const taker = await createTraderOver(front, 100n * USDC);
    // A client of each node's WebSocket, on the public tape.
    const tapes = [front, sequencer.url!].map((base) => {
      const c = officialClient(`${base.replace('http://', 'ws://')}/connection/websocket`, {
        getToken: realtimeTokenOver(front, maker),
      });
      clients.push(c);
      const pubs: PublicationContext[] = [];
      const sub = c.newSubscription(GLOBAL_CHANNELS.recent_trades);
      sub.on('publication', (ctx) => pubs.push(ctx));
      sub.subscribe();
      c.connect();
      return { sub, pubs };
    });
    await until(() => tapes.every((t) => t.sub.state === 'subscribed'), 30_000, 'subscribed on both nodes');
    // A channel's first stamped publication may begin its stream again on a node (one resubscribe, ADR 0018):
    // trades until each client has seen one of this market.
    const seen = () =>
      tapes.every((t) => t.pubs.some((p) => (p.data as { marketHash?: string }).marketHash === marketHash));
    for (let i = 0; i < 5 && !seen(); i++) {
      await fill(meta, marketHash, { base: front, trader: maker }, { base: front, trader: taker });
      await until(() => seen() || undefined, 5_000, 'the trade on both WebSockets').catch(() => undefined);
    }
    expect(seen()).toBe(true);

    expect(await cluster.signal('front-1', 'SIGTERM')).toEqual({ code: 0, signal: null });
    expect(await cluster.signal('sequencer-1', 'SIGTERM')).toEqual({ code: 0, signal: null });
  }, 180_000);
});
