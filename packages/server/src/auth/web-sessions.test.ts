import type { LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { defaultSiweDomains } from '../config/config.js';
import { openDatabase } from '../store/sqlite/open-database.js';
import { sqliteWebSessionRepository } from '../store/sqlite/sqlite-web-session-repository.js';
import {
  SIWE_NONCE_TTL_MS,
  WEB_SESSION_TTL_MS,
  WebSessions,
  type WebSessionsOptions,
} from './web-sessions.js';

const DOMAIN = 'exchange.example:8080';

async function setup(limits?: WebSessionsOptions['limits']) {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const db = openDatabase(':memory:');
  const sessions = await WebSessions.open({
    origins: [`https://${DOMAIN}`],
    chainId: 4162,
    now: () => now,
    store: sqliteWebSessionRepository(db),
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
  return { sessions, db, message, signIn, advance: (ms: number) => (now += ms) };
}

describe('WebSessions', () => {
  it('opens a session that ends when its time is up', async () => {
    const { sessions, signIn, advance } = await setup();
    const result = await signIn();
    if (result.type !== 'signed-in') throw new Error(result.message);
    advance(WEB_SESSION_TTL_MS - 1);
    expect(sessions.authenticate(result.token)).not.toBeNull();
    advance(1);
    expect(sessions.authenticate(result.token)).toBeNull();
  });

  it('refuses a nonce past its lifetime', async () => {
    const { sessions, signIn, advance } = await setup();
    const account = privateKeyToAccount(generatePrivateKey());
    const { nonce } = sessions.issueNonce();
    advance(SIWE_NONCE_TTL_MS);
    const result = await signIn(account, (await setup()).message(account, nonce));
    expect(result).toMatchObject({ type: 'refused', code: 'NONCE_UNKNOWN' });
  });

  it('consumes the nonce with the sign-in it opens, not with a refused attempt', async () => {
    const { sessions, message, signIn } = await setup();
    const account = privateKeyToAccount(generatePrivateKey());
    const stranger = privateKeyToAccount(generatePrivateKey());
    const text = message(account);
    const spoiled = await sessions.signIn(
      text,
      await stranger.signMessage({ message: text }),
      '198.51.100.9',
    );
    expect(spoiled).toMatchObject({ type: 'refused', code: 'BAD_SIGNATURE' });
    expect((await signIn(account, text)).type).toBe('signed-in');
    expect(await signIn(account, text)).toMatchObject({ type: 'refused', code: 'NONCE_UNKNOWN' });
  });

  it('refuses a replay after the consumed nonces were forgotten, and still lets newcomers in', async () => {
    const { sessions, message, signIn } = await setup({ consumedNonces: 10 });
    const victim = privateKeyToAccount(generatePrivateKey());
    const used = message(victim);
    const signature = await victim.signMessage({ message: used });
    expect((await sessions.signIn(used, signature, '203.0.113.1')).type).toBe('signed-in');
    for (let i = 0; i < 20; i++) expect((await signIn()).type).toBe('signed-in');
    expect(sessions.size.consumedNonces).toBe(10);
    expect(await sessions.signIn(used, signature, '203.0.113.1')).toMatchObject({
      type: 'refused',
      message: 'the nonce is unknown, used or expired: sign in again',
    });
    expect((await signIn()).type).toBe('signed-in');
  });

  it('answers 503 when the store cannot record a sign-in, and the session it would have opened does not work', async () => {
    const { sessions, db, message, signIn } = await setup();
    const account = privateKeyToAccount(generatePrivateKey());
    const text = message(account);
    const signature = await account.signMessage({ message: text });
    db.exec(
      `CREATE TEMP TRIGGER refuse BEFORE INSERT ON web_sessions BEGIN SELECT RAISE(ABORT, 'full'); END`,
    );
    await expect(sessions.signIn(text, signature, '203.0.113.1')).rejects.toMatchObject({
      statusCode: 503,
      body: { message: 'sign-in could not be recorded: try again', statusCode: 503 },
    });
    expect(sessions.size.sessions).toBe(0);
    db.exec('DROP TRIGGER refuse');
    // The message stays used; a fresh one signs in.
    expect(await sessions.signIn(text, signature, '203.0.113.1')).toMatchObject({ code: 'NONCE_UNKNOWN' });
    expect((await signIn(account)).type).toBe('signed-in');
  });

  it('keeps a session working when the store cannot record its sign-out', async () => {
    const { sessions, db, signIn } = await setup();
    const result = await signIn();
    if (result.type !== 'signed-in') throw new Error(result.message);
    db.exec(
      `CREATE TEMP TRIGGER refuse BEFORE DELETE ON web_sessions BEGIN SELECT RAISE(ABORT, 'full'); END`,
    );
    await expect(sessions.end(result.token)).rejects.toMatchObject({ statusCode: 503 });
    expect(sessions.authenticate(result.token)).not.toBeNull();
    db.exec('DROP TRIGGER refuse');
    expect(await sessions.end(result.token)).toBe(true);
    expect(sessions.authenticate(result.token)).toBeNull();
  });

  it('defaults to the http origins of the loopback names of the port, and the listening host', () => {
    expect(defaultSiweDomains('127.0.0.1', 8080)).toEqual(['http://127.0.0.1:8080', 'http://localhost:8080']);
    expect(defaultSiweDomains('0.0.0.0', 80)).toEqual(['http://127.0.0.1:80', 'http://localhost:80']);
    expect(defaultSiweDomains('bets.example', 8080)).toContain('http://bets.example:8080');
  });
});
