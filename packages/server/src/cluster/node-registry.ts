import { hostname } from 'node:os';
import type pg from 'pg';
import { type Clock, systemClock } from '../lib/clock.js';

/** What a node reports of itself at each refresh. */
export type NodeStatus = {
  /** `leader`, `standby`, `taking-over` (a sequencer), `serving` (an API node), … */
  state: string;
  /** The leader epoch this node appends under; null when it does not lead. */
  epoch: number | null;
  /** The last journal seq this node's state is at. */
  lastSeq: number;
};

/** A node as `cluster_nodes` holds it, and whether it is alive. */
export type ClusterNode = NodeStatus & {
  node: string;
  roles: readonly string[];
  pid: number;
  /** host:port of its HTTP server (/health, /metrics), or null without one. */
  address: string | null;
  startedAt: number;
  seenAt: number;
  /** Refreshed within `aliveMs`; a node stopped without a goodbye (a SIGKILL) is shown not alive. */
  alive: boolean;
};

/** Anything that lists the nodes of a cluster (the registry; the single process, which is its own). */
export type ClusterNodes = { list(): Promise<readonly ClusterNode[]> };

export type NodeRegistryTimes = {
  /** How often a node refreshes its row (default 1 s). */
  refreshMs?: number;
  /** A node seen within this is alive (default 5 s: five missed refreshes). */
  aliveMs?: number;
  /** A node not seen for this long is removed by whoever lists or refreshes (default 1 min). */
  forgetMs?: number;
};

export type NodeRegistration = NodeRegistryTimes & {
  pool: pg.Pool;
  /** This node's id (default `hostname:pid`, as the sequencer lease names it). */
  node?: string;
  roles: readonly string[];
  /** host:port of its HTTP server, or null. */
  address: string | null;
  /** Read at registration and at each refresh. */
  status: () => NodeStatus;
  /** Stamps `started_at` and `seen_at`, and judges who is alive: the nodes' clocks must agree (NTP). */
  clock?: Clock;
  /** A refresh that failed (retried at the next one). */
  onError?: (error: unknown) => void;
};

const DEFAULTS = { refreshMs: 1_000, aliveMs: 5_000, forgetMs: 60_000 } as const;

/** This process's node id: its host and pid. */
export function thisNodeId(): string {
  return `${hostname()}:${process.pid}`;
}

type Row = {
  node_id: string;
  roles: string[];
  pid: number;
  address: string | null;
  state: string;
  epoch: number | null;
  last_seq: number;
  started_at: number;
  seen_at: number;
};

const FORGET = 'DELETE FROM cluster_nodes WHERE seen_at < $1';

/**
 * The nodes of the cluster, in PostgreSQL (`cluster_nodes`, ADR 0018): each node registers at start,
 * refreshes its row every second with its state and last seq, and deletes it at a clean stop. A node killed
 * without a goodbye leaves its row behind: shown as not alive once it misses its refreshes, removed after
 * `forgetMs` by the next node that lists or refreshes.
 */
export class NodeRegistry implements ClusterNodes {
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private stopped = false;

  private constructor(
    private readonly o: NodeRegistration,
    readonly node: string,
    private readonly startedAt: number,
    private readonly clock: Clock,
    private readonly times: Required<NodeRegistryTimes>,
  ) {}

  /** Registers this node (replacing a row of the same id) and refreshes it every `refreshMs`. */
  static async start(registration: NodeRegistration): Promise<NodeRegistry> {
    const clock = registration.clock ?? systemClock;
    const times = {
      refreshMs: registration.refreshMs ?? DEFAULTS.refreshMs,
      aliveMs: registration.aliveMs ?? DEFAULTS.aliveMs,
      forgetMs: registration.forgetMs ?? DEFAULTS.forgetMs,
    };
    const registry = new NodeRegistry(
      registration,
      registration.node ?? thisNodeId(),
      clock.now(),
      clock,
      times,
    );
    await registry.write();
    registry.timer = setInterval(() => void registry.refresh(), times.refreshMs);
    registry.timer.unref();
    return registry;
  }

  /**
   * Writes this node's row now with its current status (again if a long stall let it be removed) and removes
   * the nodes gone for longer than `forgetMs`. Called by the timer; a refresh still running is not doubled.
   */
  refresh(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.refreshing ??= this.write()
      .catch((error: unknown) => this.o.onError?.(error))
      .finally(() => {
        this.refreshing = null;
      });
    return this.refreshing;
  }

  /** Every registered node, by id, with whether it is alive; the ones gone too long are removed first. */
  async list(): Promise<ClusterNode[]> {
    const now = this.clock.now();
    await this.o.pool.query(FORGET, [now - this.times.forgetMs]);
    const { rows } = await this.o.pool.query<Row>('SELECT * FROM cluster_nodes ORDER BY node_id');
    return rows.map((row) => ({
      node: row.node_id,
      roles: row.roles,
      pid: row.pid,
      address: row.address,
      state: row.state,
      epoch: row.epoch,
      lastSeq: row.last_seq,
      startedAt: row.started_at,
      seenAt: row.seen_at,
      alive: now - row.seen_at <= this.times.aliveMs,
    }));
  }

  /** Stops refreshing and deletes this node's row (a clean stop: the others see it gone at once). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.refreshing;
    await this.o.pool.query('DELETE FROM cluster_nodes WHERE node_id = $1', [this.node]);
  }

  private async write(): Promise<void> {
    const now = this.clock.now();
    const { state, epoch, lastSeq } = this.o.status();
    // One round trip: the forgotten nodes go (never this one), this node's row is written.
    await this.o.pool.query(
      `WITH forgotten AS (DELETE FROM cluster_nodes WHERE seen_at < $9 AND node_id <> $1)
       INSERT INTO cluster_nodes (node_id, roles, pid, address, state, epoch, last_seq, started_at, seen_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $10)
       ON CONFLICT (node_id) DO UPDATE SET roles = $2, pid = $3, address = $4, state = $5, epoch = $6,
         last_seq = $7, started_at = $8, seen_at = $10`,
      [
        this.node,
        this.o.roles,
        process.pid,
        this.o.address,
        state,
        epoch,
        lastSeq,
        this.startedAt,
        now - this.times.forgetMs,
        now,
      ],
    );
  }
}
