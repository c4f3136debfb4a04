import {
  ACCOUNT_FILLS_CHANNEL,
  accountOrdersChannel,
  accountTradesChannel,
  activeOrdersChannel,
  orderBookMarketChannel,
} from '@oddsbook/protocol';
import { Centrifuge } from 'centrifuge';
import { getAddress } from 'viem';
import WebSocket from 'ws';
import type { BenchTrader } from './order-fixtures.js';

export type Followers = {
  /** Publications received so far, over every follower. */
  publications(): number;
  close(): void;
};

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
  const url = `${base.replace('http://', 'ws://')}/connection/websocket`;
  const clients: Centrifuge[] = [];
  let received = 0;
  let pending = 0;
  let failed: Error | undefined;
  let allLive: () => void = () => {};
  const live = new Promise<void>((resolve) => {
    allLive = resolve;
  });
  for (const trader of traders) {
    const user = getAddress(trader.address);
    const client = new Centrifuge(url, {
      websocket: WebSocket,
      getToken: async () => {
        const res = await fetch(`${base}/user/realtime-token-v3/api-key`, {
          headers: { 'x-svc-api-key': trader.apiKey },
        });
        return ((await res.json()) as { data: { token: string } }).data.token;
      },
    });
    const channels = [
      accountOrdersChannel(user),
      activeOrdersChannel(user),
      accountTradesChannel(user),
      ACCOUNT_FILLS_CHANNEL,
      ...marketHashes.map(orderBookMarketChannel),
    ];
    for (const channel of channels) {
      const sub = client.newSubscription(channel, { positioned: true, recoverable: true });
      pending++;
      sub.once('subscribed', () => {
        if (--pending === 0) allLive();
      });
      sub.on('error', (ctx) => {
        failed = new Error(`follower ${user} on ${channel}: ${ctx.error.message}`);
        allLive();
      });
      sub.on('publication', () => {
        received++;
      });
      sub.subscribe();
    }
    client.connect();
    clients.push(client);
  }
  const timeout = setTimeout(() => {
    failed ??= new Error(`followers: ${pending} subscriptions still not live after 60 s`);
    allLive();
  }, 60_000);
  if (pending > 0) await live;
  clearTimeout(timeout);
  if (failed) {
    for (const client of clients) client.disconnect();
    throw failed;
  }
  return {
    publications: () => received,
    close() {
      for (const client of clients) client.disconnect();
    },
  };
}
