import type { LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMITS } from '../../src/http/plugins/rate-limits.js';
import { MAX_API_KEYS_PER_ACCOUNT } from '../../src/http/routes/web-sessions.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';

const BAD_AUTH = { message: 'BAD_AUTH', error: 'Unauthorized', statusCode: 401, code: 'BAD_AUTH' };
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** The other signature of the same message and key: (r, n - s, v flipped). viem recovers both. */
function highSTwin(signature: string): string {
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = Number.parseInt(signature.slice(130), 16);
  return `${signature.slice(0, 66)}${(SECP256K1_N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
}

/** A fresh wallet; viem makes them for free, so an attacker has as many as they like. */
const freeWallet = () => privateKeyToAccount(generatePrivateKey());
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
        code: 'SIGN_IN_FAILED',
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
      code: 'API_KEY_LIMIT',
    });
    await t.app.inject({ method: 'DELETE', url: `/account/api-keys/${first}`, headers });
    expect((await create()).statusCode).toBe(200);
  });

  type Signed = { message: string; signature: string };
  const signedBy = async (account: LocalAccount, text: string): Promise<Signed> => ({
    message: text,
    signature: await account.signMessage({ message: text }),
  });
  const notStrict: { name: string; build: (account: LocalAccount) => Promise<Signed>; reason: RegExp }[] = [
    {
      name: 'a trailing line',
      build: async (a) => signedBy(a, `${await message(a)}\nAnd I agree to pay 100 USDC.`),
      reason: /^the message is not strict EIP-4361: line 11 is not what its fields make$/,
    },
    {
      name: 'a scheme the exchange is not served over',
      build: async (a) => signedBy(a, await message(a, { scheme: 'https' })),
      reason: /^the message is for https:\/\/127.0.0.1:8080, this exchange is http:\/\/127.0.0.1:8080$/,
    },
    {
      name: 'a lower-case address',
      build: async (a) => signedBy(a, (await message(a)).replace(a.address, a.address.toLowerCase())),
      reason: /^the message address is not in its EIP-55 checksum form$/,
    },
    {
      name: 'a high-s signature',
      build: async (a) => {
        const low = await signedBy(a, await message(a));
        return { message: low.message, signature: highSTwin(low.signature) };
      },
      reason: /^the signature is not in low-s form \(EIP-2\)$/,
    },
    {
      name: 'a reordered field (not-before before expiration)',
      build: async (a) => {
        const now = Date.now();
        const text = await message(a, {
          expirationTime: new Date(now + 60_000),
          notBefore: new Date(now - 60_000),
        });
        const lines = text.split('\n');
        const at = lines.findIndex((line) => line.startsWith('Expiration Time:'));
        [lines[at], lines[at + 1]] = [lines[at + 1]!, lines[at]!];
        return signedBy(a, lines.join('\n'));
      },
      reason: /^the message is not strict EIP-4361: line 12 is not what its fields make$/,
    },
    {
      name: 'a uri on another scheme than the domain is served over',
      build: async (a) => signedBy(a, await message(a, { uri: `https://${DOMAIN}/` })),
      reason: /^the message uri is not on its domain \(http:\/\/127.0.0.1:8080\)$/,
    },
  ];

  it.each(notStrict)('refuses $name with its reason', async ({ build, reason }) => {
    const account = freeWallet();
    const response = await verify(await build(account));
    expect(response.statusCode, response.body).toBe(401);
    expect(response.json()).toEqual({
      message: expect.stringMatching(reason),
      error: 'Unauthorized',
      statusCode: 401,
      code: 'SIGN_IN_FAILED',
    });
  });

  it('accepts the configured scheme written out, and the low-s signature of a message', async () => {
    const account = freeWallet();
    expect(
      (await verify(await signedBy(account, await message(account, { scheme: 'http' })))).statusCode,
    ).toBe(200);
    const low = await signedBy(account, await message(account));
    expect(BigInt(`0x${low.signature.slice(66, 130)}`) <= SECP256K1_N / 2n).toBe(true);
    expect((await verify(low)).statusCode).toBe(200);
  });

  it('creates a key without a body, or with an empty one: the label is optional', async () => {
    const { headers } = await signIn();
    const bare = await t.app.inject({ method: 'POST', url: '/account/api-keys', headers });
    expect(bare.statusCode, bare.body).toBe(200);
    expect(bare.json().data).toMatchObject({ label: null, apiKey: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const empty = await t.app.inject({
      method: 'POST',
      url: '/account/api-keys',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '',
    });
    expect(empty.statusCode, empty.body).toBe(200);
    const nullBody = await t.app.inject({
      method: 'POST',
      url: '/account/api-keys',
      headers: { ...headers, 'content-type': 'application/json' },
      body: 'null',
    });
    expect(nullBody.statusCode).toBe(400);
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

describe('sign-in that nobody can fill (rate limits on, many client addresses)', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange({ env: { RATE_LIMITS: '1' } });
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  const nonceFrom = (remoteAddress: string) =>
    t.app.inject({ method: 'POST', url: '/auth/siwe/nonce', remoteAddress });

  async function signInFrom(remoteAddress: string, account: LocalAccount, nonce?: string) {
    const issued = nonce ?? (await nonceFrom(remoteAddress)).json().data.nonce;
    const text = createSiweMessage({
      address: account.address,
      chainId: t.config.chainId,
      domain: DOMAIN,
      uri: `http://${DOMAIN}/`,
      version: '1',
      nonce: issued,
      issuedAt: new Date(),
    });
    return t.app.inject({
      method: 'POST',
      url: '/auth/siwe/verify',
      remoteAddress,
      payload: { message: text, signature: await account.signMessage({ message: text }) },
    });
  }

  it('issues nonces to 25 addresses at their full rate and still signs in a newcomer and a pending user', async () => {
    const pending = freeWallet();
    const pendingNonce = (await nonceFrom('10.30.0.1')).json().data.nonce as string;
    // 25 x 401 = 10,025 nonces: past the 10,000 pending nonces the process used to hold, within the
    // base limit of each address.
    const perAddress = 401;
    expect(perAddress).toBeLessThan(RATE_LIMITS.base.max);
    const statuses = new Map<number, number>();
    await Promise.all(
      Array.from({ length: 25 }, async (_, a) => {
        for (let i = 0; i < perAddress; i++) {
          const status = (await nonceFrom(`10.31.0.${a + 1}`)).statusCode;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    );
    expect(Object.fromEntries(statuses)).toEqual({ 200: 25 * perAddress });
    const newcomer = await signInFrom('10.32.0.1', freeWallet());
    expect(newcomer.statusCode, newcomer.body).toBe(200);
    const late = await signInFrom('10.30.0.1', pending, pendingNonce);
    expect(late.statusCode, late.body).toBe(200);
  });

  it('lets 2,000 wallets sign in 5 times each from 50 addresses without locking out a newcomer or evicting a user', async () => {
    const user = await signInFrom('10.40.0.1', freeWallet());
    expect(user.statusCode).toBe(200);
    const userHeaders = { authorization: `Bearer ${user.json().data.sessionToken}` };
    // 10,000 sessions: what the process used to hold at most, after which every sign-in was a 503.
    const addresses = 50;
    const walletsPerAddress = 40;
    const signInsPerWallet = 5;
    expect(2 * walletsPerAddress * signInsPerWallet).toBeLessThan(RATE_LIMITS.base.max);
    const statuses = new Map<number, number>();
    await Promise.all(
      Array.from({ length: addresses }, async (_, a) => {
        for (let w = 0; w < walletsPerAddress; w++) {
          const wallet = freeWallet();
          for (let i = 0; i < signInsPerWallet; i++) {
            const status = (await signInFrom(`10.41.0.${a + 1}`, wallet)).statusCode;
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
          }
        }
      }),
    );
    expect(Object.fromEntries(statuses)).toEqual({ 200: addresses * walletsPerAddress * signInsPerWallet });
    const newcomer = await signInFrom('10.42.0.1', freeWallet());
    expect(newcomer.statusCode, newcomer.body).toBe(200);
    const stillIn = await t.app.inject({
      method: 'GET',
      url: '/auth/session',
      headers: userHeaders,
      remoteAddress: '10.40.0.1',
    });
    expect(stillIn.statusCode).toBe(200);
  }, 600_000);
});
