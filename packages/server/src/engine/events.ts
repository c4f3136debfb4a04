import type { EngineCommandType, MarketOutcome, ParlaySpec, TimeInForce } from './commands.js';

/** Stable codes of refused commands. */
export const RejectCode = {
  MARKET_NOT_FOUND: 'MARKET_NOT_FOUND',
  MARKET_CLOSED: 'MARKET_CLOSED',
  MARKET_EXISTS: 'MARKET_EXISTS',
  MARKET_RESOLVED: 'MARKET_RESOLVED',
  DUPLICATE_ORDER_ID: 'DUPLICATE_ORDER_ID',
  INVALID_TICK: 'INVALID_TICK',
  INVALID_SIZE: 'INVALID_SIZE',
  INVALID_EXPIRY: 'INVALID_EXPIRY',
  ORDER_EXPIRED: 'ORDER_EXPIRED',
  INVALID_AMOUNT: 'INVALID_AMOUNT',
  INVALID_OUTCOME: 'INVALID_OUTCOME',
  INSUFFICIENT_BALANCE: 'INSUFFICIENT_BALANCE',
  NOT_FOUND: 'NOT_FOUND',
  /** A quarter-line market's legs are not two distinct open ordinary markets of its event. */
  INVALID_LEGS: 'INVALID_LEGS',
  /** A quarter-line market is settled by its legs' results, not resolved itself. */
  QUARTER_LINE_MARKET: 'QUARTER_LINE_MARKET',
  /** A parlay market's legs are not 2 to 10 open ordinary markets of different events. */
  INVALID_PARLAY: 'INVALID_PARLAY',
  /** A parlay market is settled by its legs' results, not resolved itself. */
  PARLAY_MARKET: 'PARLAY_MARKET',
  /** Until its take window ends, only the requester may bet a parlay (others may only offer: outcome two). */
  PARLAY_REQUESTER_ONLY: 'PARLAY_REQUESTER_ONLY',
  /** The requester's order on its parlay market before the quote window closes (offers are sealed until then). */
  PARLAY_QUOTE_WINDOW_OPEN: 'PARLAY_QUOTE_WINDOW_OPEN',
  /** An offer on a parlay market after its quote window: the requester would never see it. */
  PARLAY_QUOTE_WINDOW_CLOSED: 'PARLAY_QUOTE_WINDOW_CLOSED',
  /** A fill to reverse that the positions do not hold (never: the command carries what the engine did). */
  FILL_NOT_HELD: 'FILL_NOT_HELD',
} as const;
export type RejectCode = (typeof RejectCode)[keyof typeof RejectCode];

/** Why an order left the engine (the order row's `inactiveReason`). */
export const DoneReason = {
  FILLED: 'FILLED',
  USER_REQUESTED: 'USER_REQUESTED',
  EXPIRED: 'EXPIRED',
  NO_LIQUIDITY: 'NO_LIQUIDITY',
  INSUFFICIENT_BALANCE: 'INSUFFICIENT_BALANCE',
  EVENT_LIFECYCLE: 'EVENT_LIFECYCLE',
  HEARTBEAT_TIMEOUT: 'HEARTBEAT_TIMEOUT',
  SYSTEM: 'SYSTEM',
  /** A v2 order still open at the v3 cut-over (V2_CUTOVER_AT). */
  V2_CUTOVER: 'V2_CUTOVER',
} as const;
export type DoneReason = (typeof DoneReason)[keyof typeof DoneReason];

/** The place command was valid; the order is now being matched. */
export interface OrderAcceptedEvent {
  readonly type: 'orderAccepted';
  readonly orderId: string;
  readonly account: string;
  readonly marketHash: string;
  readonly eventId: string;
  readonly isBettingOutcomeOne: boolean;
  readonly tick: number;
  readonly percentageOdds: bigint;
  readonly totalBetSize: bigint;
  readonly expiry: number;
  readonly timeInForce: TimeInForce;
}

export interface OrderRejectedEvent {
  readonly type: 'orderRejected';
  readonly orderId: string;
  readonly account: string;
  readonly marketHash: string;
  readonly code: RejectCode;
}

/**
 * Capital efficiency: a fill raised what `account` is certain to collect in the market whatever the result
 * (its guaranteed receipt: the least of pot one, pot two and its stakes), so the increase, `amount`, moved
 * from its escrow to its available balance at once. `refundedTotal` is what the position has had back so
 * far; its payout at resolution is reduced by it. Follows the `orderMatched` event of `matchId`, the
 * maker's refund before the taker's.
 */
export interface CeRefundEvent {
  readonly type: 'ceRefund';
  readonly account: string;
  readonly marketHash: string;
  readonly eventId: string;
  /** Positive. */
  readonly amount: bigint;
  readonly refundedTotal: bigint;
  readonly matchId: string;
  /** True when `account` was the fill's maker (its resting order `orderId`), false for the taker. */
  readonly maker: boolean;
  readonly orderId: string;
}

/** The order (or its unfilled remainder) now rests on the book. */
export interface OrderRestedEvent {
  readonly type: 'orderRested';
  readonly orderId: string;
  readonly account: string;
  readonly marketHash: string;
  readonly isBettingOutcomeOne: boolean;
  readonly tick: number;
  readonly percentageOdds: bigint;
  readonly totalBetSize: bigint;
  readonly filledSize: bigint;
  readonly remainingSize: bigint;
}

/** A quarter-line fill's part on one leg market: the half of each stake that goes to it (see `splitStake`). */
export interface QuarterLineLeg {
  readonly marketHash: string;
  readonly makerStake: bigint;
  readonly takerStake: bigint;
}

/**
 * One fill. `tick` and `makerOdds` are in the maker frame; `takerOdds` = 10^20 - makerOdds is the
 * taker's price in its own frame. Both stakes moved from available to escrow; the pot is their sum.
 */
export interface OrderMatchedEvent {
  readonly type: 'orderMatched';
  readonly matchId: string;
  readonly marketHash: string;
  readonly eventId: string;
  readonly tick: number;
  readonly makerOdds: bigint;
  readonly takerOdds: bigint;
  readonly makerOrderId: string;
  readonly makerAccount: string;
  readonly makerIsBettingOutcomeOne: boolean;
  readonly makerStake: bigint;
  readonly makerRemainingSize: bigint;
  readonly takerOrderId: string;
  readonly takerAccount: string;
  readonly takerStake: bigint;
  readonly takerRemainingSize: bigint;
  /**
   * On a quarter-line market: the fill's two legs (whole line, then half line). The positions are on the
   * leg markets, each leg's stakes summing to the fill's; `marketHash` stays the quarter-line market.
   */
  readonly legs?: readonly [QuarterLineLeg, QuarterLineLeg];
}

/** The order left the engine for good: filled, cancelled, expired or removed. */
export interface OrderDoneEvent {
  readonly type: 'orderDone';
  readonly orderId: string;
  readonly account: string;
  readonly marketHash: string;
  readonly isBettingOutcomeOne: boolean;
  readonly tick: number;
  readonly reason: DoneReason;
  readonly totalBetSize: bigint;
  readonly filledSize: bigint;
  /** Unfilled stake at the end: 0, dust smaller than one lot (`FILLED`), or the cancelled remainder. */
  readonly remainingSize: bigint;
  /** True when the order was resting on the book before this command. */
  readonly wasResting: boolean;
}

export interface CancelRejectedEvent {
  readonly type: 'cancelRejected';
  readonly orderId: string;
  readonly code: 'NOT_FOUND';
}

/** A market or balance command was refused. */
export interface CommandRejectedEvent {
  readonly type: 'commandRejected';
  readonly command: EngineCommandType;
  readonly code: RejectCode;
}

/** Absolute size of one price level after the command; `version` strictly increases per market. */
export interface LevelChangedEvent {
  readonly type: 'levelChanged';
  readonly marketHash: string;
  readonly isBettingOutcomeOne: boolean;
  readonly tick: number;
  readonly percentageOdds: bigint;
  /** Sum of the resting orders' remaining maker stake. */
  readonly size: bigint;
  readonly orders: number;
  readonly version: number;
}

/** An account's balances after the command. */
export interface BalanceChangedEvent {
  readonly type: 'balanceChanged';
  readonly account: string;
  readonly available: bigint;
  readonly escrowed: bigint;
}

/**
 * Settlement of one account's position in a resolved market: `stake` leaves escrow, `payout` is credited.
 * Both are net of what capital efficiency refunded earlier (the position's last `ceRefund` `refundedTotal`,
 * R): `stake` is its stakes minus R, `payout` the pot it won (or its stakes, on void) minus R.
 */
export interface PayoutEvent {
  readonly type: 'payout';
  readonly account: string;
  readonly marketHash: string;
  readonly eventId: string;
  readonly outcome: MarketOutcome;
  readonly stake: bigint;
  readonly payout: bigint;
  /**
   * A parlay market: the fee the account paid on its profit (already taken from `payout`); on the fee
   * account's own payout (stake 0), the fees it collected from the market. Absent elsewhere.
   */
  readonly fee?: bigint;
}

/**
 * A fill taken back because its settlement failed on the chain (`reverseFill`). Per party: `walletDelta` is
 * what the chain must move for it besides the fill, which never moved there (positive: from escrow to its
 * wallet; negative: from its wallet to escrow), the refunds that counted on the fill taken back or the one
 * it held back given. Followed by each party's `positionAdjusted`s, `debtChanged` for a party left owing,
 * and the usual `balanceChanged`.
 */
export interface FillReversedEvent {
  readonly type: 'fillReversed';
  readonly matchId: string;
  readonly marketHash: string;
  readonly eventId: string;
  readonly parties: readonly { readonly account: string; readonly walletDelta: bigint }[];
}

/** A position as it stands after a change other than a fill or a resolution (a reversed fill). */
export interface PositionAdjustedEvent {
  readonly type: 'positionAdjusted';
  readonly account: string;
  readonly marketHash: string;
  readonly stakeOne: bigint;
  readonly stakeTwo: bigint;
  readonly potOne: bigint;
  readonly potTwo: bigint;
  readonly refunded: bigint;
}

/**
 * What an account owes (`owed`, absolute) changed: a reversed fill took back refunds it had already spent
 * (the part its balance could not cover), or money it received (a credit, a payout: `repaid`) paid some back
 * into escrow before reaching its available balance.
 */
export interface DebtChangedEvent {
  readonly type: 'debtChanged';
  readonly account: string;
  readonly owed: bigint;
  /** What this change paid back (0 when the debt grew). */
  readonly repaid: bigint;
}

export interface MarketOpenedEvent {
  readonly type: 'marketOpened';
  readonly marketHash: string;
  readonly eventId: string;
  /** A quarter-line market's leg markets (whole line, half line). */
  readonly legs?: readonly [string, string];
  /** A parlay market's rules (the `openMarket` command's). */
  readonly parlay?: ParlaySpec;
}

export interface MarketClosedEvent {
  readonly type: 'marketClosed';
  readonly marketHash: string;
  readonly eventId: string;
}

export interface MarketResolvedEvent {
  readonly type: 'marketResolved';
  readonly marketHash: string;
  readonly eventId: string;
  readonly outcome: MarketOutcome;
}

export type EngineEvent =
  | OrderAcceptedEvent
  | OrderRejectedEvent
  | OrderRestedEvent
  | OrderMatchedEvent
  | CeRefundEvent
  | OrderDoneEvent
  | CancelRejectedEvent
  | CommandRejectedEvent
  | LevelChangedEvent
  | BalanceChangedEvent
  | PayoutEvent
  | MarketOpenedEvent
  | MarketClosedEvent
  | MarketResolvedEvent
  | FillReversedEvent
  | PositionAdjustedEvent
  | DebtChangedEvent;

export type EngineEventType = EngineEvent['type'];
