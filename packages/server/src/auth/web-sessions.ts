import { unavailable } from '../errors/app-error.js';
import { clientNetwork } from '../lib/client-network.js';
import type { WebSessionRepository } from '../store/repositories.js';
import { localRevocations, type RevocationBroadcast } from '../store/revocation-broadcast.js';
import {
  MAX_SESSIONS_PER_ACCOUNT,
  MAX_SESSIONS_PER_CLIENT,
  MAX_WEB_SESSIONS,
  type SessionLimits,
  SessionTable,
  sessionTokenHash,
  type WebSession,
} from './session-table.js';
import {
  parseSiweOrigin,
  readSiweMessage,
  recoverMessageSigner,
  type SiweMessageFailure,
} from './siwe-message.js';
import { MAX_CONSUMED_NONCES, SIWE_NONCE_TTL_MS, SiweNonces } from './siwe-nonces.js';

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

export type WebSessionsOptions = {
  /** `scheme://host[:port]` origins a message may be bound to: the exchange's own (SIWE_DOMAINS). */
  origins: readonly string[];
  chainId: number;
  now: () => number;
  /** Where sessions and consumed nonces are kept across restarts. */
  store: WebSessionRepository;
  /** The nonces' HMAC key, kept in the data dir (random when not given). */
  nonceSecret?: Uint8Array;
  /** Bounds (tests make them small). */
  limits?: Partial<SessionLimits & { consumedNonces: number }>;
  /** Whether other nodes share the store (PostgreSQL): a session unknown here is looked up there. */
  shared?: boolean;
  /** How the other nodes hear of the sessions this one ends (none: one process). */
  broadcast?: RevocationBroadcast;
};

/** How often, at most, a sign-in also deletes the expired rows of the store. */
const PRUNE_EVERY_MS = 60_000;

/**
 * Sign-In with Ethereum (EIP-4361) over `personal_sign`, and the browser sessions it opens. Nothing here
 * can be filled so that a newcomer is refused: nonces are stateless (only consumed ones are remembered,
 * boundedly), and the session table ends the least recently used session rather than refuse one.
 * The tables in memory are the fast path (a token is checked there alone) and the bounds; the store
 * behind them is written through (a sign-in, a sign-out, the sessions a sign-in ends) and read back at
 * start, so a restart signs nobody out and lets no used message through again.
 * See docs/adr/0011-sign-in-that-cannot-be-filled.md and docs/adr/0016-persisted-browser-sessions.md.
 */
export class WebSessions {
  private readonly nonces: SiweNonces;
  private readonly sessions: SessionTable;
  private readonly origins;
  private readonly store: WebSessionRepository;
  private readonly broadcast: RevocationBroadcast;
  /** The store's writes, one after another in the order the tables changed. */
  private writes: Promise<unknown> = Promise.resolve();
  private lastPrune: number;
  /** Counts sessions ended by other nodes, so a store lookup under way does not bring one back. */
  private endsSeen = 0;

  /** Opens the sign-in on its store: what it holds that has not expired is taken back. */
  static async open(options: WebSessionsOptions): Promise<WebSessions> {
    const now = options.now();
    await options.store.deleteExpired(now);
    const sessions = new WebSessions(options, now);
    await sessions.restore(now);
    return sessions;
  }

  private constructor(
    private readonly options: WebSessionsOptions,
    now: number,
  ) {
    this.origins = options.origins.map(parseSiweOrigin);
    this.store = options.store;
    this.broadcast = options.broadcast ?? localRevocations;
    this.lastPrune = now;
    this.nonces = new SiweNonces({
      ...(options.nonceSecret ? { secret: options.nonceSecret } : {}),
      ...(options.limits?.consumedNonces ? { maxConsumed: options.limits.consumedNonces } : {}),
    });
    this.sessions = new SessionTable({
      total: options.limits?.total ?? MAX_WEB_SESSIONS,
      perAccount: options.limits?.perAccount ?? MAX_SESSIONS_PER_ACCOUNT,
      perClient: options.limits?.perClient ?? MAX_SESSIONS_PER_CLIENT,
    });
  }

  private async restore(now: number): Promise<void> {
    const consumed = await this.store.consumedNonces(
      now,
      this.options.limits?.consumedNonces ?? MAX_CONSUMED_NONCES,
    );
    this.nonces.restore(consumed.nonces, consumed.watermark, now);
    const stored = await this.store.sessions(now, this.options.limits?.total ?? MAX_WEB_SESSIONS);
    for (const { tokenHash, address, client, createdAt, expiresAt } of stored) {
      const ended = this.sessions.restore(tokenHash, { address, client, createdAt, expiresAt }, now);
      for (const hash of ended) await this.store.deleteSession(hash);
    }
  }

  /** A fresh single-use nonce; stores nothing. */
  issueNonce(): { nonce: string; expiresAt: number } {
    return this.nonces.issue(this.options.now());
  }

  /**
   * Checks an EIP-4361 message and its `personal_sign` signature, and opens a session for its address.
   * The nonce is consumed by the sign-in it opens, not by a refused attempt: knowing someone's nonce
   * does not let a stranger spoil it. `client` is the request's address (one client's sessions are capped).
   * The check and the consumption are one synchronous step, so two attempts with one message cannot both
   * succeed; the sign-in is then written to the store, and a store that fails it makes it a 503.
   */
  async signIn(message: string, signature: string, client: string): Promise<SignInResult> {
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
    const network = clientNetwork(client);
    const { token, tokenHash, session, ended } = this.sessions.open(fields.address, network, now);
    const recorded = this.write(() =>
      this.store.signedIn({
        nonce: { id: nonce.id, stamp: nonce.stamp, expiresAt: nonce.expiresAt },
        session: { tokenHash, client: network, ...session },
        ended,
      }),
    );
    if (now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now;
      // Expired rows are refused on their time anyway; a failed prune is retried a minute later.
      this.write(() => this.store.deleteExpired(now)).catch(() => {});
    }
    let outcome: 'recorded' | 'nonce-used';
    try {
      outcome = await recorded;
    } catch (error) {
      // The nonce stays consumed: refusing it again is always safe.
      this.sessions.end(tokenHash);
      throw unavailable('sign-in could not be recorded: try again', error);
    }
    if (outcome === 'nonce-used') {
      // Another node sharing the store consumed it first: the store decides, not this node's memory.
      this.sessions.end(tokenHash);
      return refuse('NONCE_UNKNOWN', 'the nonce is unknown, used or expired: sign in again');
    }
    // The sessions ended to make room end on every node (best effort: each also ends on its expiry).
    if (ended.length > 0)
      this.broadcast.publish({ kind: 'web-sessions', tokenHashes: ended }).catch(() => {});
    return { type: 'signed-in', token, session };
  }

  /** The live session of a token, or null (unknown, ended or expired). */
  authenticate(token: string | undefined): WebSession | null {
    if (!token || token.length > 256) return null;
    return this.sessions.find(token, this.options.now());
  }

  /**
   * Ends a session (sign-out): in the store first, so that a store that fails it leaves the session
   * working (a 503, and the user can try again) rather than ended here and back after a restart; then on
   * every other node sharing the store.
   */
  async end(token: string): Promise<boolean> {
    const tokenHash = sessionTokenHash(token);
    try {
      await this.write(() => this.store.deleteSession(tokenHash));
    } catch (error) {
      throw unavailable('sign-out could not be recorded: try again', error);
    }
    // Then every other node, before it ends here: one that fails leaves the session working here too,
    // so that signing out again (the store's delete does nothing twice) can tell them.
    try {
      await this.broadcast.publish({ kind: 'web-sessions', tokenHashes: [tokenHash] });
    } catch (error) {
      throw unavailable('sign-out could not reach every node: try again', error);
    }
    return this.sessions.end(tokenHash);
  }

  /** Resolves once the store has every write asked of it so far (before the store closes). */
  async idle(): Promise<void> {
    await this.writes;
  }

  /**
   * The live session of a token, as `authenticate`; when this node does not hold it and the store is
   * shared by several nodes (PostgreSQL), the session another node opened is looked up in the store and
   * held here from then on. A sign-out broadcast meanwhile wins: the lookup then holds nothing.
   */
  async find(token: string | undefined): Promise<WebSession | null> {
    const local = this.authenticate(token);
    if (local || !this.options.shared || !token || token.length > 256) return local;
    const tokenHash = sessionTokenHash(token);
    const endsBefore = this.endsSeen;
    const stored = await this.store.session(tokenHash, this.options.now());
    if (!stored || this.endsSeen !== endsBefore) return null;
    const { address, client, createdAt, expiresAt } = stored;
    this.sessions.restore(tokenHash, { address, client, createdAt, expiresAt }, this.options.now());
    return this.authenticate(token);
  }

  /** Forgets sessions another node ended (signed out, or ended to make room), by token hash. */
  forget(tokenHashes: readonly string[]): void {
    this.endsSeen++;
    for (const tokenHash of tokenHashes) this.sessions.end(tokenHash);
  }

  private write<T>(task: () => Promise<T>): Promise<T> {
    const done = this.writes.then(task);
    this.writes = done.catch(() => {});
    return done;
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
