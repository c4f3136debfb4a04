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

type Entry = WebSession & { client: string };

const SWEEP_EVERY_MS = 60_000;
const tokenKey = (token: string) => createHash('sha256').update(token).digest('base64');

/**
 * The open browser sessions, bounded three ways and never refusing a sign-in: an account keeps its
 * newest `perAccount` sessions, a client network its newest `perClient`, and the table its `total` most
 * recently used. A token is 32 random bytes shown once; the table keeps only its sha-256.
 */
export class SessionTable {
  /** sha-256(token) -> session; insertion order is least recently used first. */
  private readonly sessions = new Map<string, Entry>();
  /** Keys of each account's and each client's sessions, oldest sign-in first (short: at most the caps). */
  private readonly byAccount = new Map<string, string[]>();
  private readonly byClient = new Map<string, string[]>();
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(private readonly limits: SessionLimits) {}

  open(address: `0x${string}`, client: string, now: number): { token: string; session: WebSession } {
    if (now - this.lastSweep >= SWEEP_EVERY_MS) this.sweep(now);
    this.endOldest(this.byAccount.get(address), this.limits.perAccount - 1);
    this.endOldest(this.byClient.get(client), this.limits.perClient - 1);
    while (this.sessions.size >= this.limits.total) this.remove(this.sessions.keys().next().value as string);
    const token = randomBytes(32).toString('hex');
    const key = tokenKey(token);
    const entry: Entry = { address, client, createdAt: now, expiresAt: now + WEB_SESSION_TTL_MS };
    this.sessions.set(key, entry);
    indexAdd(this.byAccount, address, key);
    indexAdd(this.byClient, client, key);
    return { token, session: { address, createdAt: entry.createdAt, expiresAt: entry.expiresAt } };
  }

  /** The live session of a token (now its most recently used), or null: unknown, ended or expired. */
  find(token: string, now: number): WebSession | null {
    const key = tokenKey(token);
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

  /** Ends a session (sign-out). */
  end(token: string): boolean {
    return this.remove(tokenKey(token));
  }

  get size(): number {
    return this.sessions.size;
  }

  private endOldest(keys: string[] | undefined, keep: number): void {
    while (keys && keys.length > keep) this.remove(keys[0]!);
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
