import type { Database } from 'better-sqlite3';
import type { Clock } from '../lib/clock.js';

export const HEARTBEAT_CHECK_INTERVAL_MS = 200;

export type HeartbeatState = { timeoutSeconds: number; expiresAt: number | null };

/**
 * The dead-man switch: an armed account that does not refresh its heartbeat in time has every open
 * order cancelled with `HEARTBEAT_TIMEOUT`. Deadlines are persisted, so they survive a restart (a
 * deadline that passed while the server was down fires at start).
 */
export class Heartbeats {
  private readonly deadlines = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private readonly upsert;
  private readonly remove;
  private readonly removeFired;

  constructor(
    db: Database,
    private readonly clock: Clock,
    private readonly onExpired: (account: `0x${string}`) => Promise<unknown>,
  ) {
    this.upsert = db.prepare(
      `INSERT INTO heartbeats (account, timeout_seconds, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (account) DO UPDATE SET timeout_seconds = excluded.timeout_seconds, expires_at = excluded.expires_at`,
    );
    this.remove = db.prepare('DELETE FROM heartbeats WHERE account = ?');
    this.removeFired = db.prepare('DELETE FROM heartbeats WHERE account = ? AND expires_at = ?');
    for (const row of db.prepare('SELECT account, expires_at FROM heartbeats').all() as {
      account: string;
      expires_at: number;
    }[]) {
      this.deadlines.set(row.account, row.expires_at);
    }
  }

  start(): void {
    this.timer ??= setInterval(() => this.check(), HEARTBEAT_CHECK_INTERVAL_MS);
    this.timer.unref();
    this.check();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Arms (or refreshes) the account's timer; 0 disarms it without cancelling anything. */
  set(account: `0x${string}`, timeoutSeconds: number): HeartbeatState {
    if (timeoutSeconds === 0) {
      this.remove.run(account);
      this.deadlines.delete(account);
      return { timeoutSeconds: 0, expiresAt: null };
    }
    const expiresAt = this.clock.now() + timeoutSeconds * 1000;
    this.upsert.run(account, timeoutSeconds, expiresAt);
    this.deadlines.set(account, expiresAt);
    return { timeoutSeconds, expiresAt };
  }

  get armed(): number {
    return this.deadlines.size;
  }

  private check(): void {
    const now = this.clock.now();
    for (const [account, expiresAt] of this.deadlines) {
      if (expiresAt > now) continue;
      this.deadlines.delete(account);
      // The persisted deadline goes only once the cancel is committed, so a crash in between fires it
      // again at the next start. A re-arm in the meantime wrote a new deadline, which stays.
      void this.onExpired(account as `0x${string}`).then(
        () => this.removeFired.run(account, expiresAt),
        () => {},
      );
    }
  }
}
