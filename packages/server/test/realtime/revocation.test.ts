import type { Centrifuge, DisconnectedContext } from 'centrifuge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRealtimeToken } from '../../src/realtime/token.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { exchangeClient, type RawClient, rawClient, sleep, until } from './helpers.js';

let t: TestExchange;
let api: string;
let ws: string;
const clients: Centrifuge[] = [];

beforeAll(async () => {
  t = await startTestExchange();
  api = await t.app.listen({ port: 0, host: '127.0.0.1' });
  ws = `${api.replace('http://', 'ws://')}/connection/websocket`;
});

afterAll(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  await t.close();
  removeDataDir(t.dataDir);
});

async function keyIdOf(user: TestUser): Promise<string> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/admin/api-keys?address=${user.address}`,
    headers: t.admin,
  });
  const keys = res.json().data.keys as { keyId: string; revokedAt: string | null }[];
  return keys.find((k) => k.revokedAt === null)!.keyId;
}

async function tokenOf(headers: Record<string, string>, legacy = false): Promise<string> {
  const res = await fetch(`${api}/user/realtime-token${legacy ? '' : '-v3'}/api-key`, { headers });
  const body = (await res.json()) as { token?: string; data?: { token: string } };
  return legacy ? body.token! : body.data!.token;
}

type ConnectOutcome = {
  raw: RawClient;
  reply?: Record<string, unknown>;
  closed?: { code: number; reason: string };
};

/** Sends connect with `token` on a bare socket; resolves with its reply or its close. */
async function connectWith(token: string): Promise<ConnectOutcome> {
  const raw = await rawClient(ws);
  raw.send({ id: 1, connect: { token } });
  let closed: ConnectOutcome['closed'];
  void raw.closed.then((value) => {
    closed = value;
  });
  const reply = () => raw.lines.find((line) => line.id === 1);
  await until(() => closed ?? reply(), 5000, 'connect reply or close');
  const outcome: ConnectOutcome = { raw };
  if (reply()) outcome.reply = reply();
  if (closed) outcome.closed = closed;
  return outcome;
}

async function revoke(keyId: string): Promise<void> {
  const res = await t.app.inject({ method: 'DELETE', url: `/admin/api-keys/${keyId}`, headers: t.admin });
  expect(res.statusCode).toBe(200);
}

describe('revoking an API key ends its realtime access', () => {
  it('closes its open sessions with 3500 (the client stops) and refuses its earlier tokens, v3 and legacy', async () => {
    const user = await t.createUser();
    const keyId = await keyIdOf(user);
    const c = exchangeClient(api, user.headers);
    clients.push(c);
    const disconnected: DisconnectedContext[] = [];
    c.on('disconnected', (ctx) => disconnected.push(ctx));
    const sub = c.newSubscription(`account:orders_v3_#${user.address}`, {
      positioned: true,
      recoverable: true,
    });
    sub.subscribe();
    c.connect();
    await until(() => sub.state === 'subscribed', 5000, 'subscribed');
    const early = await tokenOf(user.headers);
    const earlyLegacy = await tokenOf(user.headers, true);
    // Both still connect before the revocation.
    const before = await connectWith(earlyLegacy);
    expect(before.reply?.connect).toBeDefined();

    await revoke(keyId);
    await until(() => disconnected.length === 1, 5000, 'disconnected');
    expect(disconnected[0]).toMatchObject({ code: 3500, reason: 'invalid token' });
    expect(await before.raw.closed).toEqual({ code: 3500, reason: 'invalid token' });
    await sleep(300);
    expect(c.state).toBe('disconnected');

    for (const token of [early, earlyLegacy]) {
      const after = await connectWith(token);
      expect(after.closed).toEqual({ code: 3500, reason: 'invalid token' });
    }
  });

  it('refuses a refresh with a revoked key token, and leaves the sessions of the account other keys open', async () => {
    const user = await t.createUser();
    const revokedKeyId = await keyIdOf(user);
    const issued = await t.app.inject({
      method: 'POST',
      url: '/admin/api-keys',
      headers: t.admin,
      payload: { address: user.address },
    });
    const other = { 'x-svc-api-key': issued.json().data.apiKey as string };
    const revokedToken = await tokenOf(user.headers);
    const keeps = await connectWith(await tokenOf(other));
    const refreshes = await connectWith(await tokenOf(other));
    expect(keeps.reply?.connect).toBeDefined();

    await revoke(revokedKeyId);
    refreshes.raw.send({ id: 2, refresh: { token: revokedToken } });
    expect(await refreshes.raw.closed).toEqual({ code: 3500, reason: 'invalid token' });
    keeps.raw.send({ id: 2, refresh: { token: await tokenOf(other) } });
    expect((await keeps.raw.reply(2)).refresh).toMatchObject({ expires: true });
    keeps.raw.ws.close();
  });

  it('ends the sessions of a key revoked through ApiKeys.revoke, whoever calls it', async () => {
    const user = await t.createUser();
    const keyId = await keyIdOf(user);
    const session = await connectWith(await tokenOf(user.headers));
    expect(session.reply?.connect).toBeDefined();
    await t.exchange.apiKeys.revoke(keyId, Date.now());
    expect(await session.raw.closed).toEqual({ code: 3500, reason: 'invalid token' });
  });

  it('takes a token that names no API key for expired (109): the client fetches a new one', async () => {
    const user = await t.createUser();
    const keyless = createRealtimeToken({
      secret: t.exchange.realtimeSecret,
      sub: user.address,
      ttlSeconds: 600,
    });
    const { reply, raw } = await connectWith(keyless);
    expect(reply?.error).toEqual({ code: 109, message: 'token expired' });
    raw.ws.close();
  });
});
