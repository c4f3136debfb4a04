import type { Centrifuge, ConnectedContext, DisconnectedContext, ErrorContext } from 'centrifuge';
import { afterEach, describe, expect, it } from 'vitest';
import { createRealtimeTokenVerifier, RealtimeTokenError } from '../../src/realtime/token.js';
import {
  ALICE,
  BOB,
  BOOK,
  closeAll,
  connectedRawClient,
  officialClient,
  rawClient,
  SECRET,
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

function track(c: Centrifuge) {
  clients.push(c);
  const events = {
    connected: [] as ConnectedContext[],
    disconnected: [] as DisconnectedContext[],
    errors: [] as ErrorContext[],
  };
  c.on('connected', (ctx) => events.connected.push(ctx));
  c.on('disconnected', (ctx) => events.disconnected.push(ctx));
  c.on('error', (ctx) => events.errors.push(ctx));
  return events;
}

describe('connection tokens', () => {
  it('closes an invalid token with 3500 and the client stays disconnected', async () => {
    t = await startHub();
    const forged = `${tokenFor(ALICE).slice(0, -4)}AAAA`;
    const c = officialClient(t.url, { token: forged });
    const events = track(c);
    c.connect();
    await until(() => events.disconnected.length === 1, 5000, 'disconnected');
    expect(events.disconnected[0]).toMatchObject({ code: 3500, reason: 'invalid token' });
    await sleep(300);
    expect(c.state).toBe('disconnected');
    expect(events.connected).toHaveLength(0);
  });

  it('answers an expired token with 109, and the client gets a new one from getToken and connects', async () => {
    t = await startHub();
    const expired = tokenFor(ALICE, 60, Date.now() - 120_000);
    let calls = 0;
    const c = officialClient(t.url, {
      token: expired,
      getToken: async () => {
        calls++;
        return tokenFor(ALICE);
      },
    });
    const events = track(c);
    // Subscriptions made before connect go out in the connect frame, behind the refused connect.
    const sub = c.newSubscription(BOOK, { positioned: true, recoverable: true });
    sub.subscribe();
    c.connect();
    await until(() => events.connected.length === 1, 5000, 'connected');
    await until(() => sub.state === 'subscribed', 5000, 'subscribed');
    expect(calls).toBe(1);
    expect(events.errors.map((e) => e.error.code)).toEqual([109]);
    expect(events.disconnected).toHaveLength(0);
  });

  it('refreshes the connection with getToken before the token expires and stays connected', async () => {
    t = await startHub();
    let calls = 0;
    const c = officialClient(t.url, {
      getToken: async () => {
        calls++;
        return tokenFor(ALICE, 2);
      },
    });
    const events = track(c);
    const sub = c.newSubscription(BOOK, { positioned: true, recoverable: true });
    const data: unknown[] = [];
    sub.on('publication', (ctx) => data.push(ctx.data));
    sub.subscribe();
    c.connect();
    await until(() => sub.state === 'subscribed');
    expect(calls).toBe(1);
    // ttl 2 s: the client refreshes after the ttl it was given (1-2 s), over the same connection.
    await until(() => calls >= 2, 5000, 'refresh');
    await sleep(100);
    t.hub.publish(BOOK, { after: 'refresh' });
    await until(() => data.length === 1);
    expect(events.connected).toHaveLength(1);
    expect(events.disconnected).toHaveLength(0);
    expect(events.errors).toHaveLength(0);
  });

  it('closes a refresh with an expired token with 3005, with another user token with 3500', async () => {
    t = await startHub();
    const a = await connectedRawClient(t.url);
    a.send({ id: 2, refresh: { token: tokenFor(ALICE, 60, Date.now() - 120_000) } });
    expect(await a.closed).toEqual({ code: 3005, reason: 'connection expired' });
    const b = await connectedRawClient(t.url);
    b.send({ id: 2, refresh: { token: tokenFor(BOB) } });
    expect(await b.closed).toEqual({ code: 3500, reason: 'invalid token' });
    const c = await connectedRawClient(t.url);
    c.send({ id: 2, refresh: { token: tokenFor(ALICE, 100) } });
    const reply = (await c.reply(2)) as { refresh: { expires: boolean; ttl: number } };
    expect(reply.refresh.expires).toBe(true);
    expect(reply.refresh.ttl).toBeGreaterThan(90);
    c.ws.close();
  });

  it('closes a connect without a token with 3501, and a socket that never connects with 3502', async () => {
    t = await startHub({ staleCloseDelayMs: 100 });
    const noToken = await rawClient(t.url);
    noToken.send({ id: 1, connect: { name: 'raw' } });
    expect(await noToken.closed).toEqual({ code: 3501, reason: 'bad request' });
    const silent = await rawClient(t.url);
    expect(await silent.closed).toEqual({ code: 3502, reason: 'stale' });
  });

  it('keeps a connection whose token expires beyond the longest timer (25 days)', async () => {
    t = await startHub({
      verifyToken: (token) => ({
        ...createRealtimeTokenVerifier(SECRET)(token),
        exp: Math.floor(Date.now() / 1000) + 40 * 86_400,
      }),
    });
    const raw = await connectedRawClient(t.url);
    await sleep(100);
    expect(raw.ws.readyState).toBe(raw.ws.OPEN);
    raw.ws.close();
  });

  it('closes a connection whose token expired without a refresh with 3005', async () => {
    t = await startHub({ expiredCloseDelayMs: 50 });
    const raw = await rawClient(t.url);
    raw.send({ id: 1, connect: { token: tokenFor(ALICE, 1) } });
    await raw.reply(1);
    expect(await raw.closed).toEqual({ code: 3005, reason: 'connection expired' });
  });

  it('finishes an asynchronous token check before the subscribes pipelined in the same frame', async () => {
    const verify = createRealtimeTokenVerifier(SECRET);
    t = await startHub({
      verifyToken: async (token) => {
        await sleep(30);
        return verify(token);
      },
    });
    const c = officialClient(t.url, { token: tokenFor(ALICE) });
    clients.push(c);
    const sub = c.newSubscription(BOOK, { positioned: true, recoverable: true });
    sub.subscribe();
    c.connect();
    await until(() => sub.state === 'subscribed', 5000, 'subscribed');

    const raw = await rawClient(t.url);
    raw.send(
      { id: 1, connect: { token: tokenFor(ALICE) } },
      { id: 2, subscribe: { channel: BOOK } },
      { id: 3, subscribe: { channel: 'markets:global' } },
    );
    expect(await raw.reply(3)).toEqual({ id: 3, subscribe: {} });
    expect(raw.lines.map((l) => l.id)).toEqual([1, 2, 3]);
    raw.ws.close();
  });

  it('accepts tokenless connections to public channels only when anonymous access is on', async () => {
    t = await startHub({ allowAnonymous: true });
    const raw = await rawClient(t.url);
    raw.send(
      { id: 1, connect: {} },
      { id: 2, subscribe: { channel: 'markets:global' } },
      { id: 3, subscribe: { channel: 'account:fills_v3' } },
      { id: 4, subscribe: { channel: `account:orders_v3_#${ALICE}` } },
    );
    expect(await raw.reply(2)).toEqual({ id: 2, subscribe: {} });
    expect(await raw.reply(3)).toMatchObject({ error: { code: 103 } });
    expect(await raw.reply(4)).toMatchObject({ error: { code: 103 } });
    expect((raw.lines[0] as { connect: Record<string, unknown> }).connect.expires).toBeUndefined();
    raw.ws.close();
  });

  it('refuses a pong timeout that is not below the ping interval', async () => {
    const { createRealtimeHub } = await import('../../src/realtime/hub.js');
    expect(() =>
      createRealtimeHub({
        verifyToken: createRealtimeTokenVerifier(SECRET),
        pingIntervalMs: 1000,
        pongTimeoutMs: 1000,
      }),
    ).toThrow(RangeError);
  });

  it('treats a verifier failure other than a token error as an internal error (3004, client reconnects)', async () => {
    t = await startHub({
      verifyToken: () => {
        throw new Error('database down');
      },
    });
    const raw = await rawClient(t.url);
    raw.send({ id: 1, connect: { token: 'x' } });
    expect(await raw.closed).toEqual({ code: 3004, reason: 'internal server error' });
    expect(new RealtimeTokenError('invalid', 'x').reason).toBe('invalid');
  });
});
