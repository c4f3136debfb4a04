import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRealtimeToken } from '../../src/realtime/token.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';

const BAD_AUTH = { message: 'BAD_AUTH', error: 'Unauthorized', statusCode: 401, code: 'BAD_AUTH' };
/** The same failure on the legacy routes that take a key, in their shape (their 401 declares it). */
const LEGACY_BAD_AUTH = { status: 'failure', errorCode: 'BAD_AUTH' };

/** Paths whose routes must all require the API key (spec: "All routes below take the API key header"). */
const PRIVATE_PREFIXES = ['/user/', '/orders-v3', '/fills-v3', '/heartbeat', '/positions-v3'];
const PUBLIC_EXCEPTIONS = ['/trades-v3/public', '/orders-v3/odds/best-public'];

describe('API-key authentication', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('answers 401 BAD_AUTH on every authenticated route for a missing, unknown or revoked key', async () => {
    const revoked = await t.createUser();
    const keyId = t.exchange.apiKeys.authenticate(revoked.apiKey)!.keyId;
    await t.app.inject({ method: 'DELETE', url: `/admin/api-keys/${keyId}`, headers: t.admin });

    const doc = (await t.app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    const operations = Object.entries(
      doc.paths as Record<
        string,
        Record<string, { security?: unknown[]; responses?: Record<string, unknown> }>
      >,
    ).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
    const authenticated = operations.filter(({ op }) => JSON.stringify(op.security ?? []).includes('apiKey'));
    expect(authenticated.length).toBeGreaterThan(0);
    for (const { path, method } of operations) {
      const mustBePrivate =
        PRIVATE_PREFIXES.some((prefix) => path.startsWith(prefix)) && !PUBLIC_EXCEPTIONS.includes(path);
      if (mustBePrivate)
        expect(authenticated.map((a) => `${a.method} ${a.path}`)).toContain(`${method} ${path}`);
    }
    for (const { path, method, op } of authenticated) {
      const url = path.replace(/\{[^}]+\}/g, '0x00');
      const legacy = JSON.stringify(op.responses?.['401'] ?? {}).includes('"title":"LegacyFailureBody"');
      for (const headers of [{}, { 'x-svc-api-key': 'f'.repeat(64) }, revoked.headers]) {
        const response = await t.app.inject({ method: method.toUpperCase() as 'GET', url, headers });
        expect(response.statusCode, `${method} ${path}`).toBe(401);
        expect(response.json(), `${method} ${path}`).toEqual(legacy ? LEGACY_BAD_AUTH : BAD_AUTH);
      }
    }
    // The legacy refunds route is among them (it was public).
    expect(authenticated.map((a) => a.path)).toContain('/trades/portfolio/refunds');
  });

  it('checks the key before the body: a bad key with a bad body is still 401', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/user/realtime-token-v3/api-key',
      headers: { 'x-svc-api-key': 'nope', 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(response.statusCode).toBe(401);
  });

  it('issues realtime tokens whose subject is the checksummed account', async () => {
    const user = await t.createUser();
    const v3 = await t.app.inject({
      method: 'GET',
      url: '/user/realtime-token-v3/api-key',
      headers: user.headers,
    });
    expect(v3.statusCode).toBe(200);
    const token = v3.json().data.token as string;
    const identity = verifyRealtimeToken({ secret: t.exchange.realtimeSecret, token });
    expect(identity.sub).toBe(user.address);
    expect(identity.exp - Date.now() / 1000).toBeGreaterThan(3000);

    const legacy = await t.app.inject({
      method: 'GET',
      url: '/user/realtime-token/api-key',
      headers: user.headers,
    });
    expect(Object.keys(legacy.json())).toEqual(['token']);
    expect(verifyRealtimeToken({ secret: t.exchange.realtimeSecret, token: legacy.json().token }).sub).toBe(
      user.address,
    );
  });

  it('keeps keys and the realtime secret across a restart', async () => {
    const user = await t.createUser();
    const secret = t.exchange.realtimeSecret;
    t = await t.reopen();
    expect(t.exchange.realtimeSecret).toBe(secret);
    const response = await t.app.inject({
      method: 'GET',
      url: '/user/realtime-token-v3/api-key',
      headers: user.headers,
    });
    expect(response.statusCode).toBe(200);
  });
});
