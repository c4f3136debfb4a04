import { type AccountOrderUpdate, accountOrdersChannel } from '@oddsbook/protocol';
import type { Centrifuge, PublicationContext, SubscribedContext } from 'centrifuge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC } from '../helpers/trading.js';
import { exchangeClient, sleep, until } from './helpers.js';

let t: TestExchange;
let api: string;
const clients: Centrifuge[] = [];

beforeAll(async () => {
  t = await startTestExchange();
  api = await t.app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  await t.close();
  removeDataDir(t.dataDir);
});

describe('recovery on the exchange', () => {
  it('recovers an order that went ACTIVE while its only follower was away (600 ms)', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t, 100n * USDC);
    const c = exchangeClient(api, maker.headers);
    clients.push(c);
    const sub = c.newSubscription(accountOrdersChannel(maker.address), {
      positioned: true,
      recoverable: true,
    });
    const subscribed: SubscribedContext[] = [];
    const pubs: PublicationContext[] = [];
    sub.on('subscribed', (ctx) => subscribed.push(ctx));
    sub.on('publication', (ctx) => pubs.push(ctx));
    sub.subscribe();
    c.connect();
    await until(() => subscribed.length === 1, 5000, 'subscribed');

    c.disconnect();
    await until(
      () => t.exchange && subscribed.length === 1 && c.state === 'disconnected',
      5000,
      'disconnected',
    );
    const order = await place(t, maker, { marketHash, tick: 400, size: 10n * USDC });
    expect(order.outcome.state).toBe('RESTED');
    await sleep(600);
    c.connect();
    await until(() => subscribed.length === 2, 5000, 'resubscribed');
    expect(subscribed[1]).toMatchObject({ wasRecovering: true, recovered: true });
    await until(() => pubs.length === 1, 5000, 'recovered publication');
    expect(pubs[0]!.data as AccountOrderUpdate).toMatchObject({ id: order.orderId, status: 'ACTIVE' });
  });
});
