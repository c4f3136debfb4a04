import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createRealtimeToken,
  createRealtimeTokenVerifier,
  RealtimeTokenError,
  verifyRealtimeToken,
} from './token.js';

const SECRET = 'a-secret-of-thirty-two-bytes-ok!';
const USER = '0x52908400098527886E0F7030069857D2E4169EE7';
const NOW = 1_800_000_000_000;

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof RealtimeTokenError) return err.reason;
    throw err;
  }
  return 'none';
}

function b64(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('realtime token', () => {
  it('round-trips sub and exp, with sub checksummed', () => {
    const token = createRealtimeToken({ secret: SECRET, sub: USER.toLowerCase(), ttlSeconds: 600, now: NOW });
    expect(token.split('.')).toHaveLength(3);
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(verifyRealtimeToken({ secret: SECRET, token, now: NOW })).toEqual({
      sub: USER,
      exp: NOW / 1000 + 600,
    });
  });

  it('names the API key it was issued for (claim akid), and refuses a malformed one', () => {
    const keyId = '0b6c3f9e-8a51-4a43-9d7c-2f1f3c1f0a11';
    const token = createRealtimeToken({ secret: SECRET, sub: USER, ttlSeconds: 600, keyId, now: NOW });
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(claims).toEqual({ sub: USER, iat: NOW / 1000, exp: NOW / 1000 + 600, akid: keyId });
    expect(verifyRealtimeToken({ secret: SECRET, token, now: NOW })).toEqual({
      sub: USER,
      exp: NOW / 1000 + 600,
      keyId,
    });
    expect(() => createRealtimeToken({ secret: SECRET, sub: USER, ttlSeconds: 600, keyId: 'a b' })).toThrow(
      TypeError,
    );
    const header = b64({ alg: 'HS256', typ: 'JWT' });
    for (const akid of [42, '', 'x'.repeat(65), 'a.b']) {
      const payload = b64({ sub: USER, iat: NOW / 1000, exp: NOW / 1000 + 600, akid });
      const signature = createHmac('sha256', SECRET).update(`${header}.${payload}`).digest('base64url');
      expect(
        failure(() =>
          verifyRealtimeToken({ secret: SECRET, token: `${header}.${payload}.${signature}`, now: NOW }),
        ),
      ).toBe('invalid');
    }
  });

  it('is a standard HS256 JWT (signature = HMAC-SHA256 of header.payload)', () => {
    const token = createRealtimeToken({ secret: SECRET, sub: USER, ttlSeconds: 60, now: NOW });
    const [h, p, s] = token.split('.');
    expect(createHmac('sha256', SECRET).update(`${h}.${p}`).digest('base64url')).toBe(s);
  });

  it('reports expiry only for a genuine token', () => {
    const token = createRealtimeToken({ secret: SECRET, sub: USER, ttlSeconds: 60, now: NOW });
    expect(failure(() => verifyRealtimeToken({ secret: SECRET, token, now: NOW + 60_000 }))).toBe('expired');
    expect(failure(() => verifyRealtimeToken({ secret: SECRET, token, now: NOW + 59_999 }))).toBe('none');
    expect(failure(() => verifyRealtimeToken({ secret: 'another secret', token, now: NOW + 120_000 }))).toBe(
      'invalid',
    );
  });

  it('rejects tampering, other algorithms and bad claims as invalid', () => {
    const token = createRealtimeToken({ secret: SECRET, sub: USER, ttlSeconds: 60, now: NOW });
    const [h, p, s] = token.split('.') as [string, string, string];
    const sign = (header: string, payload: string) =>
      `${header}.${payload}.${createHmac('sha256', SECRET).update(`${header}.${payload}`).digest('base64url')}`;
    const exp = NOW / 1000 + 60;
    const cases = [
      '',
      'a.b',
      `${h}.${p}`,
      `${h}.${b64({ sub: '0x8617E340B3D01FA5F11F306F4090FD50E238070D', exp })}.${s}`,
      `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`,
      sign(b64({ alg: 'HS512', typ: 'JWT' }), p),
      sign(h, b64({ sub: USER.toLowerCase(), exp })),
      sign(h, b64({ sub: 'alice', exp })),
      sign(h, b64({ sub: USER })),
      sign(h, b64({ sub: USER, exp: `${exp}` })),
      sign(h, 'not-json'),
    ];
    for (const bad of cases)
      expect(
        failure(() => verifyRealtimeToken({ secret: SECRET, token: bad, now: NOW })),
        bad,
      ).toBe('invalid');
    expect(
      failure(() =>
        verifyRealtimeToken({ secret: SECRET, token: sign(h, b64({ sub: USER, exp })), now: NOW }),
      ),
    ).toBe('none');
  });

  it('accepts only the canonical base64url spelling of each segment', () => {
    const token = createRealtimeToken({ secret: SECRET, sub: USER, ttlSeconds: 60, now: NOW });
    const [h, p, s] = token.split('.') as [string, string, string];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // 32 signature bytes take 43 characters: the last one carries 2 unused low bits.
    const last = alphabet.indexOf(s.at(-1)!);
    const otherLast = `${s.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(Buffer.from(otherLast, 'base64url')).toEqual(Buffer.from(s, 'base64url'));
    // Node decodes each of these to the very bytes of the genuine segment.
    const respelled = [
      `${h}.${p}.${otherLast}`,
      `${h}.${p}.${s}=`,
      `${h}.${p}.${s.slice(0, 10)}*${s.slice(10)}`,
      `${h}.${p}.${s.replaceAll('-', '+').replaceAll('_', '/')}`,
      `${h}=.${p}.${s}`,
      `${h}.${p} .${s}`,
    ].filter((t) => t !== token);
    expect(respelled.length).toBeGreaterThanOrEqual(5);
    for (const bad of respelled)
      expect(
        failure(() => verifyRealtimeToken({ secret: SECRET, token: bad, now: NOW })),
        bad,
      ).toBe('invalid');
    expect(failure(() => verifyRealtimeToken({ secret: SECRET, token, now: NOW }))).toBe('none');
  });

  it('refuses to make tokens for a non-address, a non-positive ttl or an empty secret', () => {
    expect(() => createRealtimeToken({ secret: SECRET, sub: 'alice', ttlSeconds: 60 })).toThrow(TypeError);
    expect(() => createRealtimeToken({ secret: SECRET, sub: USER, ttlSeconds: 0 })).toThrow(RangeError);
    expect(() => createRealtimeToken({ secret: '', sub: USER, ttlSeconds: 60 })).toThrow(TypeError);
  });

  it('makes a verifier for the hub that reads the clock at each call', () => {
    let now = NOW;
    const verify = createRealtimeTokenVerifier(SECRET, { now: () => now });
    const token = createRealtimeToken({ secret: SECRET, sub: USER, ttlSeconds: 10, now: NOW });
    expect(verify(token).sub).toBe(USER);
    now += 10_000;
    expect(failure(() => verify(token))).toBe('expired');
  });
});
