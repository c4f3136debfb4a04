import type { Centrifuge, DisconnectedContext } from 'centrifuge';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ALICE,
  closeAll,
  connectedRawClient,
  officialClient,
  pubsOf,
  sleep,
  startHub,
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

const marketBook = (i: number) => `order_book:market_0x${i.toString(16).padStart(64, '0')}`;

describe('limits', () => {
  it('accepts 512 channels per connection and refuses the 513th with 106', async () => {
    t = await startHub();
    const c = officialClient(t.url, { token: tokenFor(ALICE) });
    clients.push(c);
    const subs = Array.from({ length: 513 }, (_, i) =>
      c.newSubscription(marketBook(i), { positioned: true, recoverable: true }),
    );
    let refusedCode = 0;
    subs[512]!.on('unsubscribed', (ctx) => {
      refusedCode = ctx.code;
    });
    for (const sub of subs.slice(0, 512)) sub.subscribe();
    c.connect();
    await until(() => subs.slice(0, 512).every((s) => s.state === 'subscribed'), 10_000, '512 subscribed');
    subs[512]!.subscribe();
    await until(() => refusedCode !== 0, 5000, '513th refused');
    expect(refusedCode).toBe(106);
    expect(t.hub.stats().subscriptions).toBe(512);
    expect(c.state).toBe('connected');

    // After a reconnect all 512 resubscribe with recovery positions, in one message of about 110 KB.
    for (let i = 0; i < 512; i++) t.hub.publish(marketBook(i), { i });
    await until(() => t!.hub.stats().messages >= 512 + 513, 5000, 'publications delivered');
    let resubscribed = 0;
    for (const sub of subs.slice(0, 512))
      sub.on('subscribed', (ctx) => (resubscribed += ctx.recovered ? 1 : 0));
    for (const socket of t.sockets) socket.destroy();
    await until(() => resubscribed === 512, 10_000, '512 recovered');

    // A freed slot can be used again.
    subs[0]!.unsubscribe();
    const again = c.newSubscription(marketBook(1000));
    again.subscribe();
    await until(() => again.state === 'subscribed', 5000, 'subscribed after unsubscribe');
  });

  it('opens at most maxStreams streams: the one left first makes room, else 111 (temporary) until one does', async () => {
    t = await startHub({ maxStreams: 3 });
    const raw = await connectedRawClient(t.url);
    for (let i = 0; i < 3; i++) raw.send({ id: 10 + i, subscribe: { channel: marketBook(i) } });
    for (let i = 0; i < 3; i++) expect((await raw.reply(10 + i)).subscribe).toBeDefined();
    raw.send({ id: 13, subscribe: { channel: marketBook(3) } });
    expect((await raw.reply(13)).error).toEqual({ code: 111, message: 'too many requests', temporary: true });
    expect(t.hub.stats()).toMatchObject({ topics: 3, streamsRefused: 1 });
    expect(t.hub.observed(marketBook(3))).toBe(false);

    // A stream without followers (kept for its followers' recovery) gives way to a followed one.
    raw.send({ id: 14, unsubscribe: { channel: marketBook(0) } });
    await raw.reply(14);
    expect(t.hub.stats()).toMatchObject({ topics: 3, idleTopics: 1 });
    raw.send({ id: 15, subscribe: { channel: marketBook(3) } });
    expect((await raw.reply(15)).subscribe).toBeDefined();
    expect(t.hub.observed(marketBook(0))).toBe(false);
    expect(t.hub.stats()).toMatchObject({ topics: 3, idleTopics: 0, streamsRefused: 1 });
    // A position asked while every stream is followed names no stream: any later one holds only later publications.
    expect(t.hub.position(marketBook(9))).toEqual({ offset: 0, epoch: '' });
    t.hub.publish(marketBook(3), { n: 1 });
    await until(() => pubsOf(raw, marketBook(3)).length === 1, 5000, 'publication');
    raw.ws.close();
  });

  it('opens a stream only for a channel that exists (channelExists, asked once, async), answering in command order', async () => {
    const asked: string[] = [];
    t = await startHub({
      channelExists: async (channel) => {
        asked.push(channel);
        await sleep(20);
        return channel !== marketBook(9);
      },
    });
    const raw = await connectedRawClient(t.url);
    // The made-up one first: its check is pending while the next commands of the frame wait their turn.
    raw.send(
      { id: 10, subscribe: { channel: marketBook(9) } },
      { id: 11, subscribe: { channel: marketBook(1), positioned: true } },
      { id: 12, presence_stats: { channel: marketBook(1) } },
    );
    await raw.reply(12);
    const replies = raw.lines.filter((l) => typeof l.id === 'number' && (l.id as number) >= 10);
    expect(replies.map((l) => l.id)).toEqual([10, 11, 12]);
    expect(replies[0]!.error).toEqual({ code: 102, message: 'unknown channel' });
    expect(replies[1]!.subscribe).toBeDefined();
    expect(replies[2]!.presence_stats).toEqual({ num_clients: 1, num_users: 1 });
    expect(t.hub.observed(marketBook(9))).toBe(false);
    expect(t.hub.stats().topics).toBe(1);
    // A channel that has a stream already is not asked again.
    const other = await connectedRawClient(t.url);
    other.send({ id: 2, subscribe: { channel: marketBook(1) } });
    expect((await other.reply(2)).subscribe).toBeDefined();
    expect(asked).toEqual([marketBook(9), marketBook(1)]);
    raw.ws.close();
    other.ws.close();
  });

  it('closes a client sending a message over the size limit with 1009 (the client does not reconnect)', async () => {
    t = await startHub({ maxMessageBytes: 1024 });
    const raw = await connectedRawClient(t.url);
    raw.send({ id: 2, subscribe: { channel: 'markets:global', data: 'x'.repeat(2000) } });
    expect((await raw.closed).code).toBe(1009);

    const c = officialClient(t.url, { token: tokenFor(ALICE) });
    clients.push(c);
    const disconnected: DisconnectedContext[] = [];
    c.on('disconnected', (ctx) => disconnected.push(ctx));
    c.connect();
    await until(() => c.state === 'connected');
    const sub = c.newSubscription('markets:global', { data: 'x'.repeat(2000) });
    sub.subscribe();
    await until(() => disconnected.length === 1, 5000, 'disconnected');
    expect(disconnected[0]!.code).toBe(3);
    await sleep(200);
    expect(c.state).toBe('disconnected');
  });

  it('closes a client that does not read its output with 3008 once its queue is over the limit', async () => {
    t = await startHub({ maxQueueBytes: 64 * 1024, slowGraceMs: 100 });
    const raw = await connectedRawClient(t.url);
    raw.send({ id: 2, subscribe: { channel: 'markets:global' } });
    await raw.reply(2);
    // Stop reading: the kernel buffers fill up, then the server-side queue.
    (raw.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const big = 'y'.repeat(16 * 1024);
    const started = Date.now();
    for (let i = 0; i < 1000 && t.hub.stats().connections > 0; i++) {
      t.hub.publish('markets:global', { big, i });
      await sleep(2);
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(t.hub.stats().connections).toBe(0);
  });

  it('lets a client that reads take a burst bigger than the queue limit', async () => {
    t = await startHub({ maxQueueBytes: 64 * 1024, slowGraceMs: 1000 });
    const raw = await connectedRawClient(t.url);
    raw.send({ id: 2, subscribe: { channel: 'markets:global' } });
    await raw.reply(2);
    const big = 'z'.repeat(16 * 1024);
    for (let i = 0; i < 200; i++) t.hub.publish('markets:global', { big, i });
    for (let i = 0; i < 20; i++) {
      await sleep(5);
      t.hub.publish('markets:global', { i });
    }
    await until(() => pubsOf(raw, 'markets:global').length === 220, 5000, 'all publications');
    expect(t.hub.stats().connections).toBe(1);
    raw.ws.close();
  });
});
