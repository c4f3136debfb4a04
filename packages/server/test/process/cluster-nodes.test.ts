import { GLOBAL_CHANNELS, orderBookMarketChannel } from '@oddsbook/protocol';
import type { Centrifuge, PublicationContext, SubscribedContext, Subscription } from 'centrifuge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalCluster } from '../../src/cluster/local-cluster.js';
import { createTestDatabase, requirePostgres } from '../../src/store/test-support/postgres-test-database.js';
import {
  call,
  clusterListing,
  createMarketOver,
  createTraderOver,
  type HttpTrader,
  placeOver,
  postOrders,
  realtimeTokenOver,
  type SigningMeta,
  signedOrder,
  signingMeta,
  stopTestCluster,
  testCluster,
  USDC,
  until,
} from '../helpers/cluster-http.js';
import { officialClient } from '../realtime/helpers.js';

/**
 * A cluster of real processes (`LocalCluster`: `oddsbook serve --role …` children) on the test PostgreSQL and
 * NATS: one sequencer (it leads, carrying the projector and the chain), two API nodes, one realtime node.
 * Orders sent through either API node land in one book, and a WebSocket client of the realtime node sees
 * what both caused; an API node or the realtime node SIGKILLed and started again serves the same state.
 */
await requirePostgres();
const database = await createTestDatabase();
let cluster: LocalCluster;
const clients: Centrifuge[] = [];

beforeAll(async () => {
  cluster = testCluster(await database.schema(), [
    { name: 'sequencer-1', role: 'sequencer,projector,chain', port: 0 },
    { name: 'api-1', role: 'api', port: 0 },
    { name: 'api-2', role: 'api', port: 0 },
    { name: 'realtime-1', role: 'realtime', port: 0 },
  ]);
  await cluster.start();
}, 120_000);

afterAll(async () => {
  for (const c of clients) c.disconnect();
  await stopTestCluster(cluster);
  await database.drop();
});

const url = (name: string) => cluster.node(name).url!;

type Feed = {
  pubs: PublicationContext[];
  subscribed: SubscribedContext[];
  sub: Subscription;
};

function follow(c: Centrifuge, channel: string): Feed {
  const sub = c.newSubscription(channel, { positioned: true, recoverable: true });
  const feed: Feed = { pubs: [], subscribed: [], sub };
  sub.on('publication', (ctx) => feed.pubs.push(ctx));
  sub.on('subscribed', (ctx) => feed.subscribed.push(ctx));
  sub.subscribe();
  return feed;
}

/** A client of the realtime node, its token from an API node (both check it with the cluster's secret). */
function realtimeClient(trader: HttpTrader): Centrifuge {
  const c = officialClient(`ws://${cluster.node('realtime-1').address}/connection/websocket`, {
    getToken: realtimeTokenOver(url('api-1'), trader),
  });
  clients.push(c);
  return c;
}

type Book = { outcomeOne: unknown[]; outcomeTwo: unknown[]; version: number };
const bookOf = (data: unknown): Book => {
  const { outcomeOne, outcomeTwo, version } = data as Book;
  return { outcomeOne, outcomeTwo, version };
};
const snapshot = async (base: string, marketHash: string): Promise<Book> =>
  bookOf((await call(base, 'GET', `/orderbook-v3/snapshot?marketHash=${marketHash}`)).body.data);

let meta: SigningMeta;
let marketHash: `0x${string}`;
let maker: HttpTrader;
let taker: HttpTrader;
let watcher: Centrifuge;
let book: Feed;
let trades: Feed;
/** Where the tape's live publications begin (after the warm-up's reseed, if any). */
let tapeBefore = 0;

describe('a local cluster of processes: two API nodes, a realtime node, one sequencer', () => {
  it('a maker on API node 1 and a taker on API node 2 fill in one book; a realtime client sees both', async () => {
    meta = await signingMeta(url('api-1'));
    marketHash = await createMarketOver(url('api-1'));
    maker = await createTraderOver(url('api-1'), 100n * USDC);
    taker = await createTraderOver(url('api-2'), 100n * USDC);

    watcher = realtimeClient(await createTraderOver(url('api-2'), 0n));
    book = follow(watcher, orderBookMarketChannel(marketHash));
    trades = follow(watcher, GLOBAL_CHANNELS.recent_trades);
    watcher.connect();
    await until(() => book.subscribed.length > 0 && trades.subscribed.length > 0, 30_000, 'subscribed');
    // A channel subscribed before its first publication anywhere is opened under the node's own epoch, and
    // the leader's first stamped publication begins it again: one reseed (ADR 0018, realtime nodes). A
    // warm-up trade on this market (book and tape) takes that reseed or arrives, whichever the node did.
    const warm = await createTraderOver(url('api-1'), 10n * USDC);
    const warmMaker = await signedOrder(meta, warm, { marketHash, tick: 100, size: 2n * USDC, isOne: false });
    expect((await postOrders(url('api-1'), warm, [warmMaker], true)).status).toBe(200);
    const warmTaker = await signedOrder(meta, maker, {
      marketHash,
      tick: 790,
      size: USDC,
      timeInForce: 'IOC',
    });
    expect((await postOrders(url('api-1'), maker, [warmTaker], true)).body.data.orders[0].outcome.state).toBe(
      'FULLY_FILLED',
    );
    const seen = (feed: Feed, what: (data: unknown) => boolean) =>
      feed.pubs.some((p) => what(p.data)) || feed.subscribed.length > 1;
    await until(
      () =>
        seen(book, (data) => bookOf(data).outcomeTwo.length > 0) &&
        seen(trades, (data) => (data as { marketHash: string }).marketHash === marketHash),
      30_000,
      'the warm-up on the channels',
    );
    const subscribes = { book: book.subscribed.length, trades: trades.subscribed.length };
    tapeBefore = trades.pubs.length;

    const made = await placeOver(url('api-1'), meta, maker, { marketHash, tick: 480, size: 60n * USDC });
    expect(made.state).toBe('RESTED');
    // The maker's order, placed through node 1, reaches the realtime node's book channel.
    await until(
      () => book.pubs.some((p) => bookOf(p.data).outcomeOne.length > 0),
      30_000,
      'the maker in the book',
    );

    const took = await placeOver(url('api-2'), meta, taker, {
      marketHash,
      tick: 360,
      size: 20n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    expect(took).toMatchObject({
      state: 'FULLY_FILLED',
      fillAmount: (20n * USDC).toString(),
    });

    // One book: both nodes' replicas and the realtime client's latest book agree.
    const final = await until(
      async () => {
        const [one, two] = [
          await snapshot(url('api-1'), marketHash),
          await snapshot(url('api-2'), marketHash),
        ];
        return one.version === two.version && one.version > 0 ? one : undefined;
      },
      30_000,
      'both API nodes on the same book',
    );
    expect(final.outcomeOne).toHaveLength(1);
    await until(() => bookOf(book.pubs.at(-1)?.data).version === final.version, 30_000, 'the last book');
    expect(bookOf(book.pubs.at(-1)!.data)).toEqual(final);
    // The taker's fill (through node 2) on the public tape, once.
    await until(
      () =>
        trades.pubs
          .slice(tapeBefore)
          .some((p) => (p.data as { marketHash: string }).marketHash === marketHash),
      30_000,
      'the trade',
    );
    expect(
      trades.pubs
        .slice(tapeBefore)
        .filter((p) => (p.data as { marketHash: string }).marketHash === marketHash),
    ).toHaveLength(1);
    // Live publications from then on, without a reseed: nothing missed.
    expect({ book: book.subscribed.length, trades: trades.subscribed.length }).toEqual(subscribes);
    // Each node's listing shows the cluster (every node registers once it listens).
    const listed = await clusterListing(url('api-2'));
    const roleSet = (roles: readonly string[]) => [...roles].sort().join(',');
    expect(
      listed
        .filter((n) => n.alive)
        .map((n) => [roleSet(n.roles), n.pid])
        .sort(),
    ).toEqual(cluster.nodes.map((n) => [roleSet(n.role.split(',')), n.pid]).sort());
  }, 90_000);

  it('an API node SIGKILLed under light load: the other keeps serving; started again, it serves the same book', async () => {
    const other = await createMarketOver(url('api-1'));
    let stop = false;
    const answered: number[] = [];
    const load = (async () => {
      while (!stop) {
        const r = await postOrders(url('api-1'), maker, [
          await signedOrder(meta, maker, {
            marketHash: other,
            tick: 300 + (answered.length % 50),
            size: USDC,
          }),
        ]);
        answered.push(r.status);
      }
    })();
    await until(() => answered.length >= 5, 30_000, 'load on node 1');
    const killed = await cluster.signal('api-2', 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const atKill = answered.length;
    await until(() => answered.length >= atKill + 10, 30_000, 'node 1 answering after the kill');
    // Node 2 is gone; node 1 goes on.
    await expect(fetch(`${url('api-2')}/health`)).rejects.toThrow();
    await cluster.startNode('api-2');
    expect(cluster.node('api-2').restarts).toBe(1);
    stop = true;
    await load;
    expect(answered.every((status) => status === 200)).toBe(true);
    // Back on its address, with the same books (its replica recovered from the journal).
    for (const hash of [marketHash, other]) {
      const settled = await until(
        async () => {
          const [a, b] = [await snapshot(url('api-1'), hash), await snapshot(url('api-2'), hash)];
          return a.version === b.version ? b : undefined;
        },
        30_000,
        'the restarted node on the same book',
      );
      expect(settled.outcomeOne.length).toBeGreaterThan(0);
      expect(settled).toEqual(await snapshot(url('api-1'), hash));
    }
    // It takes orders again.
    const again = await postOrders(url('api-2'), taker, [
      await signedOrder(meta, taker, { marketHash: other, tick: 200, size: USDC, isOne: false }),
    ]);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
  }, 90_000);

  it('the realtime node SIGKILLed and started again: its client reconnects and recovers what it missed, or is told to reseed', async () => {
    const before = {
      book: book.subscribed.length,
      trades: trades.subscribed.length,
      tape: trades.pubs.length,
    };
    await cluster.signal('realtime-1', 'SIGKILL');
    // While it is down: a fill through node 2 (a book change and a trade).
    const missed = await postOrders(
      url('api-2'),
      taker,
      [
        await signedOrder(meta, taker, {
          marketHash,
          tick: 360,
          size: 10n * USDC,
          isOne: false,
          timeInForce: 'IOC',
        }),
      ],
      true,
    );
    expect(missed.body.data.orders[0].outcome.state).toBe('FULLY_FILLED');
    const final = await snapshot(url('api-1'), marketHash);
    await cluster.startNode('realtime-1');
    await until(
      () => book.subscribed.length > before.book && trades.subscribed.length > before.trades,
      60_000,
      'the client subscribed again',
    );
    const [bookAgain, tradesAgain] = [book.subscribed.at(-1)!, trades.subscribed.at(-1)!];
    console.log(
      `realtime node restarted: book ${bookAgain.recovered ? 'recovered' : 'reseed'}, trades ${tradesAgain.recovered ? 'recovered' : 'reseed'}`,
    );
    expect(bookAgain.wasRecovering).toBe(true);
    // Never wrong data: what it recovered is exactly what it missed; told to reseed, the REST state is the truth.
    if (tradesAgain.recovered) {
      await until(
        () =>
          trades.pubs
            .slice(before.tape)
            .some((p) => (p.data as { marketHash: string }).marketHash === marketHash),
        30_000,
        'the missed trade recovered',
      );
      const offsets = trades.pubs.slice(tapeBefore).map((p) => Number(p.offset));
      expect(offsets).toEqual(offsets.map((_, i) => offsets[0]! + i));
    }
    if (bookAgain.recovered) {
      await until(() => bookOf(book.pubs.at(-1)?.data).version === final.version, 30_000, 'the missed book');
      expect(bookOf(book.pubs.at(-1)!.data)).toEqual(final);
    } else {
      expect(await snapshot(url('api-2'), marketHash)).toEqual(final);
    }
  }, 90_000);
});
