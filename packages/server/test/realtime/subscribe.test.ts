import { accountOrdersChannel, accountTradesChannel } from '@oddsbook/protocol';
import type { Centrifuge, PublicationContext, SubscribedContext } from 'centrifuge';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ALICE,
  BOB,
  BOOK,
  connectedRawClient,
  officialClient,
  startHub,
  TAPE,
  type TestHub,
  tokenFor,
  until,
} from './helpers.js';

let t: TestHub;
const clients: Centrifuge[] = [];

function client(user: string): Centrifuge {
  const c = officialClient(t.url, { token: tokenFor(user) });
  clients.push(c);
  return c;
}

beforeEach(async () => {
  t = await startHub();
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  await t.close();
});

describe('official client: connect, subscribe, receive', () => {
  it('connects, subscribes positioned+recoverable and receives publications with messageId', async () => {
    const c = client(ALICE);
    const sub = c.newSubscription(BOOK, { positioned: true, recoverable: true });
    const subscribed: SubscribedContext[] = [];
    const pubs: PublicationContext[] = [];
    sub.on('subscribed', (ctx) => subscribed.push(ctx));
    sub.on('publication', (ctx) => pubs.push(ctx));
    sub.subscribe();
    c.connect();
    await until(() => subscribed.length === 1, 5000, 'subscribed');
    expect(subscribed[0]).toMatchObject({
      positioned: true,
      recoverable: true,
      wasRecovering: false,
      recovered: false,
    });
    expect(subscribed[0]!.streamPosition?.epoch).toMatch(/.+/);

    const first = t.hub.publish(BOOK, { levels: [1] });
    const second = t.hub.publish(BOOK, { levels: [2], messageId: 'book-2' });
    expect(first.offset).toBe(1);
    expect(second).toMatchObject({ offset: 2, messageId: 'book-2' });
    await until(() => pubs.length === 2, 5000, 'publications');
    expect(pubs[0]!.data).toEqual({ messageId: first.messageId, levels: [1] });
    expect(pubs[0]!.offset).toBe(1);
    expect(pubs[0]!.tags).toEqual({ messageId: first.messageId });
    expect(pubs[1]!.data).toEqual({ levels: [2], messageId: 'book-2' });
  });

  it('lets a user subscribe to its own account channels and denies another user with 103', async () => {
    const c = client(ALICE);
    c.connect();
    const own = c.newSubscription(accountOrdersChannel(ALICE), { positioned: true, recoverable: true });
    const other = c.newSubscription(accountTradesChannel(BOB), { positioned: true, recoverable: true });
    const errors: number[] = [];
    let otherCode = 0;
    other.on('error', (ctx) => errors.push(ctx.error.code));
    other.on('unsubscribed', (ctx) => {
      otherCode = ctx.code;
    });
    own.subscribe();
    other.subscribe();
    await until(() => own.state === 'subscribed', 5000, 'own subscribed');
    await until(() => otherCode !== 0, 5000, 'other unsubscribed');
    expect(otherCode).toBe(103);
    expect(other.state).toBe('unsubscribed');

    const pubs: unknown[] = [];
    own.on('publication', (ctx) => pubs.push(ctx.data));
    t.hub.publish(accountOrdersChannel(ALICE), { status: 'ACTIVE' });
    await until(() => pubs.length === 1);
  });

  it('answers 102 for legacy and malformed channel names', async () => {
    const c = client(ALICE);
    c.connect();
    const names = [
      'markets',
      'recent_trades',
      `best_odds:0xd1f05A1F2d3F5ef80e000ABD9c6Da3a9495Da054`,
      `active_orders_v2:0xd1f05A1F2d3F5ef80e000ABD9c6Da3a9495Da054:${ALICE}`,
      `order_book_v2:0xd1f05A1F2d3F5ef80e000ABD9c6Da3a9495Da054:0x${'ab'.repeat(32)}`,
      'fixtures:fixture_update',
      `account:orders_v3_#${ALICE.toLowerCase()}`,
    ];
    const codes = new Map<string, number>();
    for (const name of names) {
      const sub = c.newSubscription(name);
      sub.on('unsubscribed', (ctx) => codes.set(name, ctx.code));
      sub.subscribe();
    }
    await until(() => codes.size === names.length, 5000, 'all refused');
    expect([...codes.values()]).toEqual(names.map(() => 102));
  });

  it('delivers account:fills_v3 to each user only its own fills', async () => {
    const alice = client(ALICE);
    const bob = client(BOB);
    const got = { alice: [] as unknown[], bob: [] as unknown[] };
    for (const [name, c] of [
      ['alice', alice],
      ['bob', bob],
    ] as const) {
      const sub = c.newSubscription('account:fills_v3', { positioned: true, recoverable: true });
      sub.on('publication', (ctx) => got[name].push(ctx.data));
      sub.subscribe();
      c.connect();
      await until(() => sub.state === 'subscribed');
    }
    t.hub.publishMany([
      { channel: 'account:fills_v3', user: ALICE, data: { fill: 'a1' } },
      { channel: 'account:fills_v3', user: BOB.toLowerCase(), data: { fill: 'b1' } },
      { channel: 'account:fills_v3', user: ALICE, data: { fill: 'a2' } },
    ]);
    await until(() => got.alice.length === 2 && got.bob.length === 1, 5000, 'fills');
    expect(got.alice).toMatchObject([{ fill: 'a1' }, { fill: 'a2' }]);
    expect(got.bob).toMatchObject([{ fill: 'b1' }]);
    expect(() => t.hub.publish('account:fills_v3', {})).toThrow(/needs the user/);
    expect(() => t.hub.publish('markets', {})).toThrow(/not a realtime channel/);
  });

  it('marks channels without history as not recoverable', async () => {
    const c = client(ALICE);
    const sub = c.newSubscription('best_odds:global', { positioned: true, recoverable: true });
    let ctx: SubscribedContext | undefined;
    sub.on('subscribed', (x) => {
      ctx = x;
    });
    const pubs: PublicationContext[] = [];
    sub.on('publication', (p) => pubs.push(p));
    sub.subscribe();
    c.connect();
    await until(() => ctx);
    expect(ctx).toMatchObject({ recoverable: false, positioned: false });
    expect(t.hub.publish('best_odds:global', [{ odds: 1 }])).toMatchObject({ offset: 0 });
    await until(() => pubs.length === 1);
    expect(pubs[0]!.data).toEqual([{ odds: 1 }]);
    expect(pubs[0]!.tags?.messageId).toMatch(/.+/);
  });

  it('serves history and presence stats to subscribers, and refuses rpc and client publish', async () => {
    const c = client(ALICE);
    const sub = c.newSubscription(TAPE, { positioned: true, recoverable: true });
    sub.subscribe();
    c.connect();
    await until(() => sub.state === 'subscribed');
    for (let i = 1; i <= 3; i++) t.hub.publish(TAPE, { i });
    const history = await sub.history({ limit: 2, reverse: true });
    expect(history.publications.map((p) => p.offset)).toEqual([3, 2]);
    expect(history.offset).toBe(3);
    expect((await sub.history({ limit: 0 })).publications).toEqual([]);
    const since = await sub.history({ limit: -1, since: { offset: 1, epoch: history.epoch } });
    expect(since.publications.map((p) => p.offset)).toEqual([2, 3]);
    await expect(sub.history({ limit: 10, since: { offset: 1, epoch: 'other' } })).rejects.toMatchObject({
      code: 112,
    });
    expect(await sub.presenceStats()).toEqual({ numClients: 1, numUsers: 1 });
    await expect(sub.publish({ x: 1 })).rejects.toMatchObject({ code: 103 });
    await expect(c.rpc('anything', {})).rejects.toMatchObject({ code: 108 });
    await expect(sub.presence()).rejects.toMatchObject({ code: 108 });
    await expect(c.history('markets:global', { limit: 1 })).rejects.toMatchObject({ code: 103 });
    await expect(c.history('markets', { limit: 1 })).rejects.toMatchObject({ code: 102 });
  });
});

describe('raw protocol replies', () => {
  it('answers with the result key always present, 105 for a second subscribe, and {} for unsubscribe', async () => {
    const raw = await connectedRawClient(t.url);
    const connect = raw.lines[0] as { connect: Record<string, unknown> };
    expect(connect.connect).toMatchObject({ version: '0.1.0', ping: 30, pong: true, expires: true });
    expect(typeof connect.connect.client).toBe('string');
    raw.send(
      { id: 2, subscribe: { channel: 'markets:global' } },
      { id: 3, subscribe: { channel: 'markets:global' } },
      { id: 4, subscribe: { channel: 'best_odds:global', positioned: true, recoverable: true, flag: 1 } },
      { id: 5, unsubscribe: { channel: 'markets:global' } },
      { id: 6, unsubscribe: { channel: 'never-subscribed' } },
      { id: 7, subscribe: { channel: 'x'.repeat(256) } },
      { id: 8, sub_refresh: { channel: 'markets:global' } },
    );
    expect(await raw.reply(2)).toEqual({ id: 2, subscribe: {} });
    expect(await raw.reply(3)).toEqual({ id: 3, error: { code: 105, message: 'already subscribed' } });
    expect(await raw.reply(4)).toEqual({ id: 4, subscribe: {} });
    expect(await raw.reply(5)).toEqual({ id: 5, unsubscribe: {} });
    expect(await raw.reply(6)).toEqual({ id: 6, unsubscribe: {} });
    expect(await raw.reply(7)).toEqual({ id: 7, error: { code: 107, message: 'bad request' } });
    expect(await raw.reply(8)).toEqual({ id: 8, error: { code: 108, message: 'not available' } });
    raw.ws.close();
  });

  it('upgrades only /connection/websocket (query allowed), JSON only', async () => {
    const { WebSocket } = await import('ws');
    const attempt = (url: string, protocols?: string[]) =>
      new Promise<string>((resolve) => {
        const ws = new WebSocket(url, protocols);
        ws.on('open', () => {
          resolve(`open:${ws.protocol}`);
          ws.close();
        });
        ws.on('error', (err) => resolve(`error:${err.message}`));
      });
    expect(await attempt(`${t.url}?cf_ws_frame_ping_pong=false`)).toBe('open:');
    expect(await attempt(t.url, ['centrifuge-json'])).toBe('open:centrifuge-json');
    expect(await attempt(t.url, ['centrifuge-protobuf'])).toMatch(/^error:/);
    expect(await attempt(t.url.replace('/connection/websocket', '/other'))).toMatch(/^error:/);
  });

  it('closes every connection with 3001 "shutdown" on close, so clients reconnect', async () => {
    const raw = await connectedRawClient(t.url);
    t.hub.close();
    expect(await raw.closed).toEqual({ code: 3001, reason: 'shutdown' });
    expect(t.hub.stats().connections).toBe(0);
  });

  it('closes with 3501 on a command before connect and on a malformed frame', async () => {
    const before = await (await import('./helpers.js')).rawClient(t.url);
    before.send({ id: 1, subscribe: { channel: 'markets:global' } });
    expect(await before.closed).toEqual({ code: 3501, reason: 'bad request' });
    const garbage = await connectedRawClient(t.url);
    garbage.ws.send('not json');
    expect(await garbage.closed).toEqual({ code: 3501, reason: 'bad request' });
  });
});
