import { describe, expect, it } from 'vitest';
import { SessionTable, sessionTokenHash, WEB_SESSION_TTL_MS } from './session-table.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as `0x${string}`;

describe('SessionTable', () => {
  it('ends a session when its time is up, or at sign-out', () => {
    const table = new SessionTable({ total: 10, perAccount: 5, perClient: 5 });
    const a = table.open(address(1), '10.0.0.1', T0);
    const b = table.open(address(1), '10.0.0.1', T0);
    expect(a.session.expiresAt).toBe(T0 + WEB_SESSION_TTL_MS);
    expect(table.find(a.token, T0 + WEB_SESSION_TTL_MS - 1)).toMatchObject({ address: address(1) });
    expect(table.find(a.token, T0 + WEB_SESSION_TTL_MS)).toBeNull();
    expect(table.end(b.tokenHash)).toBe(true);
    expect(table.end(b.tokenHash)).toBe(false);
    expect(table.find(b.token, T0)).toBeNull();
    expect(table.size).toBe(0);
  });

  it("keeps an account's newest sessions and a client's newest, ending the oldest", () => {
    const table = new SessionTable({ total: 100, perAccount: 2, perClient: 3 });
    const own = [1, 2, 3].map(() => table.open(address(1), '10.0.0.1', T0).token);
    expect(own.map((t) => table.find(t, T0) !== null)).toEqual([false, true, true]);
    // Other accounts from the same client: past 3, the client's oldest goes, whoever's it is.
    const others = [2, 3].map((i) => table.open(address(i), '10.0.0.1', T0).token);
    expect([...own, ...others].map((t) => table.find(t, T0) !== null)).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
    // Another client is untouched by all that.
    const elsewhere = table.open(address(9), '10.0.0.2', T0).token;
    table.open(address(4), '10.0.0.1', T0);
    expect(table.find(elsewhere, T0)).not.toBeNull();
    expect(table.size).toBe(4);
  });

  it('past its total, ends the least recently used session, never refusing a sign-in', () => {
    const table = new SessionTable({ total: 3, perAccount: 5, perClient: 5 });
    const [a, b, c] = [1, 2, 3].map((i) => table.open(address(i), `10.0.0.${i}`, T0 + i).token);
    table.find(a!, T0 + 4);
    const d = table.open(address(4), '10.0.0.4', T0 + 5).token;
    expect([a, b, c, d].map((t) => table.find(t!, T0 + 6) !== null)).toEqual([true, false, true, true]);
    for (let i = 10; i < 1000; i++) table.open(address(i), `10.0.${i >> 8}.${i & 255}`, T0 + i);
    expect(table.size).toBe(3);
  });

  it('drops expired sessions when it sweeps, whatever their place in the order', () => {
    const table = new SessionTable({ total: 10, perAccount: 5, perClient: 5 });
    for (let i = 0; i < 5; i++) table.open(address(i), '10.0.0.1', T0);
    table.open(address(9), '10.0.0.2', T0 + WEB_SESSION_TTL_MS);
    expect(table.size).toBe(1);
  });

  it('names the sessions a sign-in ends to make room', () => {
    const table = new SessionTable({ total: 10, perAccount: 1, perClient: 5 });
    const first = table.open(address(1), '10.0.0.1', T0);
    expect(first.ended).toEqual([]);
    expect(first.tokenHash).toBe(sessionTokenHash(first.token));
    expect(table.open(address(1), '10.0.0.1', T0).ended).toEqual([first.tokenHash]);
  });

  it('takes back stored sessions within its bounds, leaving out the expired', () => {
    const table = new SessionTable({ total: 10, perAccount: 2, perClient: 5 });
    const stored = (i: number, expiresAt = T0 + WEB_SESSION_TTL_MS) => ({
      address: address(1),
      client: '10.0.0.1',
      createdAt: T0 + i,
      expiresAt,
    });
    expect(table.restore('a', stored(1, T0), T0)).toEqual([]);
    expect(table.restore('b', stored(2), T0)).toEqual([]);
    expect(table.restore('c', stored(3), T0)).toEqual([]);
    expect(table.restore('d', stored(4), T0)).toEqual(['b']);
    expect(table.size).toBe(2);
    // A token is found by its hash: the table holds no token.
    const opened = table.open(address(2), '10.0.0.2', T0);
    expect(table.end(opened.tokenHash)).toBe(true);
  });
});
