import type { NatsConnection } from '@nats-io/transport-node';
import { tickToOdds } from '@oddsbook/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterNames, clusterNames } from '../../src/cluster/cluster-names.js';
import { connectNats, deleteStreams } from '../../src/cluster/test-support.js';
import { openApiExchange } from '../../src/exchange/api-exchange.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import { type SequencerRole, startSequencerRole } from '../../src/exchange/sequencer-role.js';
import {
  createTestDatabase,
  type TestDatabase,
} from '../../src/store/test-support/postgres-test-database.js';
import { nodeConfig, servedExchange } from '../helpers/in-process-nodes.js';
import { removeDataDir, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC, until } from '../helpers/trading.js';

/**
 * Two API nodes (issue 37) in this process, in front of a leading sequencer (`serve --role sequencer`'s
 * code, in this process too) on one PostgreSQL database and one NATS server: the API nodes hold no engine of
 * their own but a replica that follows the journal, and send every intent to the leader. The chain and the
 * settlement are the leader's (handed over in-process here; over NATS in a cluster).
 */
const silent = { info() {}, error() {} };
let database: TestDatabase;
let nc: NatsConnection;
let leader: SequencerRole;
const cluster = `api${Math.random().toString(36).slice(2, 8)}`;
let names: ClusterNames;
const nodes: TestExchange[] = [];
const dirs: string[] = [];

const configFor = (role: string, cluster: string) =>
  nodeConfig({ databaseUrl: database.url, cluster, role, dirs });

async function apiNode(cluster: string, leading: Exchange): Promise<TestExchange> {
  const config = configFor('api', cluster);
  const exchange = await openApiExchange(config, {
    nc,
    names: clusterNames(cluster),
    leader: {
      chain: leading.chain,
      multisig: leading.multisig,
      settlement: leading.settlement,
      reconciliation: leading.reconciliation,
      resolveMarket: (marketHash, outcome) => leading.trading.resolveMarket(marketHash, outcome),
    },
    log: silent,
    onFatal: (error) => {
      throw error;
    },
  });
  const node = await servedExchange(exchange, () => leading.trading.idle());
  nodes.push(node);
  return node;
}

let a: TestExchange;
let b: TestExchange;

beforeAll(async () => {
  database = await createTestDatabase();
  nc = await connectNats();
  names = clusterNames(cluster);
  leader = await startSequencerRole(configFor('sequencer,projector,chain', cluster), {
    log: silent,
    onDeposed: (reason) => {
      throw reason;
    },
  });
  const leading = await until(
    () => leader.exchange,
    (e) => e !== null,
    30_000,
  );
  a = await apiNode(cluster, leading!);
  b = await apiNode(cluster, leading!);
}, 60_000);

afterAll(async () => {
  for (const node of nodes) await node.close();
  await leader?.stop();
  if (nc) await deleteStreams(nc, [names.stream, names.publicationsStream]);
  await nc?.close();
  await database?.drop();
  for (const dir of dirs) removeDataDir(dir);
});

describe('API nodes in front of one sequencer', () => {
  it('a maker on one node and a taker on the other fill in one book', async () => {
    const { marketHash } = await createMarket(a);
    const maker = await createTrader(a, 100n * USDC);
    const taker = await createTrader(b, 100n * USDC);

    const made = await place(a, maker, { marketHash, tick: 480, size: 60n * USDC });
    expect(made.outcome.state).toBe('RESTED');
    // Node B's replica has the maker's order in its book.
    const book = await until(
      async () =>
        (await b.app.inject({ method: 'GET', url: `/orderbook-v3/snapshot?marketHash=${marketHash}` })).json()
          .data,
      (data) => data.outcomeOne.length > 0,
      10_000,
    );
    expect(book.outcomeOne).toEqual([
      { percentageOdds: tickToOdds(480).toString(), size: (60n * USDC).toString() },
    ]);

    const took = await place(b, taker, {
      marketHash,
      tick: 360,
      size: 20n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    expect(took.outcome.state).toBe('FULLY_FILLED');
    expect(took.outcome.fillAmount).toBe((20n * USDC).toString());

    // Read-your-writes on the node that answered: the taker's fill is in its projections and its replica.
    const fills = (
      await b.app.inject({ method: 'GET', url: '/user/balance-v3', headers: taker.headers })
    ).json();
    expect(fills.data.escrowedAmount).not.toBe('0');
    // The maker's order, read on the other node once the projections have it.
    const makerOrder = await until(
      async () =>
        (
          await a.app.inject({ method: 'GET', url: `/orders-v3/${made.orderId}`, headers: maker.headers })
        ).json(),
      (body) => body.data?.fillAmount === (30n * USDC).toString(),
      10_000,
    );
    expect(makerOrder.data.fillAmount).toBe((30n * USDC).toString());
    // One journal, one book: the leader holds both orders.
    expect(leader.exchange!.trading.sequencer.restingOrders(marketHash)).toHaveLength(1);
    expect(leader.exchange!.trading.sequencer.book(marketHash)).toEqual(
      a.exchange.trading.sequencer.book(marketHash),
    );
  });
});
