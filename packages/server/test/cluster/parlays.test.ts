import type { NatsConnection } from '@nats-io/transport-node';
import { GLOBAL_CHANNELS } from '@oddsbook/protocol';
import type { Centrifuge } from 'centrifuge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterNames, clusterNames } from '../../src/cluster/cluster-names.js';
import { remoteLeader } from '../../src/cluster/remote-leader.js';
import { connectNats, deleteStreams } from '../../src/cluster/test-support.js';
import { openApiExchange } from '../../src/exchange/api-exchange.js';
import { openApiNode } from '../../src/exchange/api-role.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import { type SequencerRole, startSequencerRole } from '../../src/exchange/sequencer-role.js';
import { SettlementDriver } from '../../src/settlement/settlement-driver.js';
import {
  createTestDatabase,
  type TestDatabase,
} from '../../src/store/test-support/postgres-test-database.js';
import { nodeConfig, servedExchange } from '../helpers/in-process-nodes.js';
import { removeDataDir, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC, until } from '../helpers/trading.js';
import { exchangeClient, until as waitFor } from '../realtime/helpers.js';

/**
 * A parlay through a cluster (issue 39, ADR 0018): a leader (`--role sequencer,projector,chain`) and two API
 * nodes on one PostgreSQL database and one NATS server, all in this process. The requester asks on node A,
 * the maker hears the broadcast on A's realtime hub and quotes through node B, whose replica takes the
 * journal alone (its committed stream is away): B is behind the broadcast, as any API node can be. The
 * requester takes through A after the window, the legs are resolved through the leader, and the parlay
 * settles with its fee; the chain agrees with the engine to the base unit.
 */
const QUOTE_MS = 6_000;
const silent = { info() {}, error() {} };
let database: TestDatabase;
let nc: NatsConnection;
let leader: SequencerRole;
const cluster = `parlay${Math.random().toString(36).slice(2, 8)}`;
let names: ClusterNames;
const nodes: TestExchange[] = [];
const dirs: string[] = [];
const clients: Centrifuge[] = [];

const configFor = (role: string, clusterName = cluster) =>
  nodeConfig({
    databaseUrl: database.url,
    cluster: clusterName,
    role,
    dirs,
    env: { PARLAY_QUOTE_WINDOW_MS: String(QUOTE_MS) },
  });

async function served(exchange: Exchange, leading: () => Exchange): Promise<TestExchange> {
  // Everything committed so far settled on the chain by the leader, its receipts journaled.
  const node = await servedExchange(exchange, async () => {
    const { trading, settlement } = leading();
    if (!(settlement instanceof SettlementDriver)) throw new Error('the leader settles');
    await trading.idle();
    await settlement.whenSettled(trading.sequencer.lastSeq);
    await settlement.drained();
    await trading.idle();
  });
  nodes.push(node);
  return node;
}

/**
 * An API node whose replica follows the journal alone: its committed stream is named after another cluster,
 * so each entry reaches it from PostgreSQL, a grace period after its commit (JournalFollower's floor).
 */
async function laggingApiNode(): Promise<Exchange> {
  const config = configFor('api', `${cluster}away`);
  const leaderSide = remoteLeader({
    nc,
    subject: names.leader,
    chain: { chainId: config.chainId, baseToken: config.baseToken, escrowAddress: config.verifyingContract },
  });
  return openApiExchange(config, {
    nc,
    names,
    leader: {
      chain: leaderSide.chain,
      multisig: leaderSide.multisig,
      settlement: leaderSide.operations.settlement,
      reconciliation: leaderSide.operations.reconciliation,
      resolveMarket: leaderSide.operations.resolveMarket,
    },
    log: silent,
    onFatal: (error) => {
      throw error;
    },
  });
}

let a: TestExchange;
let b: TestExchange;
let aUrl: string;

beforeAll(async () => {
  database = await createTestDatabase();
  nc = await connectNats();
  names = clusterNames(cluster);
  leader = await startSequencerRole(configFor('sequencer,projector,chain'), {
    log: silent,
    onDeposed: (reason) => {
      throw reason;
    },
  });
  await until(
    () => leader.exchange,
    (e) => e !== null,
    30_000,
  );
  const leading = () => leader.exchange!;
  a = await served(
    await openApiNode(configFor('api'), {
      log: silent,
      onFatal: (error) => {
        throw error;
      },
    }),
    leading,
  );
  aUrl = await a.app.listen({ port: 0, host: '127.0.0.1' });
  b = await served(await laggingApiNode(), leading);
}, 90_000);

afterAll(async () => {
  for (const c of clients) c.disconnect();
  for (const node of nodes) await node.close();
  await leader?.stop();
  if (nc) await deleteStreams(nc, [names.stream, names.publicationsStream]);
  await nc?.close();
  await database?.drop();
  for (const dir of dirs) removeDataDir(dir);
});

const resolve = async (node: TestExchange, marketHash: string, outcome: 0 | 1 | 2) => {
  const response = await node.app.inject({
    method: 'POST',
    url: `/admin/markets/${marketHash}/resolve`,
    headers: node.admin,
    payload: { outcome },
  });
  expect(response.statusCode, response.body).toBe(200);
};

describe('a parlay through two API nodes and the leader', () => {
  it('requested on A, quoted through a lagging B right after the broadcast, taken on A, settled by its legs with the fee', async () => {
    const legs = [await createMarket(a), await createMarket(a)];
    const requester = await createTrader(a, 100n * USDC);
    const maker = await createTrader(a, 100n * USDC);

    // The maker follows parlay requests on A's realtime hub (the leader's stamped publications).
    const c = exchangeClient(aUrl, maker.headers);
    clients.push(c);
    const broadcasts: { marketHash: string }[] = [];
    let subscribed = false;
    const sub = c.newSubscription(GLOBAL_CHANNELS.parlay_markets);
    sub.on('publication', (ctx) => broadcasts.push(ctx.data as { marketHash: string }));
    sub.on('subscribed', () => {
      subscribed = true;
    });
    sub.subscribe();
    c.connect();
    await waitFor(() => subscribed, 10_000, 'subscribed');

    const asked = await a.app.inject({
      method: 'POST',
      url: '/parlays-v3',
      headers: requester.headers,
      payload: {
        baseToken: a.config.baseToken,
        legs: [
          { marketHash: legs[0]!.marketHash, bettingOutcomeOne: true },
          { marketHash: legs[1]!.marketHash, bettingOutcomeOne: false },
        ],
        requestSize: (10n * USDC).toString(),
      },
    });
    expect(asked.statusCode, asked.body).toBe(200);
    const { marketHash, quoteWindowEndsAt } = asked.json().data as {
      marketHash: `0x${string}`;
      quoteWindowEndsAt: string;
    };
    await waitFor(() => broadcasts.some((p) => p.marketHash === marketHash), 10_000, 'the broadcast');

    // At once, through B: B catches up with the journal rather than answer MARKET_NOT_FOUND.
    const offer = await place(b, maker, { marketHash, tick: 640, size: 40n * USDC, isOne: false });
    expect(offer, JSON.stringify(offer)).toMatchObject({ status: 'SUBMITTED' });
    expect(offer.outcome.state).toBe('RESTED');
    // B shows the maker its own offer; the requester sees none until the window closes.
    const seen = (node: TestExchange, user: { headers: Record<string, string> }) =>
      node.app
        .inject({ method: 'GET', url: `/parlays-v3/${marketHash}`, headers: user.headers })
        .then((r) => r.json().data as { state: string; offers: { orderId: string }[] });
    expect((await seen(b, maker)).offers.map((o) => o.orderId)).toEqual([offer.orderId]);

    // After the window, the requester sees the offer and takes it through A.
    await waitFor(() => Date.now() >= Date.parse(quoteWindowEndsAt), QUOTE_MS + 5_000, 'the window’s end');
    const shown = await until(
      () => seen(a, requester),
      (d) => d.state === 'TAKING' && d.offers.length === 1,
      10_000,
    );
    expect(shown.offers[0]!.orderId).toBe(offer.orderId);
    const take = await place(a, requester, { marketHash, tick: 160, size: 10n * USDC, timeInForce: 'IOC' });
    expect(take.outcome.state, JSON.stringify(take)).toBe('FULLY_FILLED');
    await a.settled();

    // The legs, resolved through the leader: both won for the bettor (leg 1 needed outcome two).
    const feesBefore = BigInt(leader.exchange!.trading.sequencer.money(a.config.parlayFeeAccount).available);
    await resolve(a, legs[0]!.marketHash, 1);
    await resolve(b, legs[1]!.marketHash, 2);
    await a.settled();
    const settled = await until(
      () => seen(a, requester),
      (d) => d.state === 'SETTLED',
      10_000,
    );
    expect(settled).toMatchObject({ outcome: 1 });
    // The pot is 50: the requester's profit 40 pays 5 %, 2 USDC, to the fee account.
    const fee = 2n * USDC;
    const collected = await until(
      async () =>
        (await a.app.inject({ method: 'GET', url: '/admin/fees', headers: a.admin })).json().data
          .collectedAmount as string,
      (amount) => BigInt(amount) === feesBefore + fee,
      10_000,
    );
    expect(BigInt(collected)).toBe(feesBefore + fee);
    const row = await until(
      async () =>
        (
          await b.app.inject({
            method: 'GET',
            url: `/trades-v3?marketHash=${marketHash}`,
            headers: requester.headers,
          })
        ).json().data.trades[0] as { status: string; fee: string; isParlay: boolean; settlement: unknown },
      (t) => t?.status === 'SETTLED',
      10_000,
    );
    expect(row).toMatchObject({
      isParlay: true,
      fee: fee.toString(),
      settlement: { payout: (50n * USDC - fee).toString() },
    });

    const report = (await a.app.inject({ method: 'GET', url: '/admin/reconcile', headers: a.admin })).json()
      .data;
    expect(report.differences).toEqual([]);
    expect(report.differenceUnits).toBe('0');
    expect(report.totals.chain).toBe(report.totals.engine);
  }, 120_000);
});
