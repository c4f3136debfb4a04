import type { WireError } from './wire-codec.js';

/**
 * The closed set of operations the leader serves to API nodes beside the sequencer's intake (ADR 0018,
 * "the leader's services"): what the HTTP routes need of the parts only the leader runs. Each names the
 * shape of its arguments (checked by the leader before it calls anything; the values themselves are
 * checked by the real implementation, which answers the same 4xx as in one process) and how its client
 * may retry:
 * - `retry: 'always'`: harmless twice (a read, an idempotent write, or one the leader joins by request id),
 *   so a timed-out attempt is sent again until the deadline;
 * - `retry: 'no-responders'`: not harmless twice (a mint credits again), so only an attempt nobody received
 *   is sent again; a timeout is a 503 saying it may have taken effect.
 * `slow`: an operation that may take seconds by design (a resolution waits for the market's fills to settle;
 * a reconciliation for a quiet moment; a receipt for its block), given the client's long attempt timeout.
 */
export const LEADER_OPERATIONS = {
  'chain.blockNumber': { args: [], retry: 'always' },
  'chain.getBlock': { args: ['number'], retry: 'always' },
  'chain.getTransaction': { args: ['string'], retry: 'always' },
  'chain.getReceipt': { args: ['string'], retry: 'always' },
  /** `(hash, waitMs)`: the receipt, or null when none came within `waitMs` (capped by the leader). */
  'chain.waitForReceipt': { args: ['string', 'number'], retry: 'always', slow: true },
  'chain.getProxy': { args: ['string'], retry: 'always' },
  'chain.deployProxy': { args: ['string'], retry: 'always' },
  'chain.getSafe': { args: ['string'], retry: 'always' },
  'chain.execSafeTransaction': { args: ['object'], retry: 'no-responders' },
  'chain.balanceOf': { args: ['string'], retry: 'always' },
  'chain.mint': { args: ['string', 'bigint', 'string?'], retry: 'no-responders' },
  'chain.faults': { args: [], retry: 'always' },
  'chain.failNextDeployment': { args: [], retry: 'always' },
  'chain.failNextSettlementItems': { args: ['string', 'number'], retry: 'always' },
  'chain.pauseBlocks': { args: [], retry: 'always' },
  'chain.resumeBlocks': { args: [], retry: 'always' },
  'chain.dropNextBlockAnnouncement': { args: [], retry: 'always' },
  // The coordinator's steps run one at a time in the leader: two API nodes with a coordinator each would
  // race (two confirmations reaching the threshold would submit twice). Prepare and confirm are idempotent.
  'multisig.prepare': { args: ['object'], retry: 'always' },
  'multisig.confirm': { args: ['object'], retry: 'always' },
  'multisig.progress': { args: ['string'], retry: 'always' },
  'trading.resolveMarket': { args: ['string', 'outcome'], retry: 'always', slow: true },
  /** The run's `{at, report}`, or null when no exact comparison came in time. */
  'reconciliation.run': { args: [], retry: 'always', slow: true },
  'reconciliation.last': { args: [], retry: 'always' },
  'settlement.backlog': { args: [], retry: 'always' },
} as const satisfies Record<string, OperationSpec>;

export type LeaderOperation = keyof typeof LEADER_OPERATIONS;

type ArgKind = 'string' | 'number' | 'bigint' | 'object' | 'outcome' | 'string?';
type OperationSpec = { args: readonly ArgKind[]; retry: 'always' | 'no-responders'; slow?: boolean };

export const isLeaderOperation = (op: unknown): op is LeaderOperation =>
  typeof op === 'string' && Object.hasOwn(LEADER_OPERATIONS, op);

/** One call: `id` is the same on every retry (the leader joins a retry to the call under way). */
export type LeaderRequest = { id: string; op: LeaderOperation; args: unknown[] };

export type LeaderReply = { ok: true; result?: unknown } | { ok: false; error: WireError };

/** What is wrong with the arguments' shape, or null when they fit the operation. */
export function argumentsProblem(op: LeaderOperation, args: unknown): string | null {
  const kinds: readonly ArgKind[] = LEADER_OPERATIONS[op].args;
  if (!Array.isArray(args)) return 'the arguments are not a list';
  const required = kinds.filter((k) => !k.endsWith('?')).length;
  if (args.length < required || args.length > kinds.length)
    return `takes ${required === kinds.length ? kinds.length : `${required} to ${kinds.length}`} arguments, not ${args.length}`;
  for (const [i, kind] of kinds.entries()) {
    const value = args[i];
    if (!fits(kind, value))
      return `argument ${i + 1} is not ${kind.endsWith('?') ? `a ${kind.slice(0, -1)} or absent` : `a ${kind}`}`;
  }
  return null;
}

function fits(kind: ArgKind, value: unknown): boolean {
  switch (kind) {
    case 'string?':
      return value === undefined || value === null || typeof value === 'string';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'outcome':
      return value === 0 || value === 1 || value === 2;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    default:
      return typeof value === kind;
  }
}
