import type { LightMyRequestResponse } from 'fastify';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMITS, rateLimitGroup } from '../../src/http/plugins/rate-limits.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';

describe('rate limits', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange({ env: { RATE_LIMITS: '1' } });
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('groups routes as the legacy table does', () => {
    expect(rateLimitGroup('POST', '/orders-v3')).toBe('orderWrites');
    expect(rateLimitGroup('DELETE', '/orders-v3/all')).toBe('orderWrites');
    expect(rateLimitGroup('GET', '/orders-v3/odds/best')).toBe('orderReads');
    expect(rateLimitGroup('GET', '/trades-v3')).toBe('history');
    expect(rateLimitGroup('GET', '/fills-v3')).toBe('history');
    expect(rateLimitGroup('GET', '/markets/active')).toBe('base');
    expect(rateLimitGroup('POST', '/admin/api-keys')).toBe('admin');
    expect(rateLimitGroup('POST', '/account/api-keys')).toBe('apiKeyCreation');
    expect(rateLimitGroup('GET', '/account/api-keys')).toBe('base');
    expect(rateLimitGroup('GET', '/health')).toBeNull();
    // A request that matched no route.
    expect(rateLimitGroup('POST', '')).toBe('base');
  });

  it('answers 429 in the common shape with Retry-After once an account exceeds its group', async () => {
    const user = await t.createUser();
    const other = await t.createUser();
    const call = (headers: Record<string, string>) =>
      t.app.inject({ method: 'GET', url: '/trades-v3', headers });
    // A token bucket refills continuously (200 a minute: one every 300 ms). Twice the bucket sent at once
    // outruns the refill however slowly each request is answered (a loaded machine, PostgreSQL).
    const burst = await Promise.all(
      Array.from({ length: 2 * RATE_LIMITS.history.max }, () => call(user.headers)),
    );
    const passed = burst.filter((r) => r.statusCode === 200).length;
    const limited = burst.find((r) => r.statusCode !== 200)!;
    expect(passed).toBeGreaterThanOrEqual(RATE_LIMITS.history.max);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({
      error: 'Too Many Requests',
      statusCode: 429,
      message: expect.stringMatching(/RATE_LIMITED/),
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Fills share the history bucket: a burst of them is limited too (sent at once, since on a loaded
    // machine each answer may take longer than a refill); another account and another group are unaffected.
    const fills = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.app.inject({ method: 'GET', url: '/fills-v3', headers: user.headers }),
      ),
    );
    expect(fills.map((r) => r.statusCode)).toContain(429);
    expect((await call(other.headers)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/orders-v3', headers: user.headers })).statusCode).toBe(
      200,
    );
  });
});

/** Calls until the first non-`status` answer, at most `bound` times; returns it and how many passed. */
async function untilNot(status: number, bound: number, call: () => Promise<LightMyRequestResponse>) {
  let passed = 0;
  let response = await call();
  while (response.statusCode === status && passed < bound) {
    passed++;
    response = await call();
  }
  return { passed, response };
}

describe('rate limits count every request', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange({ env: { RATE_LIMITS: '1' } });
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });
  const bound = 2 * RATE_LIMITS.history.max;

  it('counts bad keys against the address they come from: a fresh invented key buys nothing', async () => {
    let n = 0;
    const { passed, response } = await untilNot(401, bound, () =>
      t.app.inject({
        method: 'GET',
        url: '/trades-v3',
        remoteAddress: '10.1.0.1',
        headers: { 'x-svc-api-key': `invented-${n++}` },
      }),
    );
    expect(passed).toBeGreaterThanOrEqual(RATE_LIMITS.history.max);
    expect(response.statusCode).toBe(429);
    expect(response.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    // Another address is not affected.
    const other = await t.app.inject({ method: 'GET', url: '/trades-v3', remoteAddress: '10.1.0.2' });
    expect(other.statusCode).toBe(401);
  });

  it('counts the addresses of one IPv6 /64 as one client: hopping among them buys nothing', async () => {
    let n = 0;
    const { passed, response } = await untilNot(401, bound, () =>
      t.app.inject({
        method: 'GET',
        url: '/trades-v3',
        remoteAddress: `2001:db8:7:1::${(n++).toString(16)}`,
      }),
    );
    expect(passed).toBeGreaterThanOrEqual(RATE_LIMITS.history.max);
    expect(response.statusCode).toBe(429);
    // The next /64 is another client.
    const other = await t.app.inject({ method: 'GET', url: '/trades-v3', remoteAddress: '2001:db8:7:2::1' });
    expect(other.statusCode).toBe(401);
  });

  it('counts requests that fail validation', async () => {
    const user = await t.createUser();
    const { response } = await untilNot(400, bound, () =>
      t.app.inject({ method: 'GET', url: '/fills-v3?perPage=not-a-number', headers: user.headers }),
    );
    expect(response.statusCode).toBe(429);
  });

  it('limits per account: two keys of one account share every bucket', async () => {
    const user = await t.createUser();
    const second = await t.app.inject({
      method: 'POST',
      url: '/admin/api-keys',
      headers: t.admin,
      payload: { address: user.address },
    });
    const secondKey = { 'x-svc-api-key': second.json().data.apiKey as string };
    const { response } = await untilNot(200, bound, () =>
      t.app.inject({ method: 'GET', url: '/trades-v3', headers: user.headers }),
    );
    expect(response.statusCode).toBe(429);
    const { response: other } = await untilNot(200, 5, () =>
      t.app.inject({ method: 'GET', url: '/trades-v3', headers: secondKey }),
    );
    expect(other.statusCode).toBe(429);
    // Another account is not affected.
    const stranger = await t.createUser();
    expect(
      (await t.app.inject({ method: 'GET', url: '/trades-v3', headers: stranger.headers })).statusCode,
    ).toBe(200);
  });

  it('limits unauthenticated traffic, unknown routes and bad operator tokens per client address', async () => {
    const base = 2 * RATE_LIMITS.base.max;
    const { response } = await untilNot(404, base, () =>
      t.app.inject({ method: 'GET', url: '/no-such-route', remoteAddress: '10.2.0.1' }),
    );
    expect(response.statusCode).toBe(429);
    // The same address is now limited on every unauthenticated route of the group (the bucket refills
    // continuously: on a loaded machine a token may come back between two calls, hence a few tries)...
    const { response: markets } = await untilNot(200, 5, () =>
      t.app.inject({ method: 'GET', url: '/sports', remoteAddress: '10.2.0.1' }),
    );
    expect(markets.statusCode).toBe(429);
    // ...and guessing the operator token from it counts too; the right token is never limited.
    const { response: guess } = await untilNot(401, 5, () =>
      t.app.inject({
        method: 'GET',
        url: '/admin/api-keys?address=0x0000000000000000000000000000000000000001',
        remoteAddress: '10.2.0.1',
        headers: { 'x-admin-token': 'a-wrong-guess-0123456789' },
      }),
    );
    expect(guess.statusCode).toBe(429);
    const operator = await t.app.inject({
      method: 'GET',
      url: '/admin/api-keys?address=0x0000000000000000000000000000000000000001',
      remoteAddress: '10.2.0.1',
      headers: t.admin,
    });
    expect(operator.statusCode).not.toBe(429);
    expect(
      (await t.app.inject({ method: 'GET', url: '/sports', remoteAddress: '10.2.0.2' })).statusCode,
    ).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: '/health', remoteAddress: '10.2.0.1' })).statusCode,
    ).toBe(200);
  });
});

describe('rate limits behind a trusted proxy', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange({ env: { RATE_LIMITS: '1', TRUST_PROXY: '10.9.0.1' } });
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it("keys by X-Forwarded-For from the trusted proxy only, by the peer's address otherwise", async () => {
    const via = (forwarded: string, remoteAddress: string) =>
      t.app.inject({
        method: 'GET',
        url: '/sports',
        remoteAddress,
        headers: { 'x-forwarded-for': forwarded },
      });
    const { response } = await untilNot(200, 2 * RATE_LIMITS.base.max, () => via('203.0.113.7', '10.9.0.1'));
    expect(response.statusCode).toBe(429);
    // Another client behind the same proxy has its own bucket.
    expect((await via('203.0.113.8', '10.9.0.1')).statusCode).toBe(200);
    // An untrusted peer cannot pick its bucket by forging the header: it is keyed by its own address.
    const { response: forged } = await untilNot(200, 2 * RATE_LIMITS.base.max, () =>
      via(`198.51.100.${Math.floor(Math.random() * 250)}`, '10.9.0.2'),
    );
    expect(forged.statusCode).toBe(429);
  });
});

describe('rate limits per account: keys and browser sessions', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange({ env: { RATE_LIMITS: '1' } });
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });
  const bound = 2 * RATE_LIMITS.history.max;
  const inject = (
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    headers: Record<string, string>,
    payload?: object,
  ) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  /** A browser session of a fresh account (Sign-In with Ethereum, as the account page does). */
  async function signIn(): Promise<{ address: `0x${string}`; headers: { authorization: string } }> {
    const account = privateKeyToAccount(generatePrivateKey());
    const nonce = (await t.app.inject({ method: 'POST', url: '/auth/siwe/nonce' })).json().data.nonce;
    // startTestExchange keeps the default port: the default sign-in domains are the loopback names of 8080.
    const message = createSiweMessage({
      address: account.address,
      chainId: t.config.chainId,
      domain: '127.0.0.1:8080',
      uri: 'http://127.0.0.1:8080/',
      version: '1',
      nonce,
      issuedAt: new Date(),
    });
    const signature = await account.signMessage({ message });
    const verified = await t.app.inject({
      method: 'POST',
      url: '/auth/siwe/verify',
      payload: { message, signature },
    });
    expect(verified.statusCode, verified.body).toBe(200);
    return {
      address: account.address,
      headers: { authorization: `Bearer ${verified.json().data.sessionToken}` },
    };
  }

  async function createKey(session: { authorization: string }) {
    const created = await inject('POST', '/account/api-keys', session, {});
    expect(created.statusCode, created.body).toBe(200);
    const { apiKey, keyId } = created.json().data as { apiKey: string; keyId: string };
    return { keyId, headers: { 'x-svc-api-key': apiKey } };
  }

  it('revoking a key and creating another refills nothing', async () => {
    const { headers: session } = await signIn();
    const first = await createKey(session);
    const { passed, response } = await untilNot(200, bound, () => inject('GET', '/trades-v3', first.headers));
    expect(passed).toBeGreaterThanOrEqual(RATE_LIMITS.history.max);
    expect(response.statusCode).toBe(429);
    expect((await inject('DELETE', `/account/api-keys/${first.keyId}`, session)).statusCode).toBe(200);
    const second = await createKey(session);
    const { passed: more, response: after } = await untilNot(200, 5, () =>
      inject('GET', '/trades-v3', second.headers),
    );
    // The bucket refills continuously (one token every 300 ms): a slow machine may see one pass, not 200.
    expect(more).toBeLessThan(5);
    expect(after.statusCode).toBe(429);
  });

  it("counts a browser session's requests against its account", async () => {
    const { headers: session } = await signIn();
    const key = await createKey(session);
    const { response } = await untilNot(200, bound, () => inject('GET', '/trades-v3', key.headers));
    expect(response.statusCode).toBe(429);
    // The session is not a credential of the trading API (401), but what it sends is the account's.
    const { response: bySession } = await untilNot(401, 5, () => inject('GET', '/trades-v3', session));
    expect(bySession.statusCode).toBe(429);
    // Another client without credentials, from the same address, has its own bucket.
    expect((await inject('GET', '/trades-v3', {})).statusCode).toBe(401);
  });

  it('limits key creation per account: revoking keeps the count', async () => {
    const { headers: session } = await signIn();
    for (let i = 0; i < RATE_LIMITS.apiKeyCreation.max; i++) {
      const key = await createKey(session);
      expect((await inject('DELETE', `/account/api-keys/${key.keyId}`, session)).statusCode).toBe(200);
    }
    const refused = await inject('POST', '/account/api-keys', session, {});
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The rest of the account page still answers, and another account creates keys.
    expect((await inject('GET', '/account/api-keys', session)).statusCode).toBe(200);
    await createKey((await signIn()).headers);
  });
});
