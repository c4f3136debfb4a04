import { createHash, randomBytes } from 'node:crypto';

/** A browser session ends this long after sign-in, or earlier on sign-out. */
export const WEB_SESSION_TTL_MS = 8 * 60 * 60_000;
/** What the table holds at most; a sign-in past it ends the least recently used session. */
export const MAX_WEB_SESSIONS = 50_000;
/** Sessions per account: a further sign-in ends the account's oldest. */
export const MAX_SESSIONS_PER_ACCOUNT = 5;
/** Sessions opened from one client network (an IPv4 address, an IPv6 /64): a further one ends its oldest. */
export const MAX_SESSIONS_PER_CLIENT = 50;

export type SessionLimits = { total: number; perAccount: number; perClient: number };

export type WebSession = { address: `0x${string}`; createdAt: number; expiresAt: number };

/** A session with the client network it was opened from. */
export type SessionEntry = WebSession & { client: string };

const SWEEP_EVERY_MS = 60_000;

/** What the table (and the store) knows a token by: its sha-256, base64. */
export const sessionTokenHash = (token: string) => createHash('sha256').update(token).digest('base64');

/**
 * The open browser sessions, bounded three ways and never refusing a sign-in: an account keeps its
 * newest `perAccount` sessions, a client network its newest `perClient`, and the table its `total` most
 * recently used. A token is 32 random bytes shown once; the table keeps only its sha-256. Opening or
 * restoring a session returns the token hashes of the sessions it ended to make room (for the store).
 */
export class SessionTable {
  /** sha-256(token) -> session; insertion order is least recently used first. */
  private readonly sessions = new Map<string, SessionEntry>();
  /** Keys of each account's and each client's sessions, oldest sign-in first (short: at most the caps). */
  private readonly byAccount = new Map<string, string[]>();
  private readonly byClient = new Map<string, string[]>();
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(private readonly limits: SessionLimits) {}

  open(
    address: `0x${string}`,
    client: string,
    now: number,
  ): { token: string; tokenHash: string; session: WebSession; ended: string[] } {
    if (now - this.lastSweep >= SWEEP_EVERY_MS) this.sweep(now);
    const token = randomBytes(32).toString('hex');
    const tokenHash = sessionTokenHash(token);
    const session = { address, createdAt: now, expiresAt: now + WEB_SESSION_TTL_MS };
    const ended = this.add(tokenHash, { ...session, client });
    return { token, tokenHash, session, ended };
  }

  /** Takes back a stored session at start (the least recently used of those so far). */
  restore(tokenHash: string, entry: SessionEntry, now: number): string[] {
    return entry.expiresAt > now ? this.add(tokenHash, entry) : [];
  }

  /** The live session of a token (now its most recently used), or null: unknown, ended or expired. */
  find(token: string, now: number): WebSession | null {
    const key = sessionTokenHash(token);
    const entry = this.sessions.get(key);
    if (!entry) return null;
    if (entry.expiresAt <= now) {
      this.remove(key);
      return null;
    }
    this.sessions.delete(key);
    this.sessions.set(key, entry);
    return entry;
  }

  /** Ends a session (sign-out), by its token's hash. */
  end(tokenHash: string): boolean {
    return this.remove(tokenHash);
  }

  get size(): number {
    return this.sessions.size;
  }

  private add(key: string, entry: SessionEntry): string[] {
    const ended: string[] = [];
    const endOldest = (keys: string[] | undefined, keep: number) => {
      while (keys && keys.length > keep) ended.push(this.removed(keys[0]!));
    };
    endOldest(this.byAccount.get(entry.address), this.limits.perAccount - 1);
    endOldest(this.byClient.get(entry.client), this.limits.perClient - 1);
    while (this.sessions.size >= this.limits.total) {
      ended.push(this.removed(this.sessions.keys().next().value as string));
    }
    this.sessions.set(key, entry);
    indexAdd(this.byAccount, entry.address, key);
    indexAdd(this.byClient, entry.client, key);
    return ended;
  }

  private removed(key: string): string {
    this.remove(key);
    return key;
  }

  private remove(key: string): boolean {
    const entry = this.sessions.get(key);
    if (!entry) return false;
    this.sessions.delete(key);
    indexDelete(this.byAccount, entry.address, key);
    indexDelete(this.byClient, entry.client, key);
    return true;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, entry] of this.sessions) if (entry.expiresAt <= now) this.remove(key);
  }
}

function indexAdd(index: Map<string, string[]>, name: string, key: string): void {
  const keys = index.get(name);
  if (keys) keys.push(key);
  else index.set(name, [key]);
}

function indexDelete(index: Map<string, string[]>, name: string, key: string): void {
  const keys = index.get(name);
  if (!keys) return;
  const at = keys.indexOf(key);
  if (at >= 0) keys.splice(at, 1);
  if (keys.length === 0) index.delete(name);
}
