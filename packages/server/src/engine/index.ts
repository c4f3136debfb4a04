/**
 * The matching engine: a pure, deterministic library. `new Engine({ ladderSize })`, then
 * `engine.apply(command)` returns the events of that command; read helpers describe the current state.
 * Rules: docs/matching.md.
 */
export {
  type CancelAccountCommand,
  type CancelEventCommand,
  type CancelMarketCommand,
  type CancelOrdersCommand,
  CancelReason,
  type CloseMarketCommand,
  type CreditCommand,
  type DebitCommand,
  type EngineCommand,
  type EngineCommandType,
  type ExpireOrdersCommand,
  type FillToReverse,
  type MarketOutcome,
  type OpenMarketCommand,
  type ParlaySpec,
  type PlaceOrderCommand,
  type ResolveMarketCommand,
  type ReverseFillCommand,
  TimeInForce,
} from './commands.js';
export { Engine, type EngineOptions, type EngineRuleOptions } from './engine.js';
export {
  type BalanceChangedEvent,
  type CancelRejectedEvent,
  type CeRefundEvent,
  type CommandRejectedEvent,
  type DebtChangedEvent,
  DoneReason,
  type EngineEvent,
  type EngineEventType,
  type FillReversedEvent,
  type LevelChangedEvent,
  type MarketClosedEvent,
  type MarketOpenedEvent,
  type MarketResolvedEvent,
  type OrderAcceptedEvent,
  type OrderDoneEvent,
  type OrderMatchedEvent,
  type OrderRejectedEvent,
  type OrderRestedEvent,
  type PayoutEvent,
  type PositionAdjustedEvent,
  type QuarterLineLeg,
  RejectCode,
} from './events.js';
export { fillsOf } from './fills-of.js';
export {
  createLadder,
  DEFAULT_LADDER_SIZE,
  type Ladder,
  ladderSizeFromStepSize,
  ODDS_SCALE,
  tickOfOdds,
} from './ladder.js';
export { guaranteedReceipt, MarketStatus } from './market-book.js';
export { MAX_ORDER_SIZE } from './order-store.js';
export { OrderOutcomeState, outcomeState } from './outcome.js';
export { type LegResult, legResult, parlayFee, parlayOutcome, quarterLineResult } from './parlay-rule.js';
export { MAX_PARLAY_LEGS, MIN_PARLAY_LEGS, type ParlaySnapshot } from './parlays.js';
export type { EngineSnapshot, MarketSnapshot, OrderSnapshot } from './snapshot.js';
export { SnapshotFormatError } from './snapshot-codec.js';
export type { AccountBalance, BookLevels, LevelView, MarketView, OrderView, PositionView } from './views.js';
