import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { defaultSiweDomains } from '../config.js';
import {
  MAX_SESSIONS_PER_ACCOUNT,
  SIWE_NONCE_TTL_MS,
  WEB_SESSION_TTL_MS,
  WebSessions,
} from './web-sessions.js';

const DOMAIN = 'exchange.example:8080';

function setup() {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const sessions = new WebSessions({ domains: [DOMAIN], chainId: 4162, now: () => now });
  const account = privateKeyToAccount(generatePrivateKey());
  const signIn = async (nonce = sessions.issueNonce()!.nonce) => {
    const message = createSiweMessage({
      address: account.address,
      chainId: 4162,
      domain: DOMAIN,
      uri: `https://${DOMAIN}/`,
      version: '1',
      nonce,
      issuedAt: new Date(now),
    });
    return sessions.signIn(message, await account.signMessage({ message }));
  };
  return { sessions, signIn, advance: (ms: number) => (now += ms) };
}

describe('WebSessions', () => {
  it('ends a session when its time is up', async () => {
    const { sessions, signIn, advance } = setup();
    const result = await signIn();
    if (!result.ok) throw new Error(result.message);
    advance(WEB_SESSION_TTL_MS - 1);
    expect(sessions.authenticate(result.token)).not.toBeNull();
    advance(1);
    expect(sessions.authenticate(result.token)).toBeNull();
  });

  it('refuses a nonce past its lifetime', async () => {
    const { sessions, signIn, advance } = setup();
    const { nonce } = sessions.issueNonce()!;
    advance(SIWE_NONCE_TTL_MS);
    const result = await signIn(nonce);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.code).toBe('NONCE_UNKNOWN');
  });

  it(`keeps at most ${MAX_SESSIONS_PER_ACCOUNT} sessions per account, ending the oldest`, async () => {
    const { sessions, signIn } = setup();
    const tokens: string[] = [];
    for (let i = 0; i <= MAX_SESSIONS_PER_ACCOUNT; i++) {
      const result = await signIn();
      if (!result.ok) throw new Error(result.message);
      tokens.push(result.token);
    }
    expect(sessions.authenticate(tokens[0])).toBeNull();
    for (const token of tokens.slice(1)) expect(sessions.authenticate(token)).not.toBeNull();
    expect(sessions.size.sessions).toBe(MAX_SESSIONS_PER_ACCOUNT);
  });

  it('defaults to the loopback names of the port, and the listening host when it is one name', () => {
    expect(defaultSiweDomains('127.0.0.1', 8080)).toEqual(['127.0.0.1:8080', 'localhost:8080']);
    expect(defaultSiweDomains('0.0.0.0', 80)).toEqual(['127.0.0.1:80', 'localhost:80']);
    expect(defaultSiweDomains('bets.example', 8080)).toContain('bets.example:8080');
  });
});
