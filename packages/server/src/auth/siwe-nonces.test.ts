import { describe, expect, it } from 'vitest';
import { SIWE_NONCE_TTL_MS, SiweNonces } from './siwe-nonces.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

function flipHexDigit(text: string, index: number): string {
  const digit = text[index] === '0' ? '1' : '0';
  return text.slice(0, index) + digit + text.slice(index + 1);
}

describe('SiweNonces', () => {
  it('issues nonces that check without storing anything, EIP-4361 alphanumeric', () => {
    const nonces = new SiweNonces();
    const issued = Array.from({ length: 1000 }, (_, i) => nonces.issue(T0 + i));
    for (const { nonce, expiresAt } of issued) {
      expect(nonce).toMatch(/^[a-zA-Z0-9]{8,}$/);
      expect(nonces.check(nonce, T0 + 1000)).toMatchObject({ type: 'valid' });
      expect(expiresAt - SIWE_NONCE_TTL_MS).toBeLessThanOrEqual(T0 + 1000);
    }
    expect(new Set(issued.map((i) => i.nonce)).size).toBe(1000);
    expect(nonces.size.consumed).toBe(0);
  });

  it('refuses a nonce it did not issue: altered in any part, from another process, or not its shape', () => {
    const nonces = new SiweNonces();
    const { nonce } = nonces.issue(T0);
    // The time, the random part and the MAC each.
    for (const index of [3, 20, nonce.length - 1]) {
      expect(nonces.check(flipHexDigit(nonce, index), T0)).toEqual({ type: 'refused', reason: 'unknown' });
    }
    const other = new SiweNonces().issue(T0).nonce;
    expect(nonces.check(other, T0)).toEqual({ type: 'refused', reason: 'unknown' });
    for (const bad of ['', 'a'.repeat(32), nonce.toUpperCase(), `${nonce}00`, nonce.slice(2)]) {
      expect(nonces.check(bad, T0)).toEqual({ type: 'refused', reason: 'unknown' });
    }
  });

  it('refuses a nonce past its lifetime', () => {
    const nonces = new SiweNonces();
    const { nonce } = nonces.issue(T0);
    expect(nonces.check(nonce, T0 + SIWE_NONCE_TTL_MS - 1).type).toBe('valid');
    expect(nonces.check(nonce, T0 + SIWE_NONCE_TTL_MS)).toEqual({ type: 'refused', reason: 'expired' });
  });

  it('refuses a consumed nonce', () => {
    const nonces = new SiweNonces();
    const { nonce } = nonces.issue(T0);
    const checked = nonces.check(nonce, T0);
    if (checked.type !== 'valid') throw new Error('not valid');
    nonces.consume(checked, T0);
    expect(nonces.check(nonce, T0 + 1)).toEqual({ type: 'refused', reason: 'used' });
  });

  it('keeps refusing a consumed nonce after forgetting it: the watermark refuses all issued up to it', () => {
    const nonces = new SiweNonces({ maxConsumed: 3 });
    const use = (nonce: string, now: number) => {
      const checked = nonces.check(nonce, now);
      if (checked.type !== 'valid') throw new Error(`not valid: ${checked.reason}`);
      nonces.consume(checked, now);
    };
    const early = nonces.issue(T0).nonce;
    const unused = nonces.issue(T0 + 1).nonce;
    const used = [2, 3, 4].map((i) => nonces.issue(T0 + i).nonce);
    use(early, T0 + 10);
    for (const nonce of used.slice(0, 2)) use(nonce, T0 + 10);
    expect(nonces.size).toEqual({ consumed: 3, watermark: Number.NEGATIVE_INFINITY });
    expect(nonces.check(unused, T0 + 10).type).toBe('valid');

    use(used[2]!, T0 + 11);
    expect(nonces.size).toEqual({ consumed: 3, watermark: T0 * 1000 });
    // Forgotten, and still refused.
    expect(nonces.check(early, T0 + 12)).toEqual({ type: 'refused', reason: 'used' });
    // Issued later than the forgotten one and never used: unaffected.
    expect(nonces.check(unused, T0 + 12).type).toBe('valid');

    use(nonces.issue(T0 + 20).nonce, T0 + 20);
    use(nonces.issue(T0 + 21).nonce, T0 + 21);
    expect(nonces.size.watermark).toBe((T0 + 3) * 1000);
    // The cost of forgetting: an unused nonce issued before the watermark is refused too...
    expect(nonces.check(unused, T0 + 22)).toEqual({ type: 'refused', reason: 'used' });
    for (const nonce of used) expect(nonces.check(nonce, T0 + 22).type).toBe('refused');
    // ...while a newcomer's fresh nonce is not.
    expect(nonces.check(nonces.issue(T0 + 22).nonce, T0 + 22).type).toBe('valid');
  });

  it('forgets expired consumed nonces without raising the watermark', () => {
    const nonces = new SiweNonces({ maxConsumed: 2 });
    for (const at of [T0, T0 + 1]) {
      const checked = nonces.check(nonces.issue(at).nonce, at);
      if (checked.type !== 'valid') throw new Error('not valid');
      nonces.consume(checked, at);
    }
    const later = T0 + SIWE_NONCE_TTL_MS + 1;
    const fresh = nonces.check(nonces.issue(later).nonce, later);
    if (fresh.type !== 'valid') throw new Error('not valid');
    nonces.consume(fresh, later);
    expect(nonces.size).toEqual({ consumed: 1, watermark: Number.NEGATIVE_INFINITY });
  });

  it('takes back stored consumed nonces and a watermark, and issues above them', () => {
    const before = new SiweNonces({ secret: new Uint8Array(32).fill(7) });
    const issued = [0, 1, 2].map(() => before.issue(T0).nonce);
    const consumed = issued.map((nonce) => {
      const checked = before.check(nonce, T0);
      if (checked.type !== 'valid') throw new Error('not valid');
      return checked;
    });
    // A process started with the same secret and the clock behind: the first two back, the third under
    // the watermark.
    const after = new SiweNonces({ secret: new Uint8Array(32).fill(7) });
    after.restore(consumed.slice(0, 2), consumed[2]!.stamp - 1, T0 - 1000);
    expect(issued.map((nonce) => after.check(nonce, T0).type)).toEqual(['refused', 'refused', 'valid']);
    after.restore([], consumed[2]!.stamp, T0 - 1000);
    expect(after.check(issued[2]!, T0)).toEqual({ type: 'refused', reason: 'used' });
    expect(after.check(after.issue(T0 - 1000).nonce, T0).type).toBe('valid');
  });
});
