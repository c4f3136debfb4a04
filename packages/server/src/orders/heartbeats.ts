import type { Clock } from '../lib/clock.js';
import type { HeartbeatInput } from '../sequencer/inputs.js';

export const HEARTBEAT_CHECK_INTERVAL_MS = 200;

export type HeartbeatState = { timeoutSeconds: number; expiresAt: number | null };

/**
 * The dead-man switch: an armed account that does not refresh its heartbeat in time has every open
 * order cancelled with `HEARTBEAT_TIMEOUT`. Arming, refreshing and disarming are sequencer inputs, so
 * deadlines are journaled and survive a restart (a deadline that passed while the server was down fires
 * at start); this keeps them in memory to check them.
 */
export class Heartbeats {
  private readonly deadlines = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly clock: Clock,
    /** The armed deadlines as the journal left them (the projections, caught up). */
    armed: Iterable<{ account: string; expiresAt: number }>,
    private readonly submit: (input: HeartbeatInput) => Promise<unknown>,
    private readonly onExpired: (account: `0x${string}`) => Promise<unknown>,
  ) {
    for (const { account, expiresAt } of armed) this.deadlines.set(account, expiresAt);
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
  async set(account: `0x${string}`, timeoutSeconds: number): Promise<HeartbeatState> {
    if (timeoutSeconds === 0) {
      await this.submit({ kind: 'heartbeat', account, timeoutSeconds: 0, expiresAt: null });
      this.deadlines.delete(account);
      return { timeoutSeconds: 0, expiresAt: null };
    }
    const expiresAt = this.clock.now() + timeoutSeconds * 1000;
    await this.submit({ kind: 'heartbeat', account, timeoutSeconds, expiresAt });
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
      // The deadline is disarmed only once the cancel is committed, so a crash in between fires it again at
      // the next start. A re-arm in the meantime journaled a new deadline, which stays.
      void this.onExpired(account as `0x${string}`)
        .then(() =>
          this.submit({
            kind: 'heartbeat',
            account,
            timeoutSeconds: 0,
            expiresAt: null,
            ifExpiresAt: expiresAt,
          }),
        )
        .catch(() => {});
    }
  }
}
