import { hostname } from 'node:os';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type LeasedRole, roleLease } from '../cluster/role-lease.js';
import type { SequencerLease } from '../cluster/sequencer-lease.js';
import type { Config } from '../config/config.js';
import { openPostgres, type PostgresDatabase } from '../store/postgres/postgres-database.js';

export type RoleLog = { info(o: object, msg: string): void; error(o: object, msg: string): void };

export type LeasedRoleState = 'standby' | 'taking-over' | 'leader' | 'deposed' | 'stopped';

/** A projector or chain node as its process and the registry see it. */
export type LeasedRoleNode = {
  readonly role: LeasedRole;
  readonly state: LeasedRoleState;
  /** The epoch of its lease while it holds it; null before. */
  readonly epoch: number | null;
  /** The last journal seq its replica includes (0 while standby: it holds no state). */
  readonly lastSeq: number;
  stop(): Promise<void>;
};

/** What a role does once it holds the lease: its work, and how it stops (at once when `deposed`). */
export type LeasedWork = { lastSeq(): number; stop(o: { deposed: boolean }): Promise<void> };

export type LeasedRoleOptions = {
  log: RoleLog;
  /** The lease was lost (or taking it up failed): the work has stopped; the process must stop. */
  onDeposed: (reason: unknown) => void;
  /** For tests: how often a standby tries the lease (default 500 ms). */
  tryEveryMs?: number;
};

/**
 * A role that runs on one node at a time (the projector, the chain: ADR 0018): a NATS connection and a
 * PostgreSQL pool opened at once, then standby until the role's lease (`role-lease.ts`) is won; then
 * `lead` starts the work under the lease's epoch. The lease's session lost, the work stops at once and
 * `onDeposed` is called: the node never works again (its supervisor starts it anew, as a standby).
 */
export async function startLeasedRole(
  config: Config,
  role: LeasedRole,
  o: LeasedRoleOptions,
  lead: (c: {
    nc: NatsConnection;
    database: PostgresDatabase;
    epoch: number;
    deposed: (reason: unknown) => void;
  }) => Promise<LeasedWork>,
): Promise<LeasedRoleNode> {
  const nc = await connect({ servers: config.natsUrl, timeout: 5_000, maxReconnectAttempts: -1 });
  let database: PostgresDatabase;
  let lease: SequencerLease;
  try {
    database = await openPostgres({ url: config.databaseUrl, poolSize: 4 });
    try {
      lease = roleLease({
        role,
        client: await database.connect(),
        node: `${hostname()}:${process.pid}`,
        ...(o.tryEveryMs ? { tryEveryMs: o.tryEveryMs } : {}),
      });
    } catch (error) {
      await database.close();
      throw error;
    }
  } catch (error) {
    await nc.close();
    throw error;
  }
  let state: LeasedRoleState = 'standby';
  let epoch: number | null = null;
  let work: LeasedWork | null = null;
  let starting: Promise<unknown> = Promise.resolve();
  const deposed = (reason: unknown) => {
    if (state === 'deposed' || state === 'stopped') return;
    state = 'deposed';
    o.log.error({ err: reason, role }, `this ${role} no longer leads`);
    // At once: a deposed node must not go on working beside its successor.
    void starting
      .then(() => work?.stop({ deposed: true }))
      .catch((error: unknown) => o.log.error({ err: error, role }, 'stopping the work failed'))
      .finally(() => o.onDeposed(reason));
  };
  lease.onLost(deposed);
  starting = lease.acquire().then(
    async (won) => {
      if (state !== 'standby') return;
      epoch = won;
      state = 'taking-over';
      o.log.info({ role, state, epoch }, `${role}: lease won`);
      try {
        work = await lead({ nc, database, epoch: won, deposed });
      } catch (error) {
        o.log.error({ err: error, role }, `taking up the ${role} role failed`);
        deposed(error);
        return;
      }
      if (state !== 'taking-over') return;
      state = 'leader';
      o.log.info({ role, state, epoch, lastSeq: work.lastSeq() }, `${role}: leading`);
    },
    (error: unknown) => {
      // Released by a stop while standby: nothing to report.
      if (state === 'standby') deposed(error);
    },
  );
  o.log.info({ role, state: 'standby' }, `${role}: standby, trying the lease`);
  return {
    role,
    get state() {
      return state;
    },
    get epoch() {
      return epoch;
    },
    get lastSeq() {
      return work?.lastSeq() ?? 0;
    },
    async stop() {
      if (state === 'stopped') return;
      const was = state;
      state = 'stopped';
      if (was === 'standby') {
        await lease.release();
        await starting;
      } else {
        // The work stops before the lease goes: a successor starts from what this node finished.
        await starting;
        if (was !== 'deposed') await work?.stop({ deposed: false });
        await lease.release();
      }
      if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
      await database.close();
    },
  };
}
