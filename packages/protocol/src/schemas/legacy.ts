/**
 * The legacy v2 API (docs/legacy.md): its bodies, queries and answers. Uints are decimal strings as in v3;
 * a v2 `salt` or `fillSalt` may also be 0x-hex. These routes work until V2_CUTOVER_AT (order routes) and
 * V2_HISTORY_REMOVED_AT (trade history); their failures are `{status: "failure", errorCode}`.
 */
import { type Static, Type } from 'typebox';
import { Address, Bytes32, UintString } from './common.js';

const Signature = Type.String({ pattern: '^0x[0-9a-fA-F]{130}$', description: '65-byte r||s||v signature' });
const SaltString = Type.String({
  pattern: '^(0x[0-9a-fA-F]{1,64}|0|[1-9][0-9]{0,77})$',
  description: 'uint256, decimal or 0x-hex',
});
const UnixSeconds = Type.Integer({ minimum: 0, description: 'unix seconds' });

/** A v2 maker order: nine signed fields (personal_sign of their packed hash) plus `apiExpiry`. */
export const V2SignedOrder = Type.Object({
  marketHash: Bytes32,
  maker: Address,
  totalBetSize: UintString,
  percentageOdds: UintString,
  baseToken: Address,
  expiry: Type.Integer({ description: 'always 2209006800 (signed); the real expiry is apiExpiry' }),
  apiExpiry: UnixSeconds,
  executor: Address,
  salt: SaltString,
  isMakerBettingOutcomeOne: Type.Boolean(),
  signature: Signature,
});
export type V2SignedOrder = Static<typeof V2SignedOrder>;

export const V2PostOrdersBody = Type.Object({
  orders: Type.Array(V2SignedOrder, { minItems: 1, maxItems: 100 }),
});
export type V2PostOrdersBody = Static<typeof V2PostOrdersBody>;

export const V2_ORDER_STATUSES = [
  'OK',
  'INSUFFICIENT_BALANCE',
  'INVALID_MARKET',
  'ORDERS_ALREADY_EXIST',
] as const;

export const V2PostOrdersResult = Type.Object({
  orders: Type.Array(Bytes32, { description: 'the orderHash of each order, in the request’s order' }),
  statuses: Type.Record(Type.String(), Type.String(), {
    description: 'orderHash -> OK, INSUFFICIENT_BALANCE, INVALID_MARKET or ORDERS_ALREADY_EXIST',
  }),
  inserted: Type.Integer({ minimum: 0 }),
});

export const V2FillBody = Type.Object({
  market: Bytes32,
  baseToken: Address,
  isTakerBettingOutcomeOne: Type.Boolean(),
  stakeWei: UintString,
  desiredOdds: UintString,
  oddsSlippage: Type.Integer({ description: '0 to 100 (percent)' }),
  taker: Address,
  takerSig: Signature,
  fillSalt: SaltString,
});
export type V2FillBody = Static<typeof V2FillBody>;

export const V2FillResult = Type.Object({
  fillHash: Bytes32,
  isPartialFill: Type.Boolean(),
  totalFilled: UintString,
  averageOdds: UintString,
});

const CancelCommon = {
  signature: Signature,
  salt: Bytes32,
  maker: Address,
  timestamp: UnixSeconds,
};
export const V2CancelOrdersBody = Type.Object({
  orderHashes: Type.Array(Bytes32, { minItems: 1, maxItems: 1000 }),
  ...CancelCommon,
});
export type V2CancelOrdersBody = Static<typeof V2CancelOrdersBody>;
export const V2CancelEventBody = Type.Object({
  sportXeventId: Type.String({ minLength: 1, maxLength: 64 }),
  ...CancelCommon,
});
export type V2CancelEventBody = Static<typeof V2CancelEventBody>;
export const V2CancelAllBody = Type.Object(CancelCommon);
export type V2CancelAllBody = Static<typeof V2CancelAllBody>;

export const V2_NOT_CANCELLED_REASONS = [
  'not_found_or_inactive',
  'already_pending_cancel',
  'order_locked',
  'update_failed',
] as const;

export const V2CancelResult = Type.Object({
  cancelledCount: Type.Integer({ minimum: 0 }),
  orders: Type.Array(
    Type.Object({
      orderHash: Bytes32,
      pendingFills: Type.Array(Type.Object({ fillHash: Type.String(), pendingFillAmount: UintString })),
    }),
  ),
  notCancelled: Type.Array(Type.Object({ orderHash: Type.String(), reason: Type.String() })),
});

export const V2OrdersQuery = Type.Object({
  marketHashes: Type.Optional(Type.String({ description: 'comma-separated, at most 1,000' })),
  baseToken: Type.Optional(Address),
  maker: Type.Optional(Address),
  sportXeventId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  orderHashes: Type.Optional(Type.String({ description: 'comma-separated' })),
});

export const V2OrderRow = Type.Object({
  orderHash: Bytes32,
  marketHash: Bytes32,
  maker: Address,
  totalBetSize: UintString,
  percentageOdds: UintString,
  fillAmount: UintString,
  pendingFillAmount: UintString,
  baseToken: Address,
  executor: Address,
  salt: Type.String(),
  isMakerBettingOutcomeOne: Type.Boolean(),
  signature: Type.String(),
  expiry: Type.Integer(),
  apiExpiry: Type.Integer(),
  sportXeventId: Type.String(),
  orderStatus: Type.String({ description: 'ACTIVE or PENDING (waiting out a betting delay)' }),
  createdAt: Type.String(),
});

export const V2BestOddsQuery = Type.Object({
  marketHashes: Type.Optional(Type.String({ description: 'comma-separated' })),
  leagueIds: Type.Optional(Type.String({ description: 'comma-separated' })),
  baseToken: Address,
});

const V2BestSide = Type.Union([
  Type.Object({ percentageOdds: UintString, updatedAt: Type.Integer({ description: 'unix ms' }) }),
  Type.Null(),
]);
export const V2BestOddsResult = Type.Object({
  bestOdds: Type.Array(
    Type.Object({ marketHash: Bytes32, baseToken: Address, outcomeOne: V2BestSide, outcomeTwo: V2BestSide }),
  ),
});

export const V2Metadata = Type.Object({
  executorAddress: Address,
  EIP712FillHasher: Address,
  TokenTransferProxy: Address,
  domainVersion: Type.String(),
  chainId: Type.Integer(),
  oddsLadderStepSize: Type.Integer(),
  makerOrderMinimums: Type.Record(Type.String(), UintString),
  takerMinimums: Type.Record(Type.String(), UintString),
  addresses: Type.Record(Type.String(), Type.Record(Type.String(), Address)),
});

export const V2TradesQuery = Type.Object({
  bettor: Type.Optional(Address),
  marketHashes: Type.Optional(Type.String({ description: 'comma-separated' })),
  sportXeventId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  startDate: Type.Optional(UnixSeconds),
  endDate: Type.Optional(UnixSeconds),
  baseToken: Type.Optional(Address),
  maker: Type.Optional(Type.Boolean()),
  settled: Type.Optional(Type.Boolean()),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 300 })),
  paginationKey: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
});

export const V2TradeRow = Type.Object({
  baseToken: Address,
  bettor: Address,
  stake: UintString,
  odds: UintString,
  orderHash: Type.String(),
  marketHash: Bytes32,
  maker: Type.Boolean(),
  bettingOutcomeOne: Type.Boolean(),
  settled: Type.Boolean(),
  betTime: Type.Integer({ description: 'unix seconds' }),
  fillHash: Type.String(),
  tradeStatus: Type.String({ description: 'PENDING, SUCCESS or FAILED' }),
  valid: Type.Boolean(),
  outcome: Type.Integer({ description: '0 while unsettled (or void), 1 or 2' }),
  settleDate: Type.Union([Type.String(), Type.Null()]),
  sportXeventId: Type.String(),
  netReturn: UintString,
  marketHasRefunds: Type.Boolean(),
  isQuarterLineLeg: Type.Boolean(),
  quarterLineParentMarketHash: Type.Optional(Bytes32),
});

export const V2TradesPage = Type.Object({
  trades: Type.Array(V2TradeRow),
  nextKey: Type.Union([Type.String(), Type.Null()]),
  pageSize: Type.Integer(),
  count: Type.Integer(),
});

export const V2TradeOrdersQuery = Type.Object({
  orderHashes: Type.String({ description: 'comma-separated, at most 100' }),
});

export const V2ConsolidatedTradesQuery = Type.Object({
  bettor: Address,
  settled: Type.Optional(Type.Boolean()),
  hideQuarterLineParents: Type.Optional(Type.Boolean()),
  hideQuarterLineLegs: Type.Optional(Type.Boolean()),
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
  perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});

export const V2ConsolidatedTradeRow = Type.Object({
  baseToken: Address,
  bettor: Address,
  tradeStatus: Type.String(),
  totalStake: UintString,
  weightedAverageOdds: UintString,
  marketHash: Bytes32,
  maker: Type.Boolean(),
  settled: Type.Boolean(),
  fillHash: Type.String(),
  sportXeventId: Type.String(),
  bettingOutcome: Type.Integer(),
  outcome: Type.Integer(),
  betTime: Type.Integer(),
  totalReturn: UintString,
  netReturn: Type.String(),
  marketHasRefunds: Type.Boolean(),
  isQuarterLineParent: Type.Boolean(),
  isQuarterLineLeg: Type.Boolean(),
  quarterLineFillHash: Type.Union([Type.String(), Type.Null()]),
});

export const V2ConsolidatedTradesPage = Type.Object({
  trades: Type.Array(V2ConsolidatedTradeRow),
  count: Type.Integer(),
});
