import type { LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refuseWebSessions } from '../helpers/store-access.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';

// startTestExchange keeps the default port, so the default sign-in domains are the loopback names of 8080.
const DOMAIN = '127.0.0.1:8080';
const freeWallet = () => privateKeyToAccount(generatePrivateKey());
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('browser sessions and sign-in nonces across a restart on the same data dir', () => {
  let t: TestExchange;

  const nonce = async (): Promise<string> =>
    (await t.app.inject({ method: 'POST', url: '/auth/siwe/nonce' })).json().data.nonce;

  async function signedMessage(account: LocalAccount, issued: string) {
    const message = createSiweMessage({
      address: account.address,
      chainId: t.config.chainId,
      domain: DOMAIN,
      uri: `http://${DOMAIN}/`,
      version: '1',
      nonce: issued,
      issuedAt: new Date(),
    });
    return { message, signature: await account.signMessage({ message }) };
  }

  const verify = (payload: { message: string; signature: string }) =>
    t.app.inject({ method: 'POST', url: '/auth/siwe/verify', payload });
  const session = (token: string) =>
    t.app.inject({ method: 'GET', url: '/auth/session', headers: bearer(token) });

  async function signIn(account: LocalAccount): Promise<string> {
    const response = await verify(await signedMessage(account, await nonce()));
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data.sessionToken;
  }

  const signedIn = freeWallet();
  let signedInToken: string;
  const pending = freeWallet();
  let pendingNonce: string;
  let used: { message: string; signature: string };
  let signedOutToken: string;

  beforeAll(async () => {
    t = await startTestExchange();
    signedInToken = await signIn(signedIn);
    pendingNonce = await nonce();
    used = await signedMessage(freeWallet(), await nonce());
    expect((await verify(used)).statusCode).toBe(200);
    signedOutToken = await signIn(freeWallet());
    const signOut = await t.app.inject({
      method: 'DELETE',
      url: '/auth/session',
      headers: bearer(signedOutToken),
    });
    expect(signOut.json().data).toEqual({ ended: true });
    t = await t.reopen();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('keeps a session signed in', async () => {
    const response = await session(signedInToken);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.address).toBe(signedIn.address);
    const keys = await t.app.inject({
      method: 'GET',
      url: '/account/api-keys',
      headers: bearer(signedInToken),
    });
    expect(keys.statusCode).toBe(200);
  });

  it('signs in with a nonce issued before the restart', async () => {
    const response = await verify(await signedMessage(pending, pendingNonce));
    expect(response.statusCode, response.body).toBe(200);
    expect((await session(response.json().data.sessionToken)).statusCode).toBe(200);
  });

  it('refuses a message used before the restart', async () => {
    const response = await verify(used);
    expect(response.statusCode).toBe(401);
    expect(response.json().message).toBe('the nonce is unknown, used or expired: sign in again');
  });

  it('keeps a session signed out', async () => {
    expect((await session(signedOutToken)).statusCode).toBe(401);
  });

  it('answers 503 in the error shape when the store cannot record a sign-in', async () => {
    const account = freeWallet();
    const payload = await signedMessage(account, await nonce());
    const allow = await refuseWebSessions(t.exchange);
    try {
      const response = await verify(payload);
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({
        message: 'sign-in could not be recorded: try again',
        statusCode: 503,
      });
    } finally {
      await allow();
    }
    await signIn(account);
  });
});
