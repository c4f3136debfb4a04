import { ExchangeApiError, type ExchangeClient } from '@oddsbook/client';
import type { Channel, ChannelPayload } from '@oddsbook/protocol';
import { Centrifuge, type Subscription, UnauthorizedError } from 'centrifuge';
import { useEffect, useState } from 'preact/hooks';
import { tradingClient } from './session.js';

/**
 * One realtime connection per API key (the official centrifuge client). Tokens come from
 * `GET /user/realtime-token-v3/api-key`; a refused key stops the client instead of retrying.
 */
export function connectRealtime(client: ExchangeClient): Centrifuge {
  const url = `${location.origin.replace(/^http/, 'ws')}/connection/websocket`;
  const centrifuge = new Centrifuge(url, {
    getToken: async () => {
      try {
        return await client.realtimeToken();
      } catch (error) {
        if (error instanceof ExchangeApiError && error.status === 401)
          throw new UnauthorizedError('the API key was refused');
        throw error;
      }
    },
  });
  centrifuge.connect();
  return centrifuge;
}

/**
 * Follows a recoverable channel: publications go to `onData`, typed by the channel's name (the protocol's
 * channel-to-payload map); whenever the subscription starts without recovering what it missed (first
 * subscribe, history gone, a restart) `reseed` reloads from REST.
 */
export function follow<C extends Channel>(
  centrifuge: Centrifuge,
  channel: C,
  handlers: {
    onData: (data: ChannelPayload<C>) => void;
    reseed: () => void;
    onState?: (live: boolean) => void;
  },
): () => void {
  const existing = centrifuge.getSubscription(channel);
  if (existing) centrifuge.removeSubscription(existing);
  const sub: Subscription = centrifuge.newSubscription(channel, { positioned: true, recoverable: true });
  sub.on('subscribed', (ctx) => {
    handlers.onState?.(true);
    if (!ctx.recovered) handlers.reseed();
  });
  sub.on('unsubscribed', () => handlers.onState?.(false));
  sub.on('subscribing', () => handlers.onState?.(false));
  sub.on('publication', (ctx) => handlers.onData(ctx.data));
  sub.subscribe();
  return () => {
    sub.unsubscribe();
    centrifuge.removeSubscription(sub);
  };
}

/** One realtime connection while the page has an API key (null before and after). */
export function useRealtime(apiKey: string | undefined): Centrifuge | null {
  const [centrifuge, setCentrifuge] = useState<Centrifuge | null>(null);
  useEffect(() => {
    if (!apiKey) return;
    const c = connectRealtime(tradingClient());
    setCentrifuge(c);
    return () => {
      c.disconnect();
      setCentrifuge(null);
    };
  }, [apiKey]);
  return centrifuge;
}
