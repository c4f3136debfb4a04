import { createHash, randomBytes } from 'node:crypto';
import { getAddress, isAddress, recoverMessageAddress } from 'viem';
import { parseSiweMessage } from 'viem/siwe';

/** A sign-in nonce is good for one attempt within this time. */
export const SIWE_NONCE_TTL_MS = 5 * 60_000;
/** A browser session ends this long after sign-in, or earlier on sign-out. */
export const WEB_SESSION_TTL_MS = 8 * 60 * 60_000;
/** Bounds on what the process holds: past them sign-ins are refused (503) rather than memory grown. */
export const MAX_PENDING_NONCES = 10_000;
export const MAX_WEB_SESSIONS = 10_000;
/** Sessions per account: a further sign-in ends the account's oldest. */
export const MAX_SESSIONS_PER_ACCOUNT = 5;
/** Longest EIP-4361 message accepted (a real one is ~500 bytes). */
export const MAX_SIWE_MESSAGE_CHARS = 4096;

export type WebSession = { address: `0x${string}`; createdAt: number; expiresAt: number };

export type SignInFailure =
  | 'MALFORMED_MESSAGE'
  | 'WRONG_DOMAIN'
  | 'WRONG_CHAIN'
  | 'NONCE_UNKNOWN'
  | 'MESSAGE_EXPIRED'
  | 'BAD_SIGNATURE';

export type SignInResult =
  | { ok: true; token: string; session: WebSession }
  | { ok: false; code: SignInFailure | 'TOO_MANY_SESSIONS'; message: string };

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * Sign-In with Ethereum (EIP-4361) over `personal_sign`, and the browser sessions it opens.
 * Nonces and sessions live in memory only: a restart signs every browser out, which costs a signature,
 * and API keys (the durable credential) are unaffected. See docs/adr/0005-browser-sessions.md.
 */
export class WebSessions {
  /** nonce -> expiry (ms). */
  private readonly nonces = new Map<string, number>();
  /** sha-256(token) -> session; insertion order is sign-in order. */
  private readonly sessions = new Map<string, WebSession>();

  constructor(
    private readonly options: {
      /** `host[:port]` values a message may name: the exchange's own origins. */
      domains: readonly string[];
      chainId: number;
      now: () => number;
    },
  ) {}

  /** A fresh single-use nonce, or null when too many sign-ins are pending. */
  issueNonce(): { nonce: string; expiresAt: number } | null {
    const now = this.options.now();
    if (this.nonces.size >= MAX_PENDING_NONCES) this.sweep(now);
    if (this.nonces.size >= MAX_PENDING_NONCES) return null;
    const nonce = randomBytes(16).toString('hex');
    const expiresAt = now + SIWE_NONCE_TTL_MS;
    this.nonces.set(nonce, expiresAt);
    return { nonce, expiresAt };
  }

  /**
   * Checks an EIP-4361 message and its `personal_sign` signature. The nonce is consumed by any attempt
   * that names it, so a failed signature cannot be retried with the same message.
   */
  async signIn(message: string, signature: `0x${string}`): Promise<SignInResult> {
    const now = this.options.now();
    const fail = (code: SignInFailure | 'TOO_MANY_SESSIONS', text: string): SignInResult => ({
      ok: false,
      code,
      message: text,
    });
    if (message.length > MAX_SIWE_MESSAGE_CHARS) return fail('MALFORMED_MESSAGE', 'the message is too long');
    const fields = parseSiweMessage(message);
    if (
      !fields.address ||
      !isAddress(fields.address, { strict: false }) ||
      !fields.domain ||
      !fields.nonce ||
      !fields.uri ||
      fields.version !== '1' ||
      fields.chainId === undefined ||
      !fields.issuedAt
    ) {
      return fail(
        'MALFORMED_MESSAGE',
        'not an EIP-4361 message with address, domain, uri, chain id and nonce',
      );
    }
    const nonceExpiry = this.nonces.get(fields.nonce);
    if (nonceExpiry !== undefined) this.nonces.delete(fields.nonce);
    if (nonceExpiry === undefined || nonceExpiry <= now) {
      return fail('NONCE_UNKNOWN', 'the nonce is unknown, used or expired: sign in again');
    }
    if (!this.options.domains.includes(fields.domain)) {
      return fail('WRONG_DOMAIN', `the message is for ${fields.domain}, not this exchange`);
    }
    if (!sameOriginAsDomain(fields.uri, fields.domain)) {
      return fail('WRONG_DOMAIN', 'the message uri is not on its domain');
    }
    if (fields.chainId !== this.options.chainId) {
      return fail(
        'WRONG_CHAIN',
        `the message is for chain ${fields.chainId}, this exchange is ${this.options.chainId}`,
      );
    }
    const issuedAt = fields.issuedAt.getTime();
    const expires = fields.expirationTime?.getTime();
    const notBefore = fields.notBefore?.getTime();
    if (
      Number.isNaN(issuedAt) ||
      issuedAt > now + SIWE_NONCE_TTL_MS ||
      issuedAt < now - SIWE_NONCE_TTL_MS ||
      (expires !== undefined && (Number.isNaN(expires) || expires <= now)) ||
      (notBefore !== undefined && (Number.isNaN(notBefore) || notBefore > now))
    ) {
      return fail('MESSAGE_EXPIRED', 'the message is outside its validity time');
    }
    let signer: `0x${string}`;
    try {
      signer = await recoverMessageAddress({ message, signature });
    } catch {
      return fail('BAD_SIGNATURE', 'the signature does not recover to an address');
    }
    const address = getAddress(fields.address);
    if (signer !== address) return fail('BAD_SIGNATURE', 'the message was not signed by its address');

    if (this.sessions.size >= MAX_WEB_SESSIONS) this.sweep(now);
    this.endOldestBeyond(address, MAX_SESSIONS_PER_ACCOUNT - 1);
    if (this.sessions.size >= MAX_WEB_SESSIONS) return fail('TOO_MANY_SESSIONS', 'too many sessions open');
    const token = randomBytes(32).toString('hex');
    const session: WebSession = { address, createdAt: now, expiresAt: now + WEB_SESSION_TTL_MS };
    this.sessions.set(sha256(token), session);
    return { ok: true, token, session };
  }

  /** The live session of a token, or null (unknown, ended or expired). */
  authenticate(token: string | undefined): WebSession | null {
    if (!token || token.length > 256) return null;
    const key = sha256(token);
    const session = this.sessions.get(key);
    if (!session) return null;
    if (session.expiresAt <= this.options.now()) {
      this.sessions.delete(key);
      return null;
    }
    return session;
  }

  /** Ends a session (sign-out). */
  end(token: string): boolean {
    return this.sessions.delete(sha256(token));
  }

  get size(): { nonces: number; sessions: number } {
    return { nonces: this.nonces.size, sessions: this.sessions.size };
  }

  private endOldestBeyond(address: `0x${string}`, keep: number): void {
    const own = [...this.sessions].filter(([, s]) => s.address === address);
    for (const [key] of own.slice(0, Math.max(0, own.length - keep))) this.sessions.delete(key);
  }

  private sweep(now: number): void {
    for (const [nonce, expiresAt] of this.nonces) if (expiresAt <= now) this.nonces.delete(nonce);
    for (const [key, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(key);
  }
}

function sameOriginAsDomain(uri: string, domain: string): boolean {
  try {
    return new URL(uri).host === domain;
  } catch {
    return false;
  }
}
