import type { Centrifuge } from 'centrifuge';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { createChannelPolicy, DEFAULT_STREAM_SETTINGS } from '../../src/realtime/channel-policy.js';
import {
  ALICE,
  BOB,
  BOOK,
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

const MIB = 1_048_576;
/** A book publication of about 3 KB, as a book with a few dozen levels is. */
const book = (i: number) => ({ version: String(i).padStart(20, '0'), levels: 'L'.repeat(3000) });
const marketBook = (i: number) => `order_book:market_0x${i.toString(16).padStart(64, '0')}`;

function errorCodes(lines: Record<string, unknown>[]): number[] {
  return lines.flatMap((l) => (l.error ? [(l.error as { code: number }).code] : []));
}

describe('what one frame and one connection may cost', () => {
  it('answers a frame of 400 history commands on a busy channel within the reply budget, then 111; the connection stays', async () => {
    // Default limits, but a channel that keeps its 1,000 publications of 3 KB (its own 4 MiB would keep
    // about 650). Unbounded, the replies (400 x 1000 x 3 KB) joined into one frame passed V8's string
    // limit, and the RangeError ended the process.
    t = await startHub({
      channelPolicy: createChannelPolicy({
        streams: { recent_trades: { ...DEFAULT_STREAM_SETTINGS.recent_trades, historyBytes: 64 * MIB } },
      }),
    });
    const raw = await connectedRawClient(t.url);
    raw.send({ id: 2, subscribe: { channel: TAPE } });
    await raw.reply(2);
    for (let i = 0; i < 1000; i++) t.hub.publish(TAPE, book(i));
    const commands = Array.from({ length: 400 }, (_, i) => ({
      id: 10 + i,
      history: { channel: TAPE, limit: 1000 },
    }));
    raw.send(...commands);
    await raw.reply(409);
    const replies = raw.lines.filter((l) => typeof l.id === 'number' && (l.id as number) >= 10);
    expect(replies).toHaveLength(400);
    const given = replies.filter((l) => l.history !== undefined);
    // Each reply is about 3 MB: only what fits in 16 MiB of unsent output is given.
    expect(given.length).toBeGreaterThan(0);
    expect(given.length).toBeLessThanOrEqual(5);
    expect((given[0]!.history as { publications: unknown[] }).publications).toHaveLength(1000);
    expect(new Set(errorCodes(replies))).toEqual(new Set([111]));
    const tooMany = replies.find((l) => l.error)!.error;
    expect(tooMany).toEqual({ code: 111, message: 'too many requests', temporary: true });
    expect(t.hub.stats().connections).toBe(1);

    // Once the client has read it all, history is answered again.
    raw.send({ id: 1000, history: { channel: TAPE, limit: 10 } });
    expect((await raw.reply(1000)).history).toBeDefined();
    raw.ws.close();
  });

  it('answers a history reply bigger than the whole budget with 106, and the official client keeps its connection', async () => {
    t = await startHub({ maxReplyBytes: 64 * 1024, maxUnsentBytes: MIB });
    const c = officialClient(t.url, { token: tokenFor(ALICE) });
    clients.push(c);
    const sub = c.newSubscription(TAPE, { positioned: true, recoverable: true });
    sub.subscribe();
    c.connect();
    await until(() => sub.state === 'subscribed', 5000, 'subscribed');
    for (let i = 0; i < 100; i++) t.hub.publish(TAPE, book(i));

    await expect(sub.history({ limit: 100 })).rejects.toMatchObject({ code: 106 });
    const some = await sub.history({ limit: 10 });
    expect(some.publications).toHaveLength(10);
    // Twenty calls at once: those that do not fit in the budget get 111 (temporary), the rest their replies.
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => sub.history({ limit: 10 })));
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 111 });
    expect(results.some((r) => r.status === 'fulfilled')).toBe(true);
    expect(c.state).toBe('connected');
    expect(sub.state).toBe('subscribed');
  });

  it('closes only the connection whose frame could not be written (3004); the others and the process go on', async () => {
    t = await startHub();
    const alice = await connectedRawClient(t.url, ALICE);
    const bob = await connectedRawClient(t.url, BOB);
    alice.send({ id: 2, subscribe: { channel: BOOK } });
    bob.send({ id: 2, subscribe: { channel: 'markets:global' } });
    await alice.reply(2);
    await bob.reply(2);
    // A write that throws, as the frame of an unbounded reply once did (RangeError: Invalid string length).
    const send = WebSocket.prototype.send;
    const spy = vi.spyOn(WebSocket.prototype, 'send').mockImplementation(function (this: WebSocket, ...args) {
      if (String(args[0]).includes('unwritable')) throw new RangeError('Invalid string length');
      return send.apply(this, args as Parameters<typeof send>);
    });
    try {
      t.hub.publish(BOOK, { note: 'unwritable' });
      t.hub.publish('markets:global', { note: 'fine' });
      expect(await alice.closed).toEqual({ code: 3004, reason: 'internal server error' });
      await until(() => pubsOf(bob, 'markets:global').length === 1, 5000, 'bob served');
    } finally {
      spy.mockRestore();
    }
    t.hub.publish('markets:global', { note: 'after' });
    await until(() => pubsOf(bob, 'markets:global').length === 2, 5000, 'bob served after');
    expect(t.hub.stats().connections).toBe(1);
    bob.ws.close();
  });

  it('closes a connection with more commands in one frame than allowed with 3501', async () => {
    t = await startHub({ maxCommandsPerFrame: 100 });
    const raw = await connectedRawClient(t.url);
    raw.send(...Array.from({ length: 101 }, (_, i) => ({ id: 10 + i, presence_stats: { channel: BOOK } })));
    expect(await raw.closed).toEqual({ code: 3501, reason: 'bad request' });
  });

  it('closes a client that sends history commands without reading with 3008 at once, holding at most maxUnsentBytes', async () => {
    t = await startHub({ maxReplyBytes: 256 * 1024, maxUnsentBytes: MIB, slowGraceMs: 60_000 });
    const raw = await connectedRawClient(t.url);
    raw.send({ id: 2, subscribe: { channel: TAPE } });
    await raw.reply(2);
    for (let i = 0; i < 50; i++) t.hub.publish(TAPE, book(i));
    (raw.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    // Each frame asks for far more than the budget; the error replies alone would grow without bound.
    const frame = Array.from({ length: 1000 }, (_, i) => ({
      id: 10 + i,
      history: { channel: TAPE, limit: 50 },
    }));
    for (let i = 0; i < 500 && t.hub.stats().connections > 0; i++) {
      raw.send(...frame);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await until(() => t!.hub.stats().connections === 0, 10_000, 'closed');
    (raw.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await raw.closed).toEqual({ code: 3008, reason: 'slow' });
  });

  it('lets a client re-subscribe 512 busy channels: every subscription succeeds, recovered while within the budget', async () => {
    // Books that keep every publication (recovery mode stream), so that what 512 channels missed is
    // more than the reply budget; by default a book channel keeps only its latest book.
    t = await startHub({
      channelPolicy: createChannelPolicy({
        streams: { order_book: { ...DEFAULT_STREAM_SETTINGS.order_book, recovery: 'stream' } },
      }),
    });
    const c = officialClient(t.url, { token: tokenFor(ALICE) });
    clients.push(c);
    const subs = Array.from({ length: 512 }, (_, i) =>
      c.newSubscription(marketBook(i), { positioned: true, recoverable: true }),
    );
    for (const sub of subs) sub.subscribe();
    c.connect();
    await until(() => subs.every((s) => s.state === 'subscribed'), 10_000, '512 subscribed');

    // While it is away, every book moves 12 times (about 18 MB in all: more than the reply budget).
    let recovered = 0;
    let reseeded = 0;
    let delivered = 0;
    for (const sub of subs) {
      sub.on('subscribed', (ctx) => {
        if (!ctx.wasRecovering) return;
        if (ctx.recovered) recovered++;
        else reseeded++;
      });
      sub.on('publication', () => delivered++);
    }
    for (let i = 0; i < 512; i++) t.hub.publish(marketBook(i), book(0));
    await until(() => delivered === 512, 10_000, 'first publications');
    let disconnects = 0;
    c.on('disconnected', () => disconnects++);
    c.on('connecting', () => disconnects++);
    for (const socket of t.sockets) socket.destroy();
    await until(() => c.state === 'connecting', 5000, 'connecting');
    disconnects = 0;
    delivered = 0;
    for (let round = 0; round < 12; round++)
      for (let i = 0; i < 512; i++) t.hub.publish(marketBook(i), book(round));
    await until(() => recovered + reseeded === 512, 20_000, '512 resubscribed');
    expect(recovered).toBeGreaterThan(0);
    expect(reseeded).toBeGreaterThan(0);
    await until(() => delivered === recovered * 12, 20_000, 'recovered publications delivered');
    // Live publications reach every channel afterwards, on the same connection.
    for (let i = 0; i < 512; i++) t.hub.publish(marketBook(i), book(99));
    await until(() => delivered === recovered * 12 + 512, 20_000, 'live publications');
    expect(disconnects).toBe(0);
    expect(c.state).toBe('connected');
  }, 60_000);
});
