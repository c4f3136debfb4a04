import type { SettlementItem, SettlementItemKind, SettlementItemStatus } from '../chain/settlement-types.js';
import type { EngineCommand, EngineEvent, PlaceOrderCommand } from '../engine/index.js';

type Unstamped<T> = T extends unknown ? Omit<T, 'seq' | 'ts'> : never;

/** An engine command before the sequencer gives it its `seq` and `ts`. */
export type EngineCommandInput = Unstamped<EngineCommand>;
export type PlaceOrderInput = Unstamped<PlaceOrderCommand>;

/** What an order carries besides the engine's fields: kept on its row, never used for matching. */
export type OrderMeta = {
  commandId: string;
  eventId: string;
  clientOrderId: string | null;
  salt: string;
  baseToken: string;
  signature: string;
  /** 'v2': placed through the legacy API (`legacy/`); cancelled at V2_CUTOVER_AT. Absent for v3 orders. */
  api?: 'v2';
  /**
   * A v2 fill's slippage rule (`POST /orders/fill/v2`): the taker's stake-weighted implied probability must
   * stay at or below `desiredOdds` x 100 / (100 - `oddsSlippage`). Applied when the order meets the book
   * (after its betting delay): the order placed in the engine carries the stake and limit that keep it.
   */
  averageOddsLimit?: { desiredOdds: string; oddsSlippage: number };
};

/**
 * What the sequencer orders and journals:
 * - `engine`: a command applied to the engine (a `place` carries its order's meta);
 * - `admit`: an order accepted now that enters the engine later (in-play betting delay). It is durable
 *   (an order row in PENDING) from this point, so the acknowledgement never outruns the journal.
 * - `withdraw`: admitted orders cancelled before they reached the engine.
 * - `heartbeat`: an account's cancel-all deadline armed, refreshed or disarmed.
 * - `settlement`: the chain's receipts of settlement transactions in a block (`settlement/`): what landed
 *   locks its fills and pays its payouts in the projections; a failed fill comes with a `reverseFill` engine
 *   input right after it, in the same submission.
 * - `escrows`: the receipts of the per-account escrows of data dirs from before settlement transactions
 *   (issue 33): a landed escrow locks its fills and trades, a failed one fails them; no engine state changes.
 * - `lease`: a leased role (the chain node, ADR 0018) sends under a new epoch: from here on the sequencer
 *   refuses what that role sends under an older one (`FencedIntent`). Nothing else changes.
 */
export type SequencerInput =
  | { kind: 'engine'; command: EngineCommandInput; meta?: OrderMeta }
  | { kind: 'admit'; order: PlaceOrderInput; meta: OrderMeta; activateAt: number }
  | { kind: 'withdraw'; orderIds: readonly string[]; reason: string }
  | HeartbeatInput
  | SettlementInput
  | { kind: 'escrows'; block: number | null; escrows: readonly EscrowReceipt[] }
  | LeaseInput;

/** The roles whose inputs the sequencer fences by their lease's epoch. */
export type FencedRole = 'chain';

export type LeaseInput = { kind: 'lease'; role: FencedRole; epoch: number };

/** The receipts of the settlement transactions mined in one block, in chain order. */
export type SettlementInput = {
  kind: 'settlement';
  block: number;
  txs: readonly SettledTx[];
};

/**
 * One settlement transaction's receipt as the projections need it. Every item of its entries
 * (`firstSeq..lastSeq`; an empty range for a transaction of retries only) landed but `notLanded`; of the
 * items it retried (earlier ones that had not landed), `landed` did (or had already: duplicates).
 */
export type SettledTx = {
  firstSeq: number;
  lastSeq: number;
  /** Items that moved nothing: failed or skipped, with their content (to submit again, fills aside). */
  notLanded: readonly NotLandedItem[];
  landed: readonly { id: string; kind: SettlementItemKind }[];
};

export type NotLandedItem = SettlementItem & {
  status: Exclude<SettlementItemStatus, 'success' | 'duplicate'>;
  error: string | null;
};

/**
 * The dead-man switch of an account armed (`expiresAt`, unix ms) or disarmed (null). A fired deadline is
 * disarmed with `ifExpiresAt`: only if it is still the one that fired (a re-arm meanwhile stays).
 */
export type HeartbeatInput = {
  kind: 'heartbeat';
  account: string;
  timeoutSeconds: number;
  expiresAt: number | null;
  ifExpiresAt?: number;
};

/**
 * The fills one escrow covers: one account's fills with seq in [firstSeq, lastSeq] (a flush's fills of
 * that account), or `fillId`, the one-escrow-per-fill memo of older data dirs.
 */
export type EscrowFills = { account: string; firstSeq: number; lastSeq: number } | { fillId: string };

/** An escrow's receipt: whether it landed (`ok`) or failed (on chain, or refused by it). */
export type EscrowReceipt = EscrowFills & { ok: boolean };

/** One journaled input with what it did. */
export type AppliedEntry = {
  readonly seq: number;
  readonly ts: number;
  readonly input: SequencerInput;
  readonly events: readonly EngineEvent[];
};
