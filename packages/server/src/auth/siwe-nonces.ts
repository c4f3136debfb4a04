import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A sign-in nonce is good for one sign-in within this time of its issue. */
export const SIWE_NONCE_TTL_MS = 5 * 60_000;
/** Consumed nonces remembered at most; past it the oldest is forgotten and the watermark rises. */
export const MAX_CONSUMED_NONCES = 100_000;

const STAMP_BYTES = 8;
const RANDOM_BYTES = 16;
const MAC_BYTES = 16;
const NONCE_HEX = new RegExp(`^[0-9a-f]{${2 * (STAMP_BYTES + RANDOM_BYTES + MAC_BYTES)}}$`);

export type NonceCheck =
  | { type: 'valid'; id: string; stamp: number; expiresAt: number }
  | { type: 'refused'; reason: 'unknown' | 'expired' | 'used' };

/** Issue stamps count microseconds-ish: the issue time in ms x 1000, plus one per nonce within a ms. */
const STAMPS_PER_MS = 1000;

/**
 * Stateless sign-in nonces: hex of `stamp (8 bytes) ‖ random (16) ‖ HMAC-SHA256(secret, both)[0..16]`,
 * where the stamp is the issue time made strictly increasing (so "issued at or before" orders any two).
 * Issuing stores nothing, so nobody can fill anything by asking for nonces; checking one needs only the
 * secret. Only consumed nonces are remembered, until they expire, and at most `maxConsumed` of them:
 * when the oldest consumed one (stamp t) is forgotten to make room, every nonce stamped at or before t
 * is refused from then on (the watermark), so forgetting never lets a replay through.
 *
 * The secret is kept in the data dir and the consumed nonces are stored (web-sessions.ts), so that a
 * nonce issued before a restart is good after it and one consumed before it is not; `restore` takes
 * them back at start.
 */
export class SiweNonces {
  /** Consumed nonce id (its random part) -> its stamp; insertion order is consumption order. */
  private readonly consumed = new Map<string, number>();
  private watermark = Number.NEGATIVE_INFINITY;
  private lastStamp = 0;
  private readonly secret: Uint8Array;
  private readonly maxConsumed: number;

  constructor(options: { secret?: Uint8Array; maxConsumed?: number } = {}) {
    this.secret = options.secret ?? randomBytes(32);
    this.maxConsumed = options.maxConsumed ?? MAX_CONSUMED_NONCES;
  }

  issue(now: number): { nonce: string; expiresAt: number } {
    const stamp = Math.max(this.lastStamp + 1, Math.floor(now) * STAMPS_PER_MS);
    this.lastStamp = stamp;
    const body = Buffer.alloc(STAMP_BYTES + RANDOM_BYTES);
    body.writeBigUInt64BE(BigInt(stamp), 0);
    randomBytes(RANDOM_BYTES).copy(body, STAMP_BYTES);
    const nonce = body.toString('hex') + this.mac(body).toString('hex');
    return { nonce, expiresAt: issuedAtOf(stamp) + SIWE_NONCE_TTL_MS };
  }

  /** Whether a nonce is one this process issued, unexpired, unused and above the watermark. */
  check(nonce: string, now: number): NonceCheck {
    if (!NONCE_HEX.test(nonce)) return { type: 'refused', reason: 'unknown' };
    const bytes = Buffer.from(nonce, 'hex');
    const body = bytes.subarray(0, STAMP_BYTES + RANDOM_BYTES);
    if (!timingSafeEqual(bytes.subarray(STAMP_BYTES + RANDOM_BYTES), this.mac(body))) {
      return { type: 'refused', reason: 'unknown' };
    }
    const stamp = Number(body.readBigUInt64BE(0));
    const expiresAt = issuedAtOf(stamp) + SIWE_NONCE_TTL_MS;
    if (expiresAt <= now) return { type: 'refused', reason: 'expired' };
    // A flat string of its own (a slice would keep the whole request's nonce alive with it).
    const id = body.toString('hex', STAMP_BYTES);
    if (stamp <= this.watermark || this.consumed.has(id)) return { type: 'refused', reason: 'used' };
    return { type: 'valid', id, stamp, expiresAt };
  }

  /** Marks a checked nonce used. */
  consume(nonce: { id: string; stamp: number }, now: number): void {
    for (const [id, stamp] of this.consumed) {
      if (issuedAtOf(stamp) + SIWE_NONCE_TTL_MS > now) break;
      // Expired: refused on its time alone, no need to remember it.
      this.consumed.delete(id);
    }
    while (this.consumed.size >= this.maxConsumed) {
      const [id, stamp] = this.consumed.entries().next().value as [string, number];
      this.consumed.delete(id);
      this.watermark = Math.max(this.watermark, stamp);
    }
    if (nonce.stamp > this.watermark) this.consumed.set(nonce.id, nonce.stamp);
  }

  /**
   * Takes back stored consumed nonces (lowest stamp first) and the watermark of those left out, at start.
   * Stamps go on above every one of them, so a nonce issued now is never under the watermark.
   */
  restore(consumed: readonly { id: string; stamp: number }[], watermark: number | null, now: number): void {
    for (const nonce of consumed) {
      this.consume(nonce, now);
      this.lastStamp = Math.max(this.lastStamp, nonce.stamp);
    }
    if (watermark !== null) this.watermark = Math.max(this.watermark, watermark);
    this.lastStamp = Math.max(this.lastStamp, this.watermark);
  }

  /** How many consumed nonces are remembered, and the watermark (a stamp: issue ms x 1000 + sequence). */
  get size(): { consumed: number; watermark: number } {
    return { consumed: this.consumed.size, watermark: this.watermark };
  }

  private mac(body: Uint8Array): Buffer {
    return createHmac('sha256', this.secret).update(body).digest().subarray(0, MAC_BYTES);
  }
}

function issuedAtOf(stamp: number): number {
  return Math.floor(stamp / STAMPS_PER_MS);
}
