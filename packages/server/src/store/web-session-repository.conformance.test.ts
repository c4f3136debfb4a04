import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConsumedNonce, StoredWebSession, WebSessionRepository } from './repositories.js';
import { type PortsUnderTest, storesUnderTest } from './test-support/stores-under-test.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3_600_000;

const session = (n: number, createdAt = T0 + n, expiresAt = createdAt + 8 * HOUR): StoredWebSession => ({
  tokenHash: `hash-${n}`,
  address: `0x${n.toString(16).padStart(40, '0')}`,
  client: `10.0.0.${n}`,
  createdAt,
  expiresAt,
});
const nonce = (n: number, stamp = (T0 + n) * 1000): ConsumedNonce => ({
  id: `nonce-${n}`,
  stamp,
  expiresAt: Math.floor(stamp / 1000) + 300_000,
});

describe.each(await storesUnderTest())('the web session repository on $name', (store) => {
  let ports: PortsUnderTest;
  let repo: WebSessionRepository;
  const reopen = async () => {
    ports = await ports.reopen();
    repo = ports.store.webSessions;
  };
  beforeEach(async () => {
    ports = await store.open();
    repo = ports.store.webSessions;
  });
  afterEach(() => ports.close());

  it('keeps what a sign-in records across a reopen: the session, its nonce, and not the sessions it ended', async () => {
    await repo.signedIn({ nonce: nonce(1), session: session(1), ended: [] });
    await repo.signedIn({ nonce: nonce(2), session: session(2), ended: ['hash-1'] });
    await reopen();
    expect(await repo.sessions(T0, 10)).toEqual([session(2)]);
    expect(await repo.consumedNonces(T0, 10)).toEqual({ nonces: [nonce(1), nonce(2)], watermark: null });
  });

  it('records a sign-in whole or not at all', async () => {
    await repo.signedIn({ nonce: nonce(1), session: session(1), ended: [] });
    // The same session again fails on its row; its nonce and the session it ended stay as they were.
    await ports.refuseWebSessions();
    await expect(repo.signedIn({ nonce: nonce(2), session: session(2), ended: ['hash-1'] })).rejects.toThrow(
      'full',
    );
    expect(await repo.sessions(T0, 10)).toEqual([session(1)]);
    expect((await repo.consumedNonces(T0, 10)).nonces).toEqual([nonce(1)]);
  });

  it('records a nonce once: a second sign-in with it (another node) records nothing', async () => {
    expect(await repo.signedIn({ nonce: nonce(1), session: session(1), ended: [] })).toBe('recorded');
    expect(await repo.signedIn({ nonce: nonce(1), session: session(2), ended: ['hash-1'] })).toBe(
      'nonce-used',
    );
    expect(await repo.sessions(T0, 10)).toEqual([session(1)]);
  });

  it('finds a live session by its token hash', async () => {
    await repo.signedIn({ nonce: nonce(1), session: session(1), ended: [] });
    expect(await repo.session('hash-1', T0)).toEqual(session(1));
    expect(await repo.session('hash-1', session(1).expiresAt)).toBeNull();
    expect(await repo.session('no-such-hash', T0)).toBeNull();
  });

  it('deletes a session at sign-out, and nothing when there is none', async () => {
    await repo.signedIn({ nonce: nonce(1), session: session(1), ended: [] });
    await repo.signedIn({ nonce: nonce(2), session: session(2), ended: [] });
    await repo.deleteSession('hash-1');
    await repo.deleteSession('hash-1');
    await repo.deleteSession('no-such-hash');
    expect(await repo.sessions(T0, 10)).toEqual([session(2)]);
  });

  it('gives the live sessions that end last, in the order they end, and leaves out the expired', async () => {
    for (const n of [3, 1, 4, 2]) await repo.signedIn({ nonce: nonce(n), session: session(n), ended: [] });
    await repo.signedIn({ nonce: nonce(5), session: session(5, T0, T0 + HOUR), ended: [] });
    expect((await repo.sessions(T0, 10)).map((s) => s.tokenHash)).toEqual([
      'hash-5',
      'hash-1',
      'hash-2',
      'hash-3',
      'hash-4',
    ]);
    expect((await repo.sessions(T0 + HOUR, 10)).map((s) => s.tokenHash)).toEqual([
      'hash-1',
      'hash-2',
      'hash-3',
      'hash-4',
    ]);
    expect((await repo.sessions(T0, 2)).map((s) => s.tokenHash)).toEqual(['hash-3', 'hash-4']);
  });

  it('gives the live consumed nonces with the highest stamps, and the highest stamp of those left out', async () => {
    for (const n of [3, 1, 4, 2, 5]) await repo.signedIn({ nonce: nonce(n), session: session(n), ended: [] });
    expect(await repo.consumedNonces(T0, 2)).toEqual({
      nonces: [nonce(4), nonce(5)],
      watermark: nonce(3).stamp,
    });
    // Expired ones are neither given nor counted in the watermark.
    const later = nonce(3).expiresAt;
    expect(await repo.consumedNonces(later, 1)).toEqual({ nonces: [nonce(5)], watermark: nonce(4).stamp });
    expect(await repo.consumedNonces(later, 5)).toEqual({ nonces: [nonce(4), nonce(5)], watermark: null });
  });

  it('deletes the expired sessions and nonces, and only those', async () => {
    await repo.signedIn({ nonce: nonce(1), session: session(1, T0, T0 + HOUR), ended: [] });
    await repo.signedIn({ nonce: nonce(2, (T0 + HOUR) * 1000), session: session(2), ended: [] });
    await repo.deleteExpired(T0 + HOUR);
    expect(await ports.count('web_sessions')).toBe(1);
    expect(await ports.count('consumed_siwe_nonces')).toBe(1);
    expect(await repo.sessions(0, 10)).toEqual([session(2)]);
    expect((await repo.consumedNonces(0, 10)).nonces).toEqual([nonce(2, (T0 + HOUR) * 1000)]);
  });
});
