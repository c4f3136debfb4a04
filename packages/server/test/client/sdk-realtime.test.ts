import { isDeepStrictEqual } from 'node:util';
import {
  type ChannelEvent,
  collect,
  createExchangeClient,
  type ExchangeClient,
  type LiveBook,
  type LiveFills,
  type LiveOrders,
} from '@oddsbook/client';
import { type BookUpdate, channels } from '@oddsbook/protocol';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createChannelPolicy } from '../../src/realtime/index.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, USDC, until } from '../helpers/trading.js';
import { startTcpProxy } from './helpers/tcp-proxy.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listening(options: Parameters<typeof startTestExchange>[0] = {}): Promise<TestExchange> {
  const t = await startTestExchange(options);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return t;
}

const portOf = (t: TestExchange) => (t.app.server.address() as { port: number }).port;

function sdk(url: string, user: TestUser): ExchangeClient {
  const client = createExchangeClient({
    baseUrl: url,
    apiKey: user.apiKey,
    signer: privateKeyToAccount(user.privateKey),
    // Quick reconnects: the tests cut connections on purpose.
    realtime: { minReconnectDelayMs: 50, maxReconnectDelayMs: 500 },
  });
  cleanups.push(() => client.close());
  return client;
}

const expiry = () => Math.floor(Date.now() / 1000) + 600;

/** Places and cancels orders of `client` on both sides of the market until `stop` is called. */
function keepTrading(client: ExchangeClient, marketHash: `0x${string}`) {
  let stopped = false;
  let round = 0;
  const done = (async () => {
    while (!stopped) {
      round++;
      const placed = await client.placeOrders([
        {
          marketHash,
          tick: 300 + (round % 50),
          totalBetSize: 2n * USDC,
          isMakerBettingOutcomeOne: true,
          expiry: expiry(),
        },
        {
          marketHash,
          tick: 300 + (round % 40),
          totalBetSize: 3n * USDC,
          isMakerBettingOutcomeOne: false,
          expiry: expiry(),
        },
      ]);
      if (round % 3 === 0) await client.cancelOrders([placed[0]!.orderId!]);
    }
  })();
  return async () => {
    stopped = true;
    await done;
  };
}

/** Waits until every watcher holds exactly what REST answers now (after trading stopped). */
async function expectConverged(
  rest: ExchangeClient,
  marketHash: `0x${string}`,
  watched: { book: LiveBook; orders: LiveOrders; fills: LiveFills; since: string },
) {
  await until(
    async () => {
      const [maker, taker] = await Promise.all([
        rest.getOrderBook(marketHash),
        rest.getOrderBook(marketHash, true),
      ]);
      return { maker, taker, held: watched.book.maker, heldTaker: watched.book.taker };
    },
    ({ maker, taker, held, heldTaker }) =>
      isDeepStrictEqual(held, maker) && isDeepStrictEqual(heldTaker, taker),
    15_000,
  );
  const byId = <T extends { id: string }>(rows: T[]) => [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
  await until(
    async () => ({ open: byId(await collect(rest.orders())), held: byId(watched.orders.orders) }),
    ({ open, held }) => isDeepStrictEqual(open, held),
    15_000,
  );
  await until(
    async () => ({
      fills: byId(await collect(rest.fills({ startDate: watched.since }))),
      held: byId(watched.fills.fills),
    }),
    ({ fills, held }) => fills.length > 0 && isDeepStrictEqual(fills, held),
    15_000,
  );
}

describe('realtime in the SDK against a listening exchange', () => {
  it('yields typed publications of a channel, by iterator and by listener', async () => {
    const t = await listening();
    cleanups.push(async () => {
      await t.close();
      removeDataDir(t.dataDir);
    });
    const url = `http://127.0.0.1:${portOf(t)}`;
    const { marketHash } = await createMarket(t);
    const maker = sdk(url, await createTrader(t, 100n * USDC));
    const sub = maker.subscribe(channels.orderBookMarket(marketHash));
    expectTypeOf<
      Extract<ChannelEvent<typeof sub.channel>, { type: 'publication' }>['data']
    >().toEqualTypeOf<BookUpdate>();
    const heard: BookUpdate[] = [];
    sub.on((event) => {
      if (event.type === 'publication') heard.push(event.data);
    });
    const events = sub[Symbol.asyncIterator]();
    expect((await events.next()).value).toMatchObject({ type: 'subscribed', recovered: false });
    await maker.placeOrder({
      marketHash,
      tick: 420,
      totalBetSize: 5n * USDC,
      isMakerBettingOutcomeOne: true,
    });
    const published = (await events.next()).value as ChannelEvent<typeof sub.channel>;
    expect(published.type).toBe('publication');
    if (published.type !== 'publication') throw new Error('not a publication');
    expect(published.data.outcomeOne).toEqual([{ percentageOdds: '52500000000000000000', size: '5000000' }]);
    expect(published.messageId).toBe(`book:${marketHash}:${published.data.version}`);
    expect(heard).toEqual([published.data]);
    sub.unsubscribe();
    expect(await events.next()).toEqual({ done: true, value: undefined });
  });

  it('keeps book, open orders and fills equal to REST across dropped sockets, recovering without a reseed', async () => {
    const t = await listening();
    cleanups.push(async () => {
      await t.close();
      removeDataDir(t.dataDir);
    });
    const proxy = await startTcpProxy(portOf(t));
    cleanups.push(() => proxy.close());
    const direct = `http://127.0.0.1:${portOf(t)}`;
    const { marketHash } = await createMarket(t);
    const makerUser = await createTrader(t, 1_000n * USDC);
    const watcher = sdk(proxy.url, makerUser);
    const trader = sdk(direct, makerUser);
    const taker = sdk(direct, await createTrader(t, 1_000n * USDC));
    const since = new Date(Date.now() - 1000).toISOString();
    const book = await watcher.watchBook(marketHash);
    const orders = await watcher.watchOrders();
    const fills = await watcher.watchFills({ since });
    const seeded = { book: book.reseeds, orders: orders.reseeds, fills: fills.reseeds };

    const stop = keepTrading(trader, marketHash);
    // Takes from the maker, so that fills come too.
    for (let i = 0; i < 3; i++) {
      await until(
        () => trader.getOrderBook(marketHash),
        (b) => b.outcomeOne.length > 0,
        10_000,
      );
      await taker.placeOrders([
        {
          marketHash,
          tick: 600,
          totalBetSize: 1n * USDC,
          isMakerBettingOutcomeOne: false,
          timeInForce: 'IOC',
        },
      ]);
      proxy.dropAll();
      await until(
        () => book.live && orders.live && fills.live,
        (live) => live,
        10_000,
      );
    }
    await stop();
    await expectConverged(trader, marketHash, { book, orders, fills, since });
    // Each reconnect recovered what it missed from the history: nothing was reloaded from REST.
    expect({ book: book.reseeds, orders: orders.reseeds, fills: fills.reseeds }).toEqual(seeded);
  }, 60_000);

  it('reseeds from REST after the server restarts (new streams), and converges', async () => {
    let t = await listening();
    const dataDir = t.dataDir;
    cleanups.push(() => removeDataDir(dataDir));
    const proxy = await startTcpProxy(portOf(t));
    cleanups.push(() => proxy.close());
    const { marketHash } = await createMarket(t);
    const makerUser = await createTrader(t, 1_000n * USDC);
    const takerUser = await createTrader(t, 1_000n * USDC);
    const watcher = sdk(proxy.url, makerUser);
    const since = new Date(Date.now() - 1000).toISOString();
    const book = await watcher.watchBook(marketHash);
    const orders = await watcher.watchOrders();
    const fills = await watcher.watchFills({ since });
    await sdk(`http://127.0.0.1:${portOf(t)}`, makerUser).placeOrders([
      { marketHash, tick: 410, totalBetSize: 10n * USDC, isMakerBettingOutcomeOne: true },
    ]);
    await until(
      () => book.maker,
      (b) => (b?.outcomeOne.length ?? 0) > 0,
      10_000,
    );

    await t.close();
    t = await startTestExchange({ dataDir });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => t.close());
    proxy.retarget(portOf(t));
    const direct = `http://127.0.0.1:${portOf(t)}`;
    const trader = sdk(direct, makerUser);
    await sdk(direct, takerUser).placeOrders([
      { marketHash, tick: 590, totalBetSize: 2n * USDC, isMakerBettingOutcomeOne: false, timeInForce: 'IOC' },
    ]);
    const stop = keepTrading(trader, marketHash);
    await until(
      () => book.reseeds,
      (n) => n >= 2,
      15_000,
    );
    await stop();
    await expectConverged(trader, marketHash, { book, orders, fills, since });
    expect(orders.reseeds).toBeGreaterThanOrEqual(2);
    expect(fills.reseeds).toBeGreaterThanOrEqual(2);
  }, 90_000);

  it('reseeds from REST when the history it would recover from is gone, and converges', async () => {
    const t = await listening();
    cleanups.push(async () => {
      await t.close();
      removeDataDir(t.dataDir);
    });
    const makerUser = await createTrader(t, 1_000n * USDC);
    const takerUser = await createTrader(t, 1_000n * USDC);
    // The same exchange, served by an app whose realtime history lasts 300 ms.
    await t.app.close();
    const short = { historyTtlMs: 300, historySize: 1000, historyBytes: 4 * 1_048_576, recoverable: true };
    t.app = await buildApp(t.exchange, {
      logger: false,
      realtime: {
        channelPolicy: createChannelPolicy({
          streams: {
            order_book: { ...short, recovery: 'cache' },
            active_orders: { ...short, recovery: 'stream' },
            account: { ...short, recovery: 'stream' },
          },
        }),
      },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const proxy = await startTcpProxy(portOf(t));
    cleanups.push(() => proxy.close());
    const direct = `http://127.0.0.1:${portOf(t)}`;
    const { marketHash } = await createMarket(t);
    const watcher = sdk(proxy.url, makerUser);
    const trader = sdk(direct, makerUser);
    const taker = sdk(direct, takerUser);
    const since = new Date(Date.now() - 1000).toISOString();
    const book = await watcher.watchBook(marketHash);
    const orders = await watcher.watchOrders();
    const fills = await watcher.watchFills({ since });

    proxy.pause();
    const stop = keepTrading(trader, marketHash);
    await until(
      () => trader.getOrderBook(marketHash),
      (b) => b.outcomeOne.length > 0,
      10_000,
    );
    await taker.placeOrders([
      { marketHash, tick: 600, totalBetSize: 1n * USDC, isMakerBettingOutcomeOne: false, timeInForce: 'IOC' },
    ]);
    await stop();
    // Past the history's 300 ms: what the watcher missed is gone.
    await new Promise((resolve) => setTimeout(resolve, 800));
    proxy.resume();
    await until(
      () => [book.reseeds, orders.reseeds, fills.reseeds],
      (n) => n.every((r) => r >= 2),
      15_000,
    );
    await expectConverged(trader, marketHash, { book, orders, fills, since });
  }, 60_000);
});
