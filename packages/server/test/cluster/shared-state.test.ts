import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Centrifuge, DisconnectedContext } from 'centrifuge';
import type { Redis } from 'ioredis';
import type { LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMITS } from '../../src/http/plugins/rate-limits.js';
import {
  createTestDatabase,
  type TestDatabase,
} from '../../src/store/test-support/postgres-test-database.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { deleteRedisKeys, TEST_REDIS_URL, testRedis, testRedisPrefix } from '../helpers/test-redis.js';
import { exchangeClient, sleep, until } from '../realtime/helpers.js';

/**
 * Two API nodes (two exchanges in this process) on one PostgreSQL database and one Redis, as issue 37's
 * API nodes run: any node answers any request. A third, alone and with its buckets in memory, is what
 * the shared buckets must answer like.
 */
let database: TestDatabase;
let redis: Redis;
const prefix = testRedisPrefix();
let a: TestExchange;
let b: TestExchange;
let alone: TestExchange;
const clients: Centrifuge[] = [];

beforeAll(async () => {
  redis = await testRedis();
  database = await createTestDatabase();
  const node = () =>
    startTestExchange({
      databaseUrl: database.url,
      env: { RATE_LIMITS: '1', REDIS_URL: TEST_REDIS_URL },
      app: { rateLimitPrefix: prefix },
    });
  a = await node();
  b = await node();
  alone = await startTestExchange({ env: { RATE_LIMITS: '1' } });
});

afterAll(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  for (const t of [a, b, alone]) {
    if (!t) continue;
    await t.close();
    removeDataDir(t.dataDir);
  }
  await database?.drop();
  if (redis) {
    await deleteRedisKeys(redis, prefix);
    await redis.quit();
  }
});

/** Resolves once `check` holds (a notification crosses PostgreSQL in milliseconds; 10 s at most). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

/** Requests until the first that is not `status`, at most `bound`; alternating over `nodes`. */
async function untilNot(status: number, bound: number, nodes: TestExchange[], url: string) {
  let passed = 0;
  let response = await nodes[0]!.app.inject({ method: 'GET', url });
  while (response.statusCode === status && passed < bound) {
    passed++;
    response = await nodes[passed % nodes.length]!.app.inject({ method: 'GET', url });
  }
  return { passed, response };
}

describe('rate limits shared in Redis', () => {
  it('limit a client spreading its requests over both nodes as one, with the 429 of one node alone', async () => {
    // Without an API key: counted against the client's network, then refused 401 (the history group).
    const { history } = RATE_LIMITS;
    const shared = await untilNot(401, 3 * history.max, [a, b], '/trades-v3');
    // The other groups of the client are still open.
    expect((await b.app.inject({ method: 'GET', url: '/orders-v3' })).statusCode).toBe(401);
    const single = await untilNot(401, 3 * history.max, [alone], '/trades-v3');
    // The bucket holds `max`; its refill (one every 300 ms) lets a few more through while the loop runs.
    // Two buckets of their own would let twice the limit through.
    expect(shared.passed).toBeGreaterThanOrEqual(history.max);
    expect(shared.passed).toBeLessThan(1.5 * history.max);
    expect(shared.response.statusCode).toBe(429);
    expect(single.response.statusCode).toBe(429);
    const shape = (r: typeof shared.response) => ({
      body: { ...r.json(), message: r.json().message.replace(/\d+/g, 'N') },
      headers: Object.keys(r.headers)
        .filter((h) => h.startsWith('x-ratelimit') || h === 'retry-after')
        .sort(),
      limit: r.headers['x-ratelimit-limit'],
      remaining: r.headers['x-ratelimit-remaining'],
    });
    expect(shape(shared.response)).toEqual(shape(single.response));
    expect(Number(shared.response.headers['retry-after'])).toBeGreaterThan(0);
    // Every bucket expires once it would be full again: Redis keeps nothing for good.
    const keys = await redis.keys(`${prefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(await redis.pttl(key)).toBeGreaterThan(0);
  });
});

// startTestExchange keeps the default port, so the default sign-in domains are the loopback names of 8080.
const DOMAIN = '127.0.0.1:8080';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function nonceFrom(t: TestExchange): Promise<string> {
  return (await t.app.inject({ method: 'POST', url: '/auth/siwe/nonce' })).json().data.nonce;
}

async function signed(t: TestExchange, account: LocalAccount, nonce: string) {
  const message = createSiweMessage({
    address: account.address,
    chainId: t.config.chainId,
    domain: DOMAIN,
    uri: `http://${DOMAIN}/`,
    version: '1',
    nonce,
    issuedAt: new Date(),
  });
  return { message, signature: await account.signMessage({ message }) };
}

const verify = (t: TestExchange, payload: { message: string; signature: string }) =>
  t.app.inject({ method: 'POST', url: '/auth/siwe/verify', payload });

describe('sign-in across nodes', () => {
  it('takes a nonce of one node on the other, once: a replay is refused on either', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const payload = await signed(a, account, await nonceFrom(a));
    const first = await verify(b, payload);
    expect(first.statusCode, first.body).toBe(200);
    for (const node of [a, b]) {
      const replay = await verify(node, payload);
      expect(replay.statusCode).toBe(401);
      expect(replay.json().message).toMatch(/nonce is unknown, used or expired/);
    }
  });

  it('serves a session on the node that did not open it, and a sign-out on one ends it on both', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const opened = await verify(a, await signed(a, account, await nonceFrom(b)));
    expect(opened.statusCode, opened.body).toBe(200);
    const token = opened.json().data.sessionToken as string;
    const session = (t: TestExchange) =>
      t.app.inject({ method: 'GET', url: '/auth/session', headers: bearer(token) });
    expect((await session(b)).json().data.address).toBe(account.address);
    expect((await session(a)).statusCode).toBe(200);
    const out = await b.app.inject({ method: 'DELETE', url: '/auth/session', headers: bearer(token) });
    expect(out.json().data).toEqual({ ended: true });
    expect((await session(b)).statusCode).toBe(401);
    // A held the session in memory: the sign-out reaches it through the broadcast.
    await eventually(async () => (await session(a)).statusCode === 401, 'A forgets the session');
  });
});

describe('revocation across nodes', () => {
  it("closes B's realtime sessions of a key A revokes, and B refuses the key from then on", async () => {
    const user = await b.createUser();
    const keys = await b.app.inject({
      method: 'GET',
      url: `/admin/api-keys?address=${user.address}`,
      headers: b.admin,
    });
    const keyId = keys.json().data.keys[0].keyId as string;
    const api = await b.app.listen({ port: 0, host: '127.0.0.1' });
    const client = exchangeClient(api, user.headers);
    clients.push(client);
    const disconnected: DisconnectedContext[] = [];
    client.on('disconnected', (ctx) => disconnected.push(ctx));
    const connected = new Promise<void>((resolve) => client.once('connected', () => resolve()));
    client.connect();
    await connected;
    const revoked = await a.app.inject({
      method: 'DELETE',
      url: `/admin/api-keys/${keyId}`,
      headers: a.admin,
    });
    expect(revoked.statusCode).toBe(200);
    await until(() => disconnected.length > 0, 5_000, 'the client on B is disconnected');
    expect(disconnected[0]!.code).toBe(3500);
    await eventually(
      async () =>
        (await b.app.inject({ method: 'GET', url: '/orders-v3', headers: user.headers })).statusCode === 401,
      'B refuses the revoked key',
    );
  });
});

describe('keys across nodes', () => {
  it('authenticates on B a key issued on A, without a restart', async () => {
    const user = await a.createUser();
    await eventually(
      async () =>
        (await b.app.inject({ method: 'GET', url: '/user/balance-v3', headers: user.headers })).statusCode ===
        200,
      'B accepts the key issued on A',
    );
  });

  it('learns at its resync a key whose notification it missed', async () => {
    const apiKey = randomBytes(32).toString('hex');
    const address = privateKeyToAccount(generatePrivateKey()).address;
    await a.exchange.store.accounts.ensure(address, Date.now());
    // Stored without a notification, as if B had been disconnected when A issued it.
    await a.exchange.store.apiKeys.insert({
      id: randomUUID(),
      address,
      keyHash: createHash('sha256').update(apiKey).digest('hex'),
      label: null,
      createdAt: Date.now(),
      revokedAt: null,
    });
    expect(b.exchange.apiKeys.authenticate(apiKey)).toBeNull();
    await b.exchange.apiKeys.resync();
    expect(b.exchange.apiKeys.authenticate(apiKey)?.address).toBe(address);
  });
});
