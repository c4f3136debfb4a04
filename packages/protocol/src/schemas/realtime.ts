/**
 * Payloads of the realtime channels (`data` of each publication). They are the REST row shapes, so a
 * client reseeds from REST and then applies publications by id. Every object payload also carries
 * `messageId`, its identity for deduplication (the same id on a replay).
 */
import { type Static, type TProperties, type TSchema, Type } from 'typebox';
import type { Channel, ChannelKind, ChannelKindOf } from '../channels.js';
import { Fixture, LiveScore, Market } from './catalog.js';
import { Address, Bytes32, UintString } from './common.js';
import {
  BookLevel,
  BookSnapshot,
  FillRow,
  OrderOutcome,
  OrderRow,
  PortfolioRefund,
  PublicTradeRow,
  TradeRow,
} from './trading.js';

const MessageId = Type.String({ description: 'identity for deduplication; the same on a replay' });

const withMessageId = <P extends TProperties>(properties: P) =>
  Type.Object({ messageId: MessageId, ...properties });

/**
 * `account:orders_v3_#{address}`: the order row after each change. A publication caused by the order's
 * own create (place, admission, activation after the betting delay, withdrawal while delayed) carries
 * the create's `commandId`, and `outcome` (as in the `POST /orders-v3` result) once that decided it.
 */
export const AccountOrderUpdate = withMessageId({
  ...OrderRow.properties,
  commandId: Type.Optional(Type.String()),
  outcome: Type.Optional(OrderOutcome),
});
export type AccountOrderUpdate = Static<typeof AccountOrderUpdate>;

/** `active_orders:{maker}`: the order row after each change (`INACTIVE` means it left the open orders). */
export const ActiveOrderUpdate = withMessageId(OrderRow.properties);
export type ActiveOrderUpdate = Static<typeof ActiveOrderUpdate>;

/** `account:trades_v3_#{address}`: the trade row after each change (MATCHED, LOCKED, FAILED, SETTLED). */
export const TradeUpdate = withMessageId(TradeRow.properties);
export type TradeUpdate = Static<typeof TradeUpdate>;

/** `account:fills_v3`: the connected user's fill rows, when made and when their status changes. */
export const FillUpdate = withMessageId(FillRow.properties);
export type FillUpdate = Static<typeof FillUpdate>;

/** `order_book:market_{marketHash}` and `order_book:event_{eventId}`: the whole book, as the REST snapshot. */
export const BookUpdate = withMessageId(BookSnapshot.properties);
export type BookUpdate = Static<typeof BookUpdate>;

/** `best_odds:global`: the best level of each side of a market, when it changed. */
export const BestOddsUpdate = withMessageId({
  marketHash: Bytes32,
  eventId: Type.String(),
  outcomeOne: Type.Union([BookLevel, Type.Null()]),
  outcomeTwo: Type.Union([BookLevel, Type.Null()]),
  sportId: Type.Optional(Type.Integer()),
  leagueId: Type.Optional(Type.Integer()),
});
export type BestOddsUpdate = Static<typeof BestOddsUpdate>;

/**
 * `recent_trades:global`: a taker bet on the public tape (no identities), after each fill. A quarter-line
 * bet shows as its two leg trades, one message each, on the leg markets.
 */
export const RecentTrade = withMessageId({
  ...PublicTradeRow.properties,
  isQuarterLineLeg: Type.Boolean(),
  /** The quarter-line market the bet was placed on, for a leg; absent otherwise (the spec's rows). */
  quarterLineParentMarketHash: Type.Optional(Bytes32),
});
export type RecentTrade = Static<typeof RecentTrade>;

/**
 * `recent_trades_consolidated:global`: the same bet with the consolidated (quarter-line) fields. A
 * quarter-line bet shows as its two legs (`quarterLineFillHash` = the parent's `tradeId`) and then a
 * synthetic parent on the quarter-line market with their totals (`isQuarterLineParent`).
 */
export const ConsolidatedTrade = withMessageId({
  ...PublicTradeRow.properties,
  isQuarterLineParent: Type.Boolean(),
  isQuarterLineLeg: Type.Boolean(),
  quarterLineFillHash: Type.Union([Type.String(), Type.Null()]),
  /** What the bet would win beyond its stake: totalReturn - totalStake. */
  netReturn: UintString,
});
export type ConsolidatedTrade = Static<typeof ConsolidatedTrade>;

/** `markets:global`: the market record of `GET /markets/find`, on every change. */
export const MarketUpdate = withMessageId(Market.properties);
export type MarketUpdate = Static<typeof MarketUpdate>;

/** `main_line:global`: the event's main line of a market type moved to `marketHash`. */
export const MainLineUpdate = withMessageId({
  marketHash: Bytes32,
  marketType: Type.Integer(),
  sportXEventId: Type.String(),
});
export type MainLineUpdate = Static<typeof MainLineUpdate>;

/** `fixtures:global`: the fixture record, on every change. */
export const FixtureUpdate = withMessageId(Fixture.properties);
export type FixtureUpdate = Static<typeof FixtureUpdate>;

/** `fixtures:live_scores`: the live-score record of one event (filter by `sportXEventId`). */
export const LiveScoreUpdate = withMessageId(LiveScore.properties);
export type LiveScoreUpdate = Static<typeof LiveScoreUpdate>;

/**
 * `parlay_markets:global`: a parlay request to quote (docs/parlays.md), once per `POST /parlays-v3`. Makers
 * post orders on `marketHash` before the request's quote window closes. No history: not recoverable.
 */
export const ParlayMarketUpdate = withMessageId({
  /** The legacy channel name, always `markets:parlay`. */
  channelName: Type.Literal('markets:parlay'),
  marketHash: Bytes32,
  baseToken: Address,
  /** Base units; absent when the request named none. It does not cap what makers may offer. */
  requestSize: Type.Optional(UintString),
  legs: Type.Array(Type.Object({ marketHash: Bytes32, bettingOutcomeOne: Type.Boolean() })),
});
export type ParlayMarketUpdate = Static<typeof ParlayMarketUpdate>;

/**
 * `ce_refunds:{bettor}`: each capital-efficiency refund, as an array of one `PortfolioRefund` holding the
 * one event (the legacy shape); the message id is in the publication's tags.
 */
export const CeRefundUpdate = Type.Array(PortfolioRefund, { minItems: 1, maxItems: 1 });
export type CeRefundUpdate = Static<typeof CeRefundUpdate>;

/** The payload schema of each channel kind (`parseChannel(name).kind`). */
export const CHANNEL_PAYLOADS = {
  account_orders: AccountOrderUpdate,
  account_trades: TradeUpdate,
  account_fills: FillUpdate,
  active_orders: ActiveOrderUpdate,
  order_book_market: BookUpdate,
  order_book_event: BookUpdate,
  best_odds: BestOddsUpdate,
  markets: MarketUpdate,
  parlay_markets: ParlayMarketUpdate,
  recent_trades: RecentTrade,
  recent_trades_consolidated: ConsolidatedTrade,
  main_line: MainLineUpdate,
  fixtures: FixtureUpdate,
  live_scores: LiveScoreUpdate,
  ce_refunds: CeRefundUpdate,
} as const satisfies Partial<Record<ChannelKind, TSchema>>;

/** The payload type of each channel kind. */
export type ChannelPayloads = { [K in keyof typeof CHANNEL_PAYLOADS]: Static<(typeof CHANNEL_PAYLOADS)[K]> };

/**
 * The payload type of a channel name: `ChannelPayload<typeof ch>` for `ch = orderBookMarketChannel(hash)` is
 * `BookUpdate`, for `GLOBAL_CHANNELS.live_scores` `LiveScoreUpdate`.
 */
export type ChannelPayload<C extends Channel> = ChannelPayloads[ChannelKindOf<C>];
