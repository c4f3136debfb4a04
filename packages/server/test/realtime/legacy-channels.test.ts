import { type AccountOrderUpdate, accountOrdersChannel, activeOrdersChannel } from '@oddsbook/protocol';
import type { Centrifuge, PublicationContext, Subscription } from 'centrifuge';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postV2Orders, signV2Order } from '../helpers/legacy.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, USDC } from '../helpers/trading.js';
import { exchangeClient, until } from './helpers.js';

const offset = { ms: 0 };
const clock = { now: () => Date.now() + offset.ms };
let t: TestExchange;
let api: string;
let start: number;
const clients: Centrifuge[] = [];

beforeAll(async () => {
  start = Math.floor(Date.now() / 1000);
  t = await startTestExchange({
    clock,
    env: {
      LEGACY_WS_SHUTDOWN_AT: String(start + 1_800),
      V2_CUTOVER_AT: String(start + 3_600),
      V2_HISTORY_REMOVED_AT: String(start + 7_200),
    },
  });
  api = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(() => {
  for (const c of clients.splice(0)) c.disconnect();
});
afterAll(async () => {
  offset.ms = 0;
  await t.close();
  removeDataDir(t.dataDir);
});

type Feed = { sub: Subscription; pubs: PublicationContext[]; subscribed: boolean; unsubscribedCode: number };

function follow(c: Centrifuge, channel: string): Feed {
  const sub = c.newSubscription(channel, { positioned: true, recoverable: true });
  const feed: Feed = { sub, pubs: [], subscribed: false, unsubscribedCode: 0 };
  sub.on('publication', (ctx) => feed.pubs.push(ctx));
  sub.on('subscribed', () => {
    feed.subscribed = true;
  });
  sub.on('unsubscribed', (ctx) => {
    feed.unsubscribedCode = ctx.code;
  });
  sub.subscribe();
  return feed;
}

function clientOf(user: TestUser): Centrifuge {
  const c = exchangeClient(api, user.headers);
  clients.push(c);
  c.connect();
  return c;
}

const data = (feed: Feed) => feed.pubs.map((p) => p.data as Record<string, unknown>);

describe('the legacy realtime channel names (issue 38)', () => {
  let maker: TestUser;
  let marketHash: `0x${string}`;

  it('carry the publications of their v3 counterparts before LEGACY_WS_SHUTDOWN_AT', async () => {
    maker = await createTrader(t, 100n * USDC);
    ({ marketHash } = await createMarket(t));
    const c = clientOf(maker);
    const base = t.config.baseToken;
    const v3Active = follow(c, activeOrdersChannel(maker.address));
    const v2Active = follow(c, `active_orders_v2:${base}:${maker.address}`);
    const v2Book = follow(c, `order_book_v2:${base}:${marketHash}`);
    const markets = follow(c, 'markets');
    const mainLine = follow(c, 'main_line');
    const otherToken = follow(c, `active_orders_v2:${maker.address}:${maker.address}`);
    await until(() => [v3Active, v2Active, v2Book, markets, mainLine].every((f) => f.subscribed));
    await until(() => otherToken.unsubscribedCode !== 0);
    expect(otherToken.unsubscribedCode).toBe(102);

    const { order } = await signV2Order(t, maker, { marketHash, tick: 400, size: 20n * USDC });
    expect((await postV2Orders(t, [order])).json().data.inserted).toBe(1);
    await until(() => v2Active.pubs.length >= 1);
    await until(() => v3Active.pubs.length >= 1);
    expect(data(v2Active)).toEqual(data(v3Active));
    await until(() => v2Book.pubs.length >= 1);
    expect(data(v2Book).at(-1)).toMatchObject({ marketHash });

    // A new moneyline: on `markets` and, as a main line, on `main_line` (moneylines publish there too).
    const created = await createMarket(t);
    await until(() => data(markets).some((m) => m.marketHash === created.marketHash));
    await until(() => data(mainLine).some((m) => m.marketHash === created.marketHash));
  });

  it('are refused as unknown from LEGACY_WS_SHUTDOWN_AT; v3 names go on', async () => {
    offset.ms = (start + 1_800) * 1000 - Date.now();
    const c = clientOf(maker);
    const legacy = follow(c, 'markets');
    const v3 = follow(c, 'markets:global');
    await until(() => legacy.unsubscribedCode !== 0);
    expect(legacy.unsubscribedCode).toBe(102);
    await until(() => v3.subscribed);
  });

  it('tell the owner of each v2 order that the cut-over cancelled it (V2_CUTOVER)', async () => {
    const c = clientOf(maker);
    const orders = follow(c, accountOrdersChannel(maker.address));
    await until(() => orders.subscribed);
    offset.ms = (start + 3_600) * 1000 - Date.now();
    const update = await until(() =>
      data(orders).find((o) => (o as AccountOrderUpdate).inactiveReason === 'V2_CUTOVER'),
    );
    expect(update).toMatchObject({ status: 'INACTIVE', inactiveReason: 'V2_CUTOVER', marketHash });
  });
});
