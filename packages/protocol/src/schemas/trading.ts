import { type Static, type TSchema, Type } from 'typebox';
import { Address, Bytes32, StringEnum, UintString } from './common.js';

export const TIME_IN_FORCE = ['GTC', 'IOC', 'FOK'] as const;
export const CLIENT_ORDER_ID_PATTERN = '^[A-Za-z0-9_-]+$';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const ClientOrderId = Type.String({ minLength: 1, maxLength: 64, pattern: CLIENT_ORDER_ID_PATTERN });

/** One element of `orders` in `POST /orders-v3`. */
export const OrderInput = Type.Object(
  {
    marketHash: Bytes32,
    maker: Address,
    totalBetSize: UintString,
    percentageOdds: UintString,
    salt: Type.String({
      pattern: '^0x[0-9a-fA-F]{1,64}$',
      description: 'hex uint256, usually 32 random bytes',
    }),
    expiry: Type.Integer({ minimum: 0, description: 'unix seconds' }),
    baseToken: Address,
    isMakerBettingOutcomeOne: Type.Boolean(),
    timeInForce: StringEnum(TIME_IN_FORCE),
    orderSignature: Type.String({
      pattern: '^0x[0-9a-fA-F]{130}$',
      description: '65-byte r||s||v signature',
    }),
    clientOrderId: Type.Optional(ClientOrderId),
  },
  { additionalProperties: false },
);
export type OrderInput = Static<typeof OrderInput>;

export const CreateOrdersBody = Type.Object(
  {
    orders: Type.Array(OrderInput, { minItems: 1, maxItems: 10 }),
    waitForOutcome: Type.Optional(Type.Boolean()),
    maxWaitTime: Type.Optional(Type.Integer({ minimum: 0, description: 'ms; capped at 15000' })),
  },
  { additionalProperties: false },
);
export type CreateOrdersBody = Static<typeof CreateOrdersBody>;

export const OUTCOME_STATES = [
  'RESTED',
  'PARTIAL_FILL_RESTED',
  'FULLY_FILLED',
  'PARTIAL_FILL_DONE',
  'CANCELLED',
  'EXPIRED',
  'TIMEOUT',
] as const;

export const OrderOutcome = Type.Object({
  state: StringEnum(OUTCOME_STATES),
  remainingAmount: UintString,
  fillAmount: UintString,
  blendedOdds: UintString,
  matchIds: Type.Array(Type.String()),
  tradeId: Nullable(Type.String()),
  cancelReason: Type.Optional(Type.String()),
});
export type OrderOutcome = Static<typeof OrderOutcome>;

export const CreateOrderResult = Type.Object({
  orderId: Nullable(
    Type.String({
      pattern: '^0x[0-9a-f]{64}$',
      description:
        'the signed order id (EIP-712 digest), FAILED results too; null only for an order that cannot be hashed',
    }),
  ),
  status: Type.Union([Type.Literal('SUBMITTED'), Type.Literal('FAILED')]),
  commandId: Type.Optional(Type.String()),
  clientOrderId: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
  outcome: Type.Optional(OrderOutcome),
});
export type CreateOrderResult = Static<typeof CreateOrderResult>;

export const ORDER_STATUSES = ['PENDING', 'ACTIVE', 'INACTIVE'] as const;

/** An order row of `GET /orders-v3`, `/orders-v3/{orderId}` and `/orders-v3/client/{clientOrderId}`. */
export const OrderRow = Type.Object({
  id: Bytes32,
  clientOrderId: Nullable(Type.String()),
  marketHash: Bytes32,
  userAddress: Address,
  wallet: Address,
  isBettingOutcomeOne: Type.Boolean(),
  percentageOdds: UintString,
  totalBetSize: UintString,
  remainingSize: UintString,
  fillAmount: UintString,
  timeInForce: Type.String(),
  expiry: DateTime,
  status: StringEnum(ORDER_STATUSES),
  inactiveReason: Nullable(Type.String()),
  eventId: Type.String(),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type OrderRow = Static<typeof OrderRow>;

export const CancelOrdersBody = Type.Object(
  {
    orders: Type.Array(Type.Object({ orderId: Bytes32 }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

export type CancelOrdersBody = Static<typeof CancelOrdersBody>;

export const CancelledItem = Type.Object({ orderId: Type.String(), commandId: Type.String() });
export const CancelOrdersResult = Type.Object({
  cancelled: Type.Array(CancelledItem),
  notCancelled: Type.Array(Type.Object({ orderId: Type.String(), reason: Type.String() })),
  unconfirmed: Type.Array(Type.Object({ orderId: Type.String(), reason: Type.String() })),
});
export type CancelOrdersResult = Static<typeof CancelOrdersResult>;
export const CancelSubmittedResult = Type.Object({
  cancelledSubmitted: Type.Array(CancelledItem),
  hasMore: Type.Boolean(),
});
export type CancelSubmittedResult = Static<typeof CancelSubmittedResult>;

export const FILL_STATUSES = ['MATCHED', 'LOCKED', 'SETTLED', 'FAILED'] as const;
const FillStatus = StringEnum(FILL_STATUSES);

export const FillRow = Type.Object({
  id: Type.String(),
  matchId: Type.String(),
  orderId: Bytes32,
  tradeId: Type.String(),
  marketHash: Bytes32,
  isBettingOutcomeOne: Type.Boolean(),
  isMaker: Type.Boolean(),
  fillAmount: UintString,
  fillOdds: UintString,
  status: FillStatus,
  /** Capital efficiency: what this fill gave back at once to the row's owner ("0" for none). */
  ceRefundAmount: UintString,
  /** A quarter-line bet's fill on one of its leg markets (`marketHash` is the leg's). */
  isQuarterLineLeg: Type.Boolean(),
  /** The quarter-line market the bet was placed on, for a leg; absent otherwise (the spec's rows). */
  quarterLineParentMarketHash: Type.Optional(Bytes32),
  createdAt: DateTime,
});
export type FillRow = Static<typeof FillRow>;

export const TradeRow = Type.Object({
  tradeId: Type.String(),
  orderId: Bytes32,
  marketHash: Bytes32,
  eventId: Type.String(),
  isBettingOutcomeOne: Type.Boolean(),
  isMaker: Type.Boolean(),
  stake: UintString,
  odds: UintString,
  potentialPayout: UintString,
  status: FillStatus,
  settlement: Nullable(Type.Object({ outcome: Type.Integer(), payout: UintString })),
  /** Whether any bettor of the trade's market has had a capital-efficiency refund. */
  marketHasRefunds: Type.Boolean(),
  /** A quarter-line bet's trade on one of its leg markets (`marketHash` is the leg's). */
  isQuarterLineLeg: Type.Boolean(),
  /** The quarter-line market the bet was placed on, for a leg; absent otherwise (the spec's rows). */
  quarterLineParentMarketHash: Type.Optional(Bytes32),
  /** A trade on a parlay market (docs/parlays.md). */
  isParlay: Type.Boolean(),
  /**
   * The parlay fee the trade paid at settlement, in base units: a share of the winner's profit
   * (`PARLAY_FEE_BPS`). "0" until settled, on a losing or void trade, and on every trade that is not a
   * parlay's. `settlement.payout` is already net of it.
   */
  fee: UintString,
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type TradeRow = Static<typeof TradeRow>;

/** A signed integer as a decimal string (a net return can be a loss). */
const IntString = Type.String({
  pattern: '^(0|-?[1-9][0-9]{0,77})$',
  description: 'signed integer as a decimal string',
});

/**
 * A row of `GET /trades-v3/consolidated`: an ordinary trade as it is, a quarter-line bet's trade on one of
 * its legs, or the synthetic parent of a quarter-line bet (its two legs together, on the quarter-line
 * market). Count either the parents or the legs, never both.
 */
export const ConsolidatedTradeRow = Type.Object({
  ...TradeRow.properties,
  /**
   * The synthetic parent of a quarter-line bet: `marketHash` is the quarter-line market, `tradeId` the
   * order's ordinary trade id, amounts the sums of its legs; SETTLED once both legs are (`settlement`
   * null until then: then the half-line leg's outcome, which never pushes, and the legs' payouts summed).
   */
  isQuarterLineParent: Type.Boolean(),
  /** On a leg: its parent's `tradeId`; null on a parent and on an ordinary trade. */
  quarterLineFillHash: Nullable(Type.String()),
  /** The stake (a parent: both legs'). */
  totalStake: UintString,
  /** What the bet returns if it wins: its pot (a parent: both legs'). */
  totalReturn: UintString,
  /**
   * Unsettled: `totalReturn - totalStake`, the profit if it wins. Settled: the settlement's payout (all the
   * bet returned, capital-efficiency refunds included) minus `totalStake`, negative for a loss.
   */
  netReturn: IntString,
});
export type ConsolidatedTradeRow = Static<typeof ConsolidatedTradeRow>;

/** One capital-efficiency refund: a fill raised what `bettor` is certain to collect in the market. */
export const RefundEvent = Type.Object({
  /** Whether the bettor was the fill's maker. */
  maker: Type.Boolean(),
  amount: UintString,
  bettor: Address,
  baseToken: Address,
  createdAt: DateTime,
  marketHash: Bytes32,
  /** The id of the bettor's fill that caused the refund (`FillRow.id`). */
  fillOrderHash: Type.String(),
});
export type RefundEvent = Static<typeof RefundEvent>;

/**
 * A bettor's refunds in one market (`GET /trades/portfolio/refunds`; one element per message on
 * `ce_refunds:{bettor}`): `totalRefunded` is all the position has had back so far.
 */
export const PortfolioRefund = Type.Object({
  marketHash: Bytes32,
  baseToken: Address,
  totalRefunded: UintString,
  events: Type.Array(RefundEvent),
});
export type PortfolioRefund = Static<typeof PortfolioRefund>;

/** Refund events in one answer of `GET /trades/portfolio/refunds` at most: `perPage` x `eventsPerPage`. */
export const MAX_REFUND_EVENTS_PER_ANSWER = 5_000;
/** A market's refund events per answer when `eventsPerPage` is not given (fewer if 5,000 would not hold them). */
export const DEFAULT_REFUND_EVENTS_PER_MARKET = 50;

/**
 * The query of `GET /trades/portfolio/refunds` (legacy; `page` from 0, over markets; `eventsPage` from 0,
 * over each market's events). `bettor` must be the account of the API key.
 */
export const PortfolioRefundsQuery = Type.Object({
  bettor: Address,
  marketHash: Type.Optional(Bytes32),
  baseToken: Type.Optional(Address),
  fillOrderHash: Type.Optional(
    Type.String({ minLength: 1, maxLength: 80, description: 'the refunded bettor’s fill id (FillRow.id)' }),
  ),
  maker: Type.Optional(
    Type.Boolean({ description: 'true: refunds of the bettor’s maker fills, false: of its taker fills' }),
  ),
  sortAsc: Type.Optional(Type.Boolean({ description: 'default false: the latest refunded market first' })),
  page: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'page number from 0; default 0' }),
  ),
  perPage: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 500, description: 'markets per page; default 100' }),
  ),
  eventsPage: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      description: 'page of each market’s matching events, from 0; default 0',
    }),
  ),
  eventsPerPage: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 500,
      description:
        'events per market; default 50, or fewer so that perPage x eventsPerPage stays within 5,000',
    }),
  ),
});
export type PortfolioRefundsQuery = Static<typeof PortfolioRefundsQuery>;

/** One result of `GET /trades/portfolio/refunds`: a market's refunds, one page of its events. */
export const PortfolioRefundResult = Type.Object({
  ...PortfolioRefund.properties,
  /** How many of the market's refund events match the filters (`events` is one page of them). */
  eventCount: Type.Integer({ minimum: 0 }),
});
export type PortfolioRefundResult = Static<typeof PortfolioRefundResult>;

const PositionSide = Type.Object({
  stake: UintString,
  /** What the side collects if its outcome wins: the pots of its fills. */
  potentialPayout: UintString,
});

/** `GET /positions-v3`: the bettor's open position in one market (until the market is resolved). */
export const PositionRow = Type.Object({
  marketHash: Bytes32,
  eventId: Type.String(),
  outcomeOne: PositionSide,
  outcomeTwo: PositionSide,
  /** The least the position collects over outcome one, outcome two and void (every stake back). */
  guaranteedReceipt: UintString,
  /** What capital efficiency has given back so far (the payout at resolution is reduced by it). */
  refunded: UintString,
  /** The most the position can still lose: its stakes minus its guaranteed receipt. */
  maxLoss: UintString,
});
export type PositionRow = Static<typeof PositionRow>;

/** A taker bet on the public tape: no identities. */
export const PublicTradeRow = Type.Object({
  tradeId: Type.String(),
  marketHash: Bytes32,
  eventId: Type.String(),
  isBettingOutcomeOne: Type.Boolean(),
  totalStake: UintString,
  totalReturn: UintString,
  weightedAverageOdds: UintString,
  betTime: DateTime,
  /** A bet on a parlay market (docs/parlays.md). */
  isParlay: Type.Boolean(),
});
export type PublicTradeRow = Static<typeof PublicTradeRow>;

export const BookLevel = Type.Object({ percentageOdds: UintString, size: UintString });
export type BookLevel = Static<typeof BookLevel>;
export const BookSnapshot = Type.Object({
  marketHash: Bytes32,
  eventId: Type.String(),
  outcomeOne: Type.Array(BookLevel),
  outcomeTwo: Type.Array(BookLevel),
  version: Type.String({ description: 'strictly increasing, zero-padded' }),
});
export type BookSnapshot = Static<typeof BookSnapshot>;

export const BestOdds = Type.Object({
  marketHash: Bytes32,
  outcomeOne: Nullable(BookLevel),
  outcomeTwo: Nullable(BookLevel),
});
export type BestOdds = Static<typeof BestOdds>;

export const BalanceRow = Type.Object({
  userAddress: Address,
  wallet: Address,
  tokenAddress: Address,
  escrowAddress: Address,
  availableAmount: UintString,
  escrowedAmount: UintString,
  /**
   * What the account's resting orders promise: the sum of their remaining maker stakes. Part of
   * `availableAmount` (never more: an order beyond it is refused, and the newest go when the balance falls).
   */
  exposureAmount: UintString,
  /**
   * What the account owes: refunds a fill gave it, which it spent, taken back because the fill's settlement
   * failed on the chain (docs/wallets.md, "Settlement"). Paid back from what it receives next; 0 but after a
   * failure. While it owes, `availableAmount` is 0.
   */
  owedAmount: UintString,
});
export type BalanceRow = Static<typeof BalanceRow>;

export const HeartbeatBody = Type.Object(
  { timeoutSeconds: Type.Integer({ minimum: 0, maximum: 3600 }) },
  { additionalProperties: false },
);
export type HeartbeatBody = Static<typeof HeartbeatBody>;
export const HeartbeatResult = Type.Object({ timeoutSeconds: Type.Integer(), expiresAt: Nullable(DateTime) });
export type HeartbeatResult = Static<typeof HeartbeatResult>;
