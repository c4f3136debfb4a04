import type { LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { defaultSiweDomains } from '../config/config.js';
import { SIWE_NONCE_TTL_MS, WEB_SESSION_TTL_MS, WebSessions } from './web-sessions.js';

const DOMAIN = 'exchange.example:8080';

function setup(limits?: ConstructorParameters<typeof WebSessions>[0]['limits']) {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const sessions = new WebSessions({
    origins: [`https://${DOMAIN}`],
    chainId: 4162,
    now: () => now,
    ...(limits ? { limits } : {}),
  });
  const message = (account: LocalAccount, nonce = sessions.issueNonce().nonce) =>
    createSiweMessage({
      address: account.address,
      chainId: 4162,
      domain: DOMAIN,
      uri: `https://${DOMAIN}/`,
      version: '1',
      nonce,
      issuedAt: new Date(now),
    });
  const signIn = async (account = privateKeyToAccount(generatePrivateKey()), text = message(account)) =>
    sessions.signIn(text, await account.signMessage({ message: text }), '203.0.113.1');
  return { sessions, message, signIn, advance: (ms: number) => (now += ms) };
}

describe('WebSessions', () => {
  it('opens a session that ends when its time is up', async () => {
    const { sessions, signIn, advance } = setup();
    const result = await signIn();
    if (result.type !== 'signed-in') throw new Error(result.message);
    advance(WEB_SESSION_TTL_MS - 1);
    expect(sessions.authenticate(result.token)).not.toBeNull();
    advance(1);
    expect(sessions.authenticate(result.token)).toBeNull();
  });

  it('refuses a nonce past its lifetime', async () => {
    const { sessions, signIn, advance } = setup();
    const account = privateKeyToAccount(generatePrivateKey());
    const { nonce } = sessions.issueNonce();
    advance(SIWE_NONCE_TTL_MS);
    const result = await signIn(account, setup().message(account, nonce));
    expect(result).toMatchObject({ type: 'refused', code: 'NONCE_UNKNOWN' });
  });

  it('consumes the nonce with the sign-in it opens, not with a refused attempt', async () => {
    const { sessions, message, signIn } = setup();
    const account = privateKeyToAccount(generatePrivateKey());
    const stranger = privateKeyToAccount(generatePrivateKey());
    const text = message(account);
    const spoiled = sessions.signIn(text, await stranger.signMessage({ message: text }), '198.51.100.9');
    expect(spoiled).toMatchObject({ type: 'refused', code: 'BAD_SIGNATURE' });
    expect((await signIn(account, text)).type).toBe('signed-in');
    expect(await signIn(account, text)).toMatchObject({ type: 'refused', code: 'NONCE_UNKNOWN' });
  });

  it('refuses a replay after the consumed nonces were forgotten, and still lets newcomers in', async () => {
    const { sessions, message, signIn } = setup({ consumedNonces: 10 });
    const victim = privateKeyToAccount(generatePrivateKey());
    const used = message(victim);
    const signature = await victim.signMessage({ message: used });
    expect(sessions.signIn(used, signature, '203.0.113.1').type).toBe('signed-in');
    for (let i = 0; i < 20; i++) expect((await signIn()).type).toBe('signed-in');
    expect(sessions.size.consumedNonces).toBe(10);
    expect(sessions.signIn(used, signature, '203.0.113.1')).toMatchObject({
      type: 'refused',
      message: 'the nonce is unknown, used or expired: sign in again',
    });
    expect((await signIn()).type).toBe('signed-in');
  });

  it('defaults to the http origins of the loopback names of the port, and the listening host', () => {
    expect(defaultSiweDomains('127.0.0.1', 8080)).toEqual(['http://127.0.0.1:8080', 'http://localhost:8080']);
    expect(defaultSiweDomains('0.0.0.0', 80)).toEqual(['http://127.0.0.1:80', 'http://localhost:80']);
    expect(defaultSiweDomains('bets.example', 8080)).toContain('http://bets.example:8080');
  });
});
