import type { Centrifuge, PublicationContext, SubscribedContext } from 'centrifuge';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ALICE,
  closeAll,
  connectedRawClient,
  officialClient,
  pubsOf,
  startHub,
  TAPE,
  type TestHub,
  tokenFor,
  until,
} from './helpers.js';

let t: TestHub | undefined;
const clients: Centrifuge[] = [];

afterEach(async () => {
  await closeAll(t, clients);
  t = undefined;
});

/**
 * Publishes on TAPE once per event-loop turn, or once per millisecond (so that a reconnect misses fewer
 * than the 1000 publications a recovery may return), and twice in some turns, until stopped.
 */
function publishContinuously(hub: TestHub['hub'], pace: 'turn' | 'ms' = 'turn'): { stop(): Promise<number> } {
  let running = true;
  let count = 0;
  const done = new Promise<void>((resolve) => {
    const step = () => {
      if (!running) return resolve();
      hub.publish(TAPE, { n: ++count });
      if (count % 3 === 0) hub.publish(TAPE, { n: ++count });
      if (pace === 'turn') setImmediate(step);
      else setTimeout(step, 1);
    };
    step();
  });
  return {
    async stop() {
      running = false;
      await done;
      return count;
    },
  };
}

describe('a publication racing a subscribe', () => {
  it('is delivered exactly once: either counted in the subscribe position or pushed after the reply', async () => {
    t = await startHub();
    for (let round = 0; round < 20; round++) {
      const raw = await connectedRawClient(t.url);
      const publisher = publishContinuously(t.hub);
      await new Promise((resolve) => setImmediate(resolve));
      raw.send({ id: 2, subscribe: { channel: TAPE, positioned: true, recoverable: true } });
      const reply = (await raw.reply(2)) as { subscribe: { offset?: number } };
      const start = reply.subscribe.offset ?? 0; // omitted when 0, as Centrifugo does
      await until(() => pubsOf(raw, TAPE).length >= 3, 5000, 'live publications');
      await publisher.stop();
      const top = t.hub.publish(TAPE, { n: 'last' }).offset;
      await until(() => pubsOf(raw, TAPE).at(-1)?.offset === top, 5000, 'last publication');

      const replyIndex = raw.lines.findIndex((l) => l.id === 2);
      const firstPubIndex = raw.lines.findIndex(
        (l) => (l.push as { pub?: unknown } | undefined)?.pub !== undefined,
      );
      expect(firstPubIndex).toBeGreaterThan(replyIndex);
      const got = pubsOf(raw, TAPE).map((p) => p.offset!);
      const expected = Array.from({ length: top - start }, (_, i) => start + 1 + i);
      expect(got).toEqual(expected);
      raw.ws.close();
    }
  });

  it('with recovery: recovered and live publications join without a gap or a duplicate', async () => {
    t = await startHub();
    const c = officialClient(t.url, { token: tokenFor(ALICE) });
    clients.push(c);
    const sub = c.newSubscription(TAPE, { positioned: true, recoverable: true });
    const subscribed: SubscribedContext[] = [];
    const pubs: PublicationContext[] = [];
    sub.on('subscribed', (ctx) => subscribed.push(ctx));
    sub.on('publication', (ctx) => pubs.push(ctx));
    sub.subscribe();
    c.connect();
    await until(() => subscribed.length === 1);

    const publisher = publishContinuously(t.hub, 'ms');
    for (let cut = 0; cut < 5; cut++) {
      await until(() => pubs.length > 0 && sub.state === 'subscribed');
      const seen = pubs.length;
      await until(() => pubs.length >= seen + 5, 5000, 'more publications');
      for (const socket of t.sockets) socket.destroy();
      await until(() => subscribed.length === cut + 2, 5000, 'resubscribed');
    }
    const top = await publisher.stop();
    await until(() => pubs.at(-1)?.offset === top, 5000, 'caught up');

    expect(subscribed.slice(1).every((s) => s.wasRecovering && s.recovered)).toBe(true);
    const first = pubs[0]!.offset!;
    expect(pubs.map((p) => p.offset)).toEqual(Array.from({ length: top - first + 1 }, (_, i) => first + i));
  });
});
