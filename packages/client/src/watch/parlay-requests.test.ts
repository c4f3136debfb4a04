import { GLOBAL_CHANNELS } from '@oddsbook/protocol';
import { describe, expect, it } from 'vitest';
import { ChannelSubscription, type RealtimeConnection, RealtimeError } from '../realtime/connection.js';
import { type ParlayRequest, ParlayRequests } from './parlay-requests.js';

const USDC = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const OTHER = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512';
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/** A real subscription of the channel, driven as the connection drives it (without a socket). */
function subscription() {
  const forgotten: string[] = [];
  const connection = { forget: (s: { channel: string }) => forgotten.push(s.channel) };
  const sub = new ChannelSubscription(
    GLOBAL_CHANNELS.parlay_markets,
    connection as unknown as RealtimeConnection,
    100,
  );
  let offset = 0;
  const publish = (marketHash: string, baseToken = USDC) =>
    sub.published({
      offset: ++offset,
      data: {
        channelName: 'markets:parlay',
        marketHash,
        baseToken,
        requestSize: '10000000',
        legs: [
          { marketHash: hash(101), bettingOutcomeOne: true },
          { marketHash: hash(102), bettingOutcomeOne: false },
        ],
        messageId: `m${offset}`,
      },
    });
  return { sub, publish, forgotten };
}

describe('ParlayRequests', () => {
  it('is ready once subscribed and delivers each request once, without its message id', async () => {
    const { sub, publish } = subscription();
    const requests = new ParlayRequests({ subscription: sub });
    const heard: ParlayRequest[] = [];
    requests.on((r) => heard.push(r));
    const iterator = requests[Symbol.asyncIterator]();
    sub.subscribed({ recoverable: false, positioned: true, offset: 0, epoch: 'e' });
    await requests.ready;
    expect(requests.live).toBe(true);
    publish(hash(1));
    publish(hash(1));
    publish(hash(2));
    expect(heard.map((r) => r.marketHash)).toEqual([hash(1), hash(2)]);
    expect(heard[0]).not.toHaveProperty('messageId');
    expect(heard[0]!.legs).toEqual([
      { marketHash: hash(101), bettingOutcomeOne: true },
      { marketHash: hash(102), bettingOutcomeOne: false },
    ]);
    expect((await iterator.next()).value.marketHash).toBe(hash(1));
    expect((await iterator.next()).value.marketHash).toBe(hash(2));
    expect(requests.received).toBe(2);
  });

  it('keeps to one token when asked', () => {
    const { sub, publish } = subscription();
    const requests = new ParlayRequests({ subscription: sub, baseToken: USDC.toUpperCase() });
    const heard: string[] = [];
    requests.on((r) => heard.push(r.marketHash));
    sub.subscribed({});
    publish(hash(1), OTHER);
    publish(hash(2), USDC);
    expect(heard).toEqual([hash(2)]);
  });

  it('says requests may have been missed after a drop, since the channel keeps no history', () => {
    const { sub, publish } = subscription();
    let missed = 0;
    const requests = new ParlayRequests({ subscription: sub, onMissed: () => missed++ });
    const heard: string[] = [];
    requests.on((r) => heard.push(r.marketHash));
    sub.subscribed({});
    expect(missed).toBe(0);
    sub.interrupted();
    expect(requests.live).toBe(false);
    sub.subscribed({ recovered: false });
    expect(missed).toBe(1);
    expect(requests.live).toBe(true);
    publish(hash(3));
    expect(heard).toEqual([hash(3)]);
  });

  it('ends its iterators and rejects `ready` when the subscription is refused', async () => {
    const { sub } = subscription();
    const errors: unknown[] = [];
    const requests = new ParlayRequests({ subscription: sub, onError: (e) => errors.push(e) });
    const iterator = requests[Symbol.asyncIterator]();
    sub.failed(new RealtimeError(103, 'permission denied'));
    await expect(requests.ready).rejects.toThrow('103: permission denied');
    expect(errors).toHaveLength(1);
    expect((await iterator.next()).done).toBe(true);
  });

  it('lets go of the channel on close', async () => {
    const { sub, forgotten } = subscription();
    const requests = new ParlayRequests({ subscription: sub });
    const iterator = requests[Symbol.asyncIterator]();
    sub.subscribed({});
    requests.close();
    expect(forgotten).toEqual([GLOBAL_CHANNELS.parlay_markets]);
    expect((await iterator.next()).done).toBe(true);
  });
});
