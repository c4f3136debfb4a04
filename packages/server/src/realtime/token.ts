/**
 * Realtime connection tokens: HS256 JWTs (RFC 7519) made and checked with node:crypto alone.
 * Claims: `sub` (the checksummed EOA, the connection's user), `iat` and `exp` (unix seconds), and
 * `akid` (the id of the API key the token was issued for, so that revoking the key ends the token).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { getAddress } from 'viem';

export type RealtimeIdentity = {
  /** Checksummed EOA address. */
  sub: `0x${string}`;
  /** Expiry, unix seconds. */
  exp: number;
  /** The API key the token was issued for (claim `akid`), when it names one. */
  keyId?: string;
};

export type RealtimeTokenFailure = 'expired' | 'invalid';

/** Thrown by a token verifier. `expired` lets the client refresh its token; `invalid` ends the connection. */
export class RealtimeTokenError extends Error {
  override name = 'RealtimeTokenError';
  readonly reason: RealtimeTokenFailure;
  constructor(reason: RealtimeTokenFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

export type RealtimeTokenSecret = string | Uint8Array;

const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;

function base64url(text: string | Buffer): string {
  return Buffer.from(text).toString('base64url');
}

function sign(secret: RealtimeTokenSecret, signingInput: string): Buffer {
  if (secret.length === 0) throw new TypeError('realtime token secret must not be empty');
  return createHmac('sha256', secret).update(signingInput).digest();
}

/** A signed token for `sub`, valid for `ttlSeconds` from `now` (milliseconds, default Date.now()). */
export function createRealtimeToken(options: {
  secret: RealtimeTokenSecret;
  sub: string;
  ttlSeconds: number;
  /** The API key the token is issued for. */
  keyId?: string;
  now?: number;
}): string {
  if (!ADDRESS.test(options.sub))
    throw new TypeError(`sub is not an address: ${JSON.stringify(options.sub)}`);
  if (!Number.isInteger(options.ttlSeconds) || options.ttlSeconds <= 0) {
    throw new RangeError('ttlSeconds must be a positive integer');
  }
  if (options.keyId !== undefined && !KEY_ID.test(options.keyId)) {
    throw new TypeError(`keyId is not a key id: ${JSON.stringify(options.keyId)}`);
  }
  const iat = Math.floor((options.now ?? Date.now()) / 1000);
  const claims = { sub: getAddress(options.sub), iat, exp: iat + options.ttlSeconds, akid: options.keyId };
  const payload = base64url(JSON.stringify(claims));
  const signingInput = `${HEADER}.${payload}`;
  return `${signingInput}.${sign(options.secret, signingInput).toString('base64url')}`;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * The bytes of a segment in canonical base64url (RFC 7515: no padding, no other alphabet, unused low bits
 * zero), else undefined. Node's decoder is lenient (it skips characters outside the alphabet, takes `+`,
 * `/` and `=`, ignores unused bits), so several spellings decode to the same bytes: only the one the
 * encoder makes is a token.
 */
function decodeSegment(segment: string): Buffer | undefined {
  if (!BASE64URL.test(segment)) return undefined;
  const bytes = Buffer.from(segment, 'base64url');
  return bytes.toString('base64url') === segment ? bytes : undefined;
}

function decodeJson(segment: string): unknown {
  const bytes = decodeSegment(segment);
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks signature, algorithm and claims; returns the identity or throws RealtimeTokenError.
 * The signature is checked before expiry, so only a genuine token can be reported as expired.
 */
export function verifyRealtimeToken(options: {
  secret: RealtimeTokenSecret;
  token: string;
  now?: number;
}): RealtimeIdentity {
  const parts = options.token.split('.');
  if (parts.length !== 3) throw new RealtimeTokenError('invalid', 'malformed token');
  const [header, payload, signature] = parts as [string, string, string];
  const headerJson = decodeJson(header);
  if (!isRecord(headerJson) || headerJson.alg !== 'HS256')
    throw new RealtimeTokenError('invalid', 'unsupported alg');
  const expected = sign(options.secret, `${header}.${payload}`);
  const given = decodeSegment(signature);
  if (given === undefined || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new RealtimeTokenError('invalid', 'bad signature');
  }
  const claims = decodeJson(payload);
  if (!isRecord(claims)) throw new RealtimeTokenError('invalid', 'malformed claims');
  const { sub, exp, akid } = claims;
  if (typeof sub !== 'string' || !ADDRESS.test(sub) || getAddress(sub) !== sub) {
    throw new RealtimeTokenError('invalid', 'sub is not a checksummed address');
  }
  if (typeof exp !== 'number' || !Number.isInteger(exp))
    throw new RealtimeTokenError('invalid', 'exp missing');
  if (akid !== undefined && (typeof akid !== 'string' || !KEY_ID.test(akid))) {
    throw new RealtimeTokenError('invalid', 'akid is not a key id');
  }
  if (exp * 1000 <= (options.now ?? Date.now())) throw new RealtimeTokenError('expired', 'token expired');
  return akid === undefined
    ? { sub: sub as `0x${string}`, exp }
    : { sub: sub as `0x${string}`, exp, keyId: akid };
}

/** A verifier for the realtime hub's `verifyToken` option. */
export function createRealtimeTokenVerifier(
  secret: RealtimeTokenSecret,
  clock: { now(): number } = { now: () => Date.now() },
): (token: string) => RealtimeIdentity {
  return (token) => verifyRealtimeToken({ secret, token, now: clock.now() });
}
