import { clientNetwork } from '../lib/client-network.js';
import {
  MAX_SESSIONS_PER_ACCOUNT,
  MAX_SESSIONS_PER_CLIENT,
  MAX_WEB_SESSIONS,
  type SessionLimits,
  SessionTable,
  type WebSession,
} from './session-table.js';
import {
  parseSiweOrigin,
  readSiweMessage,
  recoverMessageSigner,
  type SiweMessageFailure,
} from './siwe-message.js';
import { SIWE_NONCE_TTL_MS, SiweNonces } from './siwe-nonces.js';

export {
  MAX_SESSIONS_PER_ACCOUNT,
  MAX_SESSIONS_PER_CLIENT,
  MAX_WEB_SESSIONS,
  WEB_SESSION_TTL_MS,
  type WebSession,
} from './session-table.js';
export { MAX_SIWE_MESSAGE_CHARS } from './siwe-message.js';
export { SIWE_NONCE_TTL_MS } from './siwe-nonces.js';

export type SignInFailure =
  | SiweMessageFailure
  | 'NONCE_UNKNOWN'
  | 'MESSAGE_EXPIRED'
  | 'BAD_SIGNATURE'
  | 'MALLEABLE_SIGNATURE';

export type SignInResult =
  | { type: 'signed-in'; token: string; session: WebSession }
  | { type: 'refused'; code: SignInFailure; message: string };

/**
 * Sign-In with Ethereum (EIP-4361) over `personal_sign`, and the browser sessions it opens. Nothing here
 * can be filled so that a newcomer is refused: nonces are stateless (only consumed ones are remembered,
 * boundedly), and the session table ends the least recently used session rather than refuse one.
 * Everything is in memory: a restart signs every browser out, which costs a signature, and API keys (the
 * durable credential) are unaffected. See docs/adr/0011-sign-in-that-cannot-be-filled.md.
 */
export class WebSessions {
  private readonly nonces: SiweNonces;
  private readonly sessions: SessionTable;
  private readonly origins;

  constructor(
    private readonly options: {
      /** `scheme://host[:port]` origins a message may be bound to: the exchange's own (SIWE_DOMAINS). */
      origins: readonly string[];
      chainId: number;
      now: () => number;
      /** Bounds (tests make them small). */
      limits?: Partial<SessionLimits & { consumedNonces: number }>;
    },
  ) {
    this.origins = options.origins.map(parseSiweOrigin);
    this.nonces = new SiweNonces(
      options.limits?.consumedNonces ? { maxConsumed: options.limits.consumedNonces } : {},
    );
    this.sessions = new SessionTable({
      total: options.limits?.total ?? MAX_WEB_SESSIONS,
      perAccount: options.limits?.perAccount ?? MAX_SESSIONS_PER_ACCOUNT,
      perClient: options.limits?.perClient ?? MAX_SESSIONS_PER_CLIENT,
    });
  }

  /** A fresh single-use nonce; stores nothing. */
  issueNonce(): { nonce: string; expiresAt: number } {
    return this.nonces.issue(this.options.now());
  }

  /**
   * Checks an EIP-4361 message and its `personal_sign` signature, and opens a session for its address.
   * The nonce is consumed by the sign-in it opens, not by a refused attempt: knowing someone's nonce
   * does not let a stranger spoil it. `client` is the request's address (one client's sessions are capped).
   */
  signIn(message: string, signature: string, client: string): SignInResult {
    const now = this.options.now();
    const refuse = (code: SignInFailure, text: string): SignInResult => ({
      type: 'refused',
      code,
      message: text,
    });
    const read = readSiweMessage(message, { origins: this.origins, chainId: this.options.chainId });
    if (read.type === 'refused') return refuse(read.code, read.message);
    const { fields } = read;
    const nonce = this.nonces.check(fields.nonce, now);
    if (nonce.type === 'refused') {
      return refuse('NONCE_UNKNOWN', 'the nonce is unknown, used or expired: sign in again');
    }
    const issuedAt = fields.issuedAt.getTime();
    const expires = fields.expirationTime?.getTime();
    const notBefore = fields.notBefore?.getTime();
    if (
      issuedAt > now + SIWE_NONCE_TTL_MS ||
      issuedAt < now - SIWE_NONCE_TTL_MS ||
      (expires !== undefined && expires <= now) ||
      (notBefore !== undefined && notBefore > now)
    ) {
      return refuse('MESSAGE_EXPIRED', 'the message is outside its validity time');
    }
    const recovered = recoverMessageSigner(message, signature);
    if (recovered.type === 'refused') return refuse(recovered.code, recovered.message);
    if (recovered.signer !== fields.address) {
      return refuse('BAD_SIGNATURE', 'the message was not signed by its address');
    }
    this.nonces.consume(nonce, now);
    const { token, session } = this.sessions.open(fields.address, clientNetwork(client), now);
    return { type: 'signed-in', token, session };
  }

  /** The live session of a token, or null (unknown, ended or expired). */
  authenticate(token: string | undefined): WebSession | null {
    if (!token || token.length > 256) return null;
    return this.sessions.find(token, this.options.now());
  }

  /** Ends a session (sign-out). */
  end(token: string): boolean {
    return this.sessions.end(token);
  }

  get size(): { consumedNonces: number; nonceWatermark: number; sessions: number } {
    const nonces = this.nonces.size;
    return {
      consumedNonces: nonces.consumed,
      nonceWatermark: nonces.watermark,
      sessions: this.sessions.size,
    };
  }
}
