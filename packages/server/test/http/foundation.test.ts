import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  removeDataDir,
  startTestExchange,
  type TestExchange,
} from '../helpers/test-exchange.js';

describe('foundation: errors, admin keys, metadata, operations', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('answers an unknown route with 404 in the common error shape', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/no/such/route?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      message: 'Cannot GET /no/such/route',
      error: 'Not Found',
      statusCode: 404,
      code: 'ROUTE_NOT_FOUND',
    });
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses the admin API without the right token', async () => {
    for (const headers of [{}, { 'x-admin-token': 'wrong-token-wrong-token' }]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/admin/api-keys',
        headers,
        payload: { address: '0x0000000000000000000000000000000000000001' },
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        message: 'BAD_AUTH',
        error: 'Unauthorized',
        statusCode: 401,
        code: 'BAD_AUTH',
      });
    }
  });

  it('issues an API key: 64 hex chars, shown once, stored only as a hash', async () => {
    const address = '0x52908400098527886E0F7030069857D2E4169EE7';
    const response = await t.app.inject({
      method: 'POST',
      url: '/admin/api-keys',
      headers: t.admin,
      payload: { address: address.toLowerCase(), label: 'bot' },
    });
    expect(response.statusCode).toBe(200);
    const { data } = response.json();
    expect(data.apiKey).toMatch(/^[0-9a-f]{64}$/);
    expect(data.address).toBe(address);
    const stored = (await t.exchange.store.apiKeys.listForAccount(address)).find((k) => k.id === data.keyId);
    expect(stored).toMatchObject({ id: data.keyId, label: 'bot' });
    expect(JSON.stringify(stored)).not.toContain(data.apiKey);
    expect(t.exchange.apiKeys.authenticate(data.apiKey)?.address).toBe(address);

    const list = await t.app.inject({
      method: 'GET',
      url: `/admin/api-keys?address=${address}`,
      headers: t.admin,
    });
    expect(list.json().data.keys).toHaveLength(1);
    expect(list.json().data.keys[0]).toMatchObject({ keyId: data.keyId, label: 'bot', revokedAt: null });
  });

  it('revokes a key so it no longer authenticates', async () => {
    const user = await t.createUser();
    const keyId = t.exchange.apiKeys.authenticate(user.apiKey)!.keyId;
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/admin/api-keys/${keyId}`,
      headers: t.admin,
    });
    expect(revoked.statusCode).toBe(200);
    expect(t.exchange.apiKeys.authenticate(user.apiKey)).toBeNull();
    const again = await t.app.inject({ method: 'DELETE', url: '/admin/api-keys/nope', headers: t.admin });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ message: 'no API key with that id', error: 'Not Found' });
  });

  it('rejects bad bodies with 400 and readable messages', async () => {
    const cases = [
      { payload: { address: 'not-an-address' }, expected: /address must match pattern/ },
      { payload: { address: 12 }, expected: /address must be string/ },
      { payload: {}, expected: /must have required property 'address'/ },
      { payload: { address: '0x52908400098527886e0f7030069857d2e4169EE7' }, expected: /not a valid address/ },
    ];
    for (const { payload, expected } of cases) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/admin/api-keys',
        headers: t.admin,
        payload,
      });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      const body = response.json();
      expect(body.error).toBe('Bad Request');
      expect(body.statusCode).toBe(400);
      expect([body.message].flat().join(' | ')).toMatch(expected);
    }
  });

  it('rejects malformed JSON with 400, never 500', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/admin/api-keys',
      headers: { ...t.admin, 'content-type': 'application/json' },
      payload: '{"address": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'Bad Request', statusCode: 400 });
    expect(response.json().message).toMatch(/MALFORMED_JSON/);
  });

  it('rejects an unsupported content type with 415', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/admin/api-keys',
      headers: { ...t.admin, 'content-type': 'text/plain' },
      payload: 'address=0x1',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ error: 'Unsupported Media Type', statusCode: 415 });
  });

  it('serves metadata publicly, per network', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/metadata/obv3' });
    expect(response.statusCode).toBe(200);
    const { status, data } = response.json();
    expect(status).toBe('success');
    expect(data.chainId).toBe(4162);
    expect(data.domain).toEqual({
      name: 'oddsbook',
      version: '1',
      chainId: 4162,
      verifyingContract: t.config.verifyingContract,
    });
    expect(data.activeAsset).toMatchObject({
      symbol: 'USDC',
      decimals: 6,
      escrowAddress: t.config.verifyingContract,
    });
    // No demo market maker runs in an app built without one (only `serve` starts it).
    expect(data.demoMarketMaker).toBeNull();
    expect(data.oddsLadderStepSize).toBe(125);
    expect(data.limits).toEqual({
      orderSizeMinimumBaseUnits: '1000000',
      maxCreateOrders: 10,
      maxCancelOrders: 100,
    });
    expect(data.bettingDelay).toMatchObject({ pregameMsDefault: 0, liveMsDefault: 8000 });

    const testnet = await startTestExchange({ env: { NETWORK: 'testnet' } });
    const other = (await testnet.app.inject({ method: 'GET', url: '/metadata/obv3' })).json().data;
    expect(other.chainId).toBe(79479957);
    expect(other.domain.chainId).toBe(79479957);
    expect(other.domain.verifyingContract).not.toBe(data.domain.verifyingContract);
    await testnet.close();
    removeDataDir(testnet.dataDir);
  });

  it('reports health, Prometheus metrics and the OpenAPI document', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    expect(health.json()).toMatchObject({ status: 'success', data: { healthy: true, chainId: 4162 } });
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.headers['content-type']).toMatch(/text\/plain/);
    expect(metrics.body).toMatch(
      /oddsbook_http_requests_total\{method="GET",route="\/health",status="200"\} \d+/,
    );
    expect(metrics.body).toMatch(/oddsbook_http_request_duration_seconds_bucket/);
    const openapi = await t.app.inject({ method: 'GET', url: '/docs/openapi.json' });
    expect(openapi.json().openapi).toMatch(/^3\./);
    expect(Object.keys(openapi.json().paths)).toContain('/metadata/obv3');
    expect(ADMIN_TOKEN.length).toBeGreaterThan(16);
  });
});
