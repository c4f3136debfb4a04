import type { CancelReason, ParlaySpec } from '../engine/index.js';
import type { AppliedEntry, FencedRole, OrderMeta, PlaceOrderInput, SequencerInput } from './inputs.js';

/**
 * What intake asks of the sequencer (issue 35): the one typed API between a stateless intake and the owner of
 * trading state. The sequencer decides each intent against its state when it takes it (in its batch, in
 * order) and journals what it decided as ordinary `SequencerInput`s: replays never see intents. In one
 * process this is a function call; a cluster carries the same types to the leading sequencer.
 */
export type Intent =
  | ParlayIntent
  | OrderIntent
  | CancelIntent
  | ActivateIntent
  | HeartbeatExpiredIntent
  | V2CutoverIntent
  | InputIntent
  | FencedIntent;

/**
 * A signed, checked order. The sequencer refuses a replayed order id or a client order id in use, opens the
 * market in the engine on its first order (its legs first), and either places it, or, in play when it would
 * take liquidity (IOC and FOK always, a GTC crossing the book), admits it to wait `bettingDelayMs`.
 */
export type OrderIntent = {
  kind: 'order';
  order: PlaceOrderInput;
  meta: OrderMeta;
  /** The market as the catalog has it (the legs only when they are active: a resolved leg never reopens). */
  market: { eventId: string; legs: readonly [string, string] | null };
  /** The market's in-play betting delay (0: none). */
  bettingDelayMs: number;
};

/**
 * A parlay request (issue 39): its market opened in the engine with its rules, its legs first where no order
 * has opened them yet (a quarter-line leg with its halves). The engine refuses it when a leg no longer trades
 * (closed or resolved since the request was checked): then nothing is opened but those legs.
 */
export type ParlayIntent = {
  kind: 'parlay';
  marketHash: string;
  eventId: string;
  spec: ParlaySpec;
  /** Each leg as the catalog has it: its event and, for a quarter-line leg, its halves. */
  legs: readonly { marketHash: string; eventId: string; quarterLineLegs: readonly [string, string] | null }[];
};

/** Cancels an account's orders, resting or admitted: by id (the others answer NOT_FOUND), by market, event, or all. */
export type CancelIntent = {
  kind: 'cancel';
  account: string;
  target: { orderIds: readonly string[] } | { marketHash: string } | { eventId: string } | { all: true };
  reason: CancelReason;
};

/** An admitted order's betting delay ran out: it enters the engine if it is still admitted. */
export type ActivateIntent = { kind: 'activate'; orderId: string };

/** An account's heartbeat deadline passed: everything it has open is cancelled, unless it was re-armed meanwhile. */
export type HeartbeatExpiredIntent = { kind: 'heartbeatExpired'; account: string; expiresAt: number };

/**
 * The v3 cut-over came (`at`, unix ms: V2_CUTOVER_AT): every v2 order still open is cancelled with reason
 * `V2_CUTOVER`, in one engine input (those still waiting out a betting delay withdrawn just before it). Nothing
 * happens while the batch's time is before `at`.
 */
export type V2CutoverIntent = { kind: 'v2Cutover'; at: number };

/** A plain input, journaled as it is (deposits, results, heartbeats, the chain's receipts, ...). */
export type InputIntent = { kind: 'input'; input: SequencerInput };

/**
 * Inputs of a node that works under a lease of its own (the chain node's receipts and reversals, ADR
 * 0018), journaled together as they are unless a newer epoch of that lease has been journaled: then none
 * is, and the result says `fenced` (the sender was deposed). The first intent of a new epoch journals a
 * `lease` input before its own (an intent without inputs journals only that): the fence is ordered in the
 * journal, so whatever a former holder sent is either before it or refused.
 *
 * `blocks`: the chain blocks (after, through] whose receipts the inputs journal, their memo. When the
 * journal holds receipts past `after` already (an attempt answered too late, retried, or sent again to a
 * new sequencer leader), none of the inputs is journaled and the result says `journaled`.
 */
export type FencedIntent = {
  kind: 'fenced';
  lease: { role: FencedRole; epoch: number };
  inputs: readonly SequencerInput[];
  blocks?: { after: number; through: number };
};

/** Why the sequencer refused an order without placing or admitting it. */
export type OrderRefusal = 'ORDER_ALREADY_EXISTS' | 'DUPLICATE_CLIENT_ORDER_ID' | 'MARKET_INACTIVE';

/** What an intent did: the journal entries it became (in order), and what intake answers from. */
export type IntentResult = {
  entries: AppliedEntry[];
  /** An order intent: placed now (its events are in the last entry), admitted until `activateAt`, or refused. */
  order?:
    | { status: 'placed' }
    | { status: 'admitted'; activateAt: number }
    | { status: 'refused'; reason: OrderRefusal };
  /** A parlay intent: whether its market was opened. */
  parlay?: { opened: boolean };
  /** A cancel intent: the ids it cancelled (resting orders and admitted ones) and those it did not find. */
  cancel?: { cancelled: string[]; notFound: string[] };
  /** A fenced intent refused: the epoch of the role's lease the journal holds, above the intent's. */
  fenced?: { epoch: number };
  /** A fenced intent's receipts not journaled again: the journal holds the chain's receipts through `through`. */
  journaled?: { through: number };
};
