import type pg from 'pg';

/**
 * The advisory lock key of the sequencer lease: 'oddsseq1' read as a big-endian int64. Advisory locks are
 * per database, so one database holds one exchange's lease.
 */
export const SEQUENCER_LEASE_KEY = '8026650882901111089';
/** How often a candidate tries the lease. */
export const LEASE_TRY_MS = 500;
/** How often the leader checks that its lease session still answers. */
const LEASE_CHECK_MS = 1_000;

export type LeaseOptions = {
  /** A connection of the lease's own (`PostgresDatabase.connect()`): the lock lives as long as its session. */
  client: pg.Client;
  /** This node's name, recorded in `sequencer_leader`. */
  node: string;
  clock?: { now(): number };
  /** The lock's key (default SEQUENCER_LEASE_KEY). */
  key?: string;
  tryEveryMs?: number;
  /**
   * Where the winner's epoch is bumped: `sequencer_leader` (the default), or the row of a role of its own
   * in `role_leases` (cluster/role-lease.ts).
   */
  role?: string;
};

/**
 * The sequencer lease: a session advisory lock (`pg_try_advisory_lock`) on a connection of its own, which
 * PostgreSQL releases the moment that session ends (the process killed, the connection cut). A candidate
 * tries it every 500 ms; the winner increments the leader epoch and leads under it.
 *
 * The lease decides liveness, not safety. A leader that loses its session may not know it at once (a
 * partition, a paused process), and may still have appends on their way over its other connections while a
 * successor already holds the lock: two processes then believe they lead. What keeps the journal whole is
 * the epoch: the successor bumps `sequencer_leader.epoch` before it reads the journal's end, every append
 * locks that row and inserts only under its own epoch, so once the bump has committed no append of the
 * former leader can land, and the one in flight during the bump lands before it (the bump waits for its
 * lock) and so before the successor's read of the end.
 */
export class SequencerLease {
  private readonly client: pg.Client;
  private readonly node: string;
  private readonly clock: { now(): number };
  private readonly key: string;
  private readonly tryEveryMs: number;
  private readonly role: string | undefined;
  private held = false;
  private ended: Error | null = null;
  private stopped = false;
  private checkTimer: NodeJS.Timeout | null = null;
  private readonly lostListeners: ((error: Error) => void)[] = [];

  constructor(options: LeaseOptions) {
    this.client = options.client;
    this.node = options.node;
    this.clock = options.clock ?? { now: () => Date.now() };
    this.key = options.key ?? SEQUENCER_LEASE_KEY;
    this.tryEveryMs = options.tryEveryMs ?? LEASE_TRY_MS;
    this.role = options.role;
    this.client.on('error', (error) => this.sessionEnded(error));
    this.client.on('end', () => this.sessionEnded(new Error('the lease connection ended')));
  }

  /** Whether this node holds the lease (as far as it knows). */
  get isHeld(): boolean {
    return this.held && this.ended === null;
  }

  /** Called once when the lease's session dies (only after it was won): this node must stop leading at once. */
  onLost(listener: (error: Error) => void): void {
    this.lostListeners.push(listener);
  }

  /**
   * Tries the lock every `tryEveryMs` until it is won, then increments the leader epoch and resolves with
   * it. Rejects if the session dies first or `release` is called meanwhile, or if `unfit` (asked once the
   * lock is won, before the bump) gives a reason not to lead: then the lock is given back and no epoch taken.
   */
  async acquire(unfit: () => unknown = () => null): Promise<number> {
    while (!this.held) {
      if (this.ended) throw this.ended;
      if (this.stopped) throw new Error('the lease was released');
      const { rows } = await this.client.query<{ won: boolean }>('SELECT pg_try_advisory_lock($1) AS won', [
        this.key,
      ]);
      if (!rows[0]!.won) await new Promise((resolve) => setTimeout(resolve, this.tryEveryMs));
      else {
        const reason = unfit();
        if (reason) {
          await this.client.query('SELECT pg_advisory_unlock($1)', [this.key]);
          throw reason;
        }
        this.held = true;
      }
    }
    const { rows } =
      this.role === undefined
        ? await this.client.query<{ epoch: string }>(
            `UPDATE sequencer_leader SET epoch = epoch + 1, node = $1, since = $2 WHERE id = 1
              RETURNING epoch::text AS epoch`,
            [this.node, this.clock.now()],
          )
        : await this.client.query<{ epoch: string }>(
            `INSERT INTO role_leases (role, epoch, node, since) VALUES ($3, 1, $1, $2)
              ON CONFLICT (role) DO UPDATE SET epoch = role_leases.epoch + 1, node = $1, since = $2
              RETURNING epoch::text AS epoch`,
            [this.node, this.clock.now(), this.role],
          );
    const epoch = Number(rows[0]!.epoch);
    // A session that dies quietly (its server gone) is noticed by the next check, not only by TCP.
    this.checkTimer = setInterval(() => {
      this.client.query('SELECT 1').catch((error: Error) => this.sessionEnded(error));
    }, LEASE_CHECK_MS);
    this.checkTimer.unref();
    return epoch;
  }

  /** This session's backend pid (to terminate it in a test, or to find it in pg_stat_activity). */
  async backendPid(): Promise<number> {
    const { rows } = await this.client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return rows[0]!.pid;
  }

  /** Gives the lease up (a clean stop): the lock is released with the session. */
  async release(): Promise<void> {
    this.stopped = true;
    this.stopChecks();
    if (this.ended) return;
    this.ended = new Error('the lease was released');
    await this.client.end().catch(() => {});
  }

  private sessionEnded(error: Error): void {
    if (this.ended) return;
    this.ended = error;
    this.stopChecks();
    if (!this.held) return;
    for (const listener of this.lostListeners) listener(error);
  }

  private stopChecks(): void {
    if (this.checkTimer) clearInterval(this.checkTimer);
    this.checkTimer = null;
  }
}
