import {
  ACCOUNT_FILLS_CHANNEL,
  accountOrdersChannel,
  accountTradesChannel,
  activeOrdersChannel,
  orderBookMarketChannel,
} from '@oddsbook/protocol';
import type { Centrifuge } from 'centrifuge';
import { getAddress } from 'viem';
import { exchangeClient } from '../../packages/server/test/realtime/helpers.js';
import type { BenchTrader } from './order-fixtures.js';

export type Followers = {
  /** Publications received so far, over every follower. */
  publications(): number;
  close(): void;
};

const LIVE_WITHIN_MS = 60_000;

/**
 * Traders that follow their own trading over the realtime WebSocket, as a bot with a UI or a market maker
 * would: one official-client connection each (token from the REST route), positioned and recoverable
 * subscriptions to its orders, active orders, trades and fills, and the books of the markets. Resolves once
 * every subscription is live.
 */
export async function follow(
  base: string,
  traders: readonly BenchTrader[],
  marketHashes: readonly string[],
): Promise<Followers> {
  const clients: Centrifuge[] = [];
  const live: Promise<void>[] = [];
  let received = 0;
  for (const trader of traders) {
    const user = getAddress(trader.address);
    const client = exchangeClient(base, { 'x-svc-api-key': trader.apiKey });
    clients.push(client);
    const channels = [
      accountOrdersChannel(user),
      activeOrdersChannel(user),
      accountTradesChannel(user),
      ACCOUNT_FILLS_CHANNEL,
      ...marketHashes.map(orderBookMarketChannel),
    ];
    for (const channel of channels) {
      const sub = client.newSubscription(channel, { positioned: true, recoverable: true });
      live.push(
        new Promise((resolve, reject) => {
          sub.once('subscribed', () => resolve());
          sub.once('error', (ctx) =>
            reject(new Error(`follower ${user} on ${channel}: ${ctx.error.message}`)),
          );
        }),
      );
      sub.on('publication', () => {
        received++;
      });
      sub.subscribe();
    }
    client.connect();
  }
  const close = () => {
    for (const client of clients) client.disconnect();
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`followers not live after ${LIVE_WITHIN_MS / 1000} s`)),
      LIVE_WITHIN_MS,
    );
  });
  try {
    await Promise.race([Promise.all(live), timeout]);
  } catch (error) {
    close();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return { publications: () => received, close };
}
