import type { NodeStatus } from './node-registry.js';

/** What one role of a process reports: a sequencer's or a leased role's state, `serving` for api and realtime. */
export type RoleStatus = {
  role: string;
  /** `starting`, `standby`, `taking-over`, `leader`, `deposed`, `stopped`; `serving` (api, realtime). */
  state: string;
  epoch: number | null;
  lastSeq: number;
};

/** States that end the process: whichever role is in one, the node is. */
const ENDING = ['deposed', 'stopped'];

/**
 * One status for the roles of a process (its row in `cluster_nodes`, its /health): the state its leading
 * roles share (`leader`, `standby`, ...: a sequencer and the projector and chain it carries are one), or,
 * when roles under leases of their own differ, each one's (`chain:standby,projector:leader`); `serving` when
 * it runs only api and realtime; `deposed` or `stopped` as soon as one role is. The epoch is the
 * sequencer's, else the first role's that has one; the seq the furthest of its roles'.
 */
export function nodeStatusOf(roles: readonly RoleStatus[]): NodeStatus {
  const sequencer = roles.find((r) => r.role === 'sequencer');
  const epoch = sequencer ? sequencer.epoch : (roles.find((r) => r.epoch !== null)?.epoch ?? null);
  const lastSeq = Math.max(0, ...roles.map((r) => r.lastSeq));
  const ending = ENDING.find((state) => roles.some((r) => r.state === state));
  if (ending) return { state: ending, epoch, lastSeq };
  const leading = roles.filter((r) => r.state !== 'serving');
  const states = new Set(leading.map((r) => r.state));
  const state =
    leading.length === 0
      ? 'serving'
      : states.size === 1
        ? leading[0]!.state
        : [...leading]
            .sort((a, b) => a.role.localeCompare(b.role))
            .map((r) => `${r.role}:${r.state}`)
            .join(',');
  return { state, epoch, lastSeq };
}
