import type { LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_API_KEYS_PER_ACCOUNT } from '../../src/http/routes/web-sessions.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';

const BAD_AUTH = { message: 'BAD_AUTH', error: 'Unauthorized', statusCode: 401 };
// startTestExchange keeps the default port, so the default sign-in domains are the loopback names of 8080.
const DOMAIN = '127.0.0.1:8080';

describe('sign-in with a wallet and self-service API keys', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  async function nonce(): Promise<string> {
    const response = await t.app.inject({ method: 'POST', url: '/auth/siwe/nonce' });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.chainId).toBe(t.config.chainId);
    return response.json().data.nonce;
  }

  async function message(
    account: LocalAccount,
    overrides: Partial<Parameters<typeof createSiweMessage>[0]> = {},
  ): Promise<string> {
    return createSiweMessage({
      address: account.address,
      chainId: t.config.chainId,
      domain: DOMAIN,
      uri: `http://${DOMAIN}/`,
      version: '1',
      nonce: await nonce(),
      issuedAt: new Date(),
      statement: 'Sign in to oddsbook.',
      ...overrides,
    });
  }

  const verify = (payload: { message: string; signature: string }) =>
    t.app.inject({ method: 'POST', url: '/auth/siwe/verify', payload });

  async function signIn(account = privateKeyToAccount(generatePrivateKey())) {
    const text = await message(account);
    const response = await verify({ message: text, signature: await account.signMessage({ message: text }) });
    expect(response.statusCode, response.body).toBe(200);
    const token = response.json().data.sessionToken as string;
    return { account, token, headers: { authorization: `Bearer ${token}` }, response };
  }

  it('signs in, creates a key that works on the trading API, revokes it, and signs out', async () => {
    const { account, headers, response } = await signIn();
    expect(response.json().data.address).toBe(account.address);
    expect(response.headers['set-cookie']).toBeUndefined();
    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers })).json().data.address).toBe(
      account.address,
    );

    const created = await t.app.inject({
      method: 'POST',
      url: '/account/api-keys',
      headers,
      payload: { label: 'laptop' },
    });
    expect(created.statusCode, created.body).toBe(200);
    const { apiKey, keyId, label } = created.json().data;
    expect(label).toBe('laptop');
    const proxy = await t.app.inject({
      method: 'GET',
      url: '/user/proxy',
      headers: { 'x-svc-api-key': apiKey },
    });
    expect(proxy.statusCode).toBe(200);

    const listed = (await t.app.inject({ method: 'GET', url: '/account/api-keys', headers })).json().data;
    expect(listed.keys).toEqual([expect.objectContaining({ keyId, label: 'laptop', revokedAt: null })]);
    expect(listed.maxActiveKeys).toBe(MAX_API_KEYS_PER_ACCOUNT);
    expect(JSON.stringify(listed)).not.toContain(apiKey);

    const revoked = await t.app.inject({ method: 'DELETE', url: `/account/api-keys/${keyId}`, headers });
    expect(revoked.statusCode, revoked.body).toBe(200);
    const after = await t.app.inject({
      method: 'GET',
      url: '/user/proxy',
      headers: { 'x-svc-api-key': apiKey },
    });
    expect(after.statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/account/api-keys/${keyId}`, headers })).statusCode,
    ).toBe(404);

    expect((await t.app.inject({ method: 'DELETE', url: '/auth/session', headers })).statusCode).toBe(200);
    const ended = await t.app.inject({ method: 'GET', url: '/account/api-keys', headers });
    expect(ended.statusCode).toBe(401);
    expect(ended.json()).toEqual(BAD_AUTH);
  });

  it('uses each nonce once', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const text = await message(account);
    const signature = await account.signMessage({ message: text });
    expect((await verify({ message: text, signature })).statusCode).toBe(200);
    const replay = await verify({ message: text, signature });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().message).toMatch(/nonce is unknown, used or expired/);
  });

  it('refuses a message for another domain, another chain, an unissued nonce, old or by another key', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const other = privateKeyToAccount(generatePrivateKey());
    const cases: { text: string; signer: LocalAccount; reason: RegExp }[] = [
      {
        text: await message(account, { domain: 'evil.example', uri: 'https://evil.example/' }),
        signer: account,
        reason: /for evil.example, not this exchange/,
      },
      {
        text: await message(account, { uri: 'https://evil.example/' }),
        signer: account,
        reason: /uri is not on its domain/,
      },
      { text: await message(account, { chainId: 1 }), signer: account, reason: /for chain 1/ },
      { text: await message(account, { nonce: 'a'.repeat(32) }), signer: account, reason: /nonce/ },
      {
        text: await message(account, { issuedAt: new Date(Date.now() - 3_600_000) }),
        signer: account,
        reason: /validity time/,
      },
      {
        text: await message(account, { expirationTime: new Date(Date.now() - 1000) }),
        signer: account,
        reason: /validity time/,
      },
      { text: await message(account), signer: other, reason: /not signed by its address/ },
      { text: 'hello', signer: account, reason: /not an EIP-4361 message/ },
    ];
    for (const { text, signer, reason } of cases) {
      const response = await verify({
        message: text,
        signature: await signer.signMessage({ message: text }),
      });
      expect(response.statusCode, text).toBe(401);
      expect(response.json()).toEqual({
        message: expect.stringMatching(reason),
        error: 'Unauthorized',
        statusCode: 401,
      });
    }
    const malformed = await verify({ message: 'x', signature: '0x1234' });
    expect(malformed.statusCode).toBe(400);
  });

  it('takes the session from the Authorization header only: a cookie or an API key opens nothing', async () => {
    const { token } = await signIn();
    const user = await t.createUser();
    for (const headers of [
      {},
      { cookie: `session=${token}` },
      { authorization: `Bearer ${'f'.repeat(64)}` },
      { authorization: token },
      user.headers,
    ]) {
      for (const [method, url] of [
        ['GET', '/account/api-keys'],
        ['POST', '/account/api-keys'],
        ['GET', '/auth/session'],
      ] as const) {
        const response = await t.app.inject({ method, url, headers });
        expect(response.statusCode, `${method} ${url} ${JSON.stringify(headers)}`).toBe(401);
        expect(response.json()).toEqual(BAD_AUTH);
      }
    }
  });

  it("cannot list or revoke another account's keys", async () => {
    const owner = await t.createUser();
    const ownerKeyId = t.exchange.apiKeys.authenticate(owner.apiKey)!.keyId;
    const { headers } = await signIn();
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/account/api-keys/${ownerKeyId}`,
      headers,
    });
    expect(response.statusCode).toBe(404);
    expect(response.json().message).toMatch(/no active API key with that id on this account/);
    expect(t.exchange.apiKeys.authenticate(owner.apiKey)).not.toBeNull();
    expect(
      (await t.app.inject({ method: 'GET', url: '/account/api-keys', headers })).json().data.keys,
    ).toEqual([]);
  });

  it(`holds at most ${MAX_API_KEYS_PER_ACCOUNT} active keys per account; revoking one makes room`, async () => {
    const { headers } = await signIn();
    const create = () => t.app.inject({ method: 'POST', url: '/account/api-keys', headers, payload: {} });
    let first = '';
    for (let i = 0; i < MAX_API_KEYS_PER_ACCOUNT; i++) {
      const response = await create();
      expect(response.statusCode).toBe(200);
      first ||= response.json().data.keyId;
    }
    const refused = await create();
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      message: `an account may hold ${MAX_API_KEYS_PER_ACCOUNT} active API keys: revoke one first`,
      error: 'Conflict',
      statusCode: 409,
    });
    await t.app.inject({ method: 'DELETE', url: `/account/api-keys/${first}`, headers });
    expect((await create()).statusCode).toBe(200);
  });

  it('rejects bad bodies with the validation shape', async () => {
    const { headers } = await signIn();
    const long = await t.app.inject({
      method: 'POST',
      url: '/account/api-keys',
      headers,
      payload: { label: 'x'.repeat(101) },
    });
    expect(long.statusCode).toBe(400);
    const extra = await t.app.inject({
      method: 'POST',
      url: '/auth/siwe/verify',
      payload: { message: 'm', signature: `0x${'1'.repeat(130)}`, more: 1 },
    });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error).toBe('Bad Request');
  });
});
