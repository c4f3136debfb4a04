/** Time in force of an order. */
export const TimeInForce = { GTC: 'GTC', IOC: 'IOC', FOK: 'FOK' } as const;
export type TimeInForce = (typeof TimeInForce)[keyof typeof TimeInForce];

/** Why a caller cancels orders in bulk or by id. */
export const CancelReason = {
  USER_REQUESTED: 'USER_REQUESTED',
  HEARTBEAT_TIMEOUT: 'HEARTBEAT_TIMEOUT',
  EVENT_LIFECYCLE: 'EVENT_LIFECYCLE',
  SYSTEM: 'SYSTEM',
  V2_CUTOVER: 'V2_CUTOVER',
} as const;
export type CancelReason = (typeof CancelReason)[keyof typeof CancelReason];

/** Market outcome: 1 and 2 name the winner, 0 voids the market (every stake is refunded). */
export type MarketOutcome = 0 | 1 | 2;

/** Every command is stamped by the sequencer: a strictly increasing `seq` and the time `ts` in ms. */
interface Stamped {
  readonly seq: number;
  readonly ts: number;
}

export interface PlaceOrderCommand extends Stamped {
  readonly type: 'place';
  readonly orderId: string;
  readonly account: string;
  readonly marketHash: string;
  readonly isBettingOutcomeOne: boolean;
  /** Own frame, x 10^20, on the ladder. For a taker the worst price accepted. */
  readonly percentageOdds: bigint;
  /** Own stake in base-token units. */
  readonly totalBetSize: bigint;
  /** Unix seconds. */
  readonly expiry: number;
  readonly timeInForce: TimeInForce;
}

export interface CancelOrdersCommand extends Stamped {
  readonly type: 'cancel';
  readonly orderIds: readonly string[];
  /** When set, only this account's orders are cancelled; others answer NOT_FOUND. */
  readonly account?: string;
  readonly reason?: CancelReason;
}

export interface CancelMarketCommand extends Stamped {
  readonly type: 'cancelMarket';
  readonly marketHash: string;
  readonly account?: string;
  readonly reason: CancelReason;
}

export interface CancelEventCommand extends Stamped {
  readonly type: 'cancelEvent';
  readonly eventId: string;
  readonly account?: string;
  readonly reason: CancelReason;
}

export interface CancelAccountCommand extends Stamped {
  readonly type: 'cancelAccount';
  readonly account: string;
  readonly reason: CancelReason;
}

/** Removes every resting order whose expiry (seconds) is at or before `ts`. */
export interface ExpireOrdersCommand extends Stamped {
  readonly type: 'expire';
}

export interface OpenMarketCommand extends Stamped {
  readonly type: 'openMarket';
  readonly marketHash: string;
  readonly eventId: string;
  /**
   * A quarter-line market (issue 26): its two leg markets, open markets of the same event, the whole line
   * first and the half line second. Its orders rest and match on its own book; each fill's stakes go half
   * to each leg's positions, and the legs settle it.
   */
  readonly legs?: readonly [string, string];
  /** A parlay market (issue 39): made for one request, settled by its legs' results. */
  readonly parlay?: ParlaySpec;
}

/**
 * What a parlay market is made with (docs/parlays.md): its legs (open markets of different events, each with
 * the outcome the bettor needs), who asked, the windows (unix ms) and the fee its winners pay. Carried on the
 * journaled `openMarket`, so that a replay makes the same market with the same rules, whatever the settings
 * are by then.
 */
export interface ParlaySpec {
  readonly requester: string;
  /** When it was requested (unix ms), the token and the stake the bettor has in mind: shown, not used. */
  readonly requestedAt: number;
  readonly baseToken: string;
  readonly requestSize: string | null;
  /** Until then (unix ms), anyone may offer; from then on, the requester sees the offers. */
  readonly quoteWindowEndsAt: number;
  /** Until then (unix ms), only the requester may take; then the market closes. */
  readonly takeUntil: number;
  /** The fee on a winner's profit, in basis points (0: none). */
  readonly feeBps: number;
  /** The account the fees are credited to. */
  readonly feeAccount: string;
  readonly legs: readonly { readonly marketHash: string; readonly bettingOutcomeOne: boolean }[];
}

/** Cancels the market's orders (`EVENT_LIFECYCLE`) and refuses new ones. */
export interface CloseMarketCommand extends Stamped {
  readonly type: 'closeMarket';
  readonly marketHash: string;
}

export interface ResolveMarketCommand extends Stamped {
  readonly type: 'resolveMarket';
  readonly marketHash: string;
  readonly outcome: MarketOutcome;
}

export interface CreditCommand extends Stamped {
  readonly type: 'credit';
  readonly account: string;
  readonly amount: bigint;
}

export interface DebitCommand extends Stamped {
  readonly type: 'debit';
  readonly account: string;
  readonly amount: bigint;
}

/**
 * A fill whose settlement failed on the chain (issue 33): its parties' stakes go back, its positions are
 * taken out, and what capital efficiency refunded on the strength of it is taken back (or, when the fill held
 * a refund back, given). `fill` is the fill as the engine reported it (its `orderMatched` event and the
 * `ceRefund`s of its match), carried on the command so that a journal replays it alone.
 */
export interface ReverseFillCommand extends Stamped {
  readonly type: 'reverseFill';
  readonly fill: FillToReverse;
}

/** A fill as `reverseFill` takes it back. */
export interface FillToReverse {
  readonly matchId: string;
  readonly marketHash: string;
  readonly makerAccount: string;
  readonly takerAccount: string;
  readonly makerIsBettingOutcomeOne: boolean;
  readonly makerStake: bigint;
  readonly takerStake: bigint;
  /** A quarter-line fill's halves on its legs (whole line, half line), as its `orderMatched` event has them. */
  readonly legs?: readonly {
    readonly marketHash: string;
    readonly makerStake: bigint;
    readonly takerStake: bigint;
  }[];
  /** The capital-efficiency refunds of the match: per account and position market. */
  readonly refunds: readonly {
    readonly account: string;
    readonly marketHash: string;
    readonly amount: bigint;
  }[];
}

export type EngineCommand =
  | PlaceOrderCommand
  | CancelOrdersCommand
  | CancelMarketCommand
  | CancelEventCommand
  | CancelAccountCommand
  | ExpireOrdersCommand
  | OpenMarketCommand
  | CloseMarketCommand
  | ResolveMarketCommand
  | CreditCommand
  | DebitCommand
  | ReverseFillCommand;

export type EngineCommandType = EngineCommand['type'];
