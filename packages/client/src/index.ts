/** The protocol's types and codes the SDK's callers need most, so one import serves. */
export type {
  AccountApiKey,
  BalanceRow,
  BookSnapshot,
  Channel,
  ChannelPayload,
  CreateOrderResult,
  ErrorCode,
  FillRow,
  Market,
  Metadata,
  OrderRejectReason,
  OrderRow,
  ParlayDetail,
  ParlayOffer,
  ParlayRequestResult,
  PositionRow,
  PreparedSafeTx,
  SafeInfo,
  SafeTxProgress,
  TradeRow,
} from '@oddsbook/protocol';
export {
  accountOrdersChannel,
  activeOrdersChannel,
  channels,
  ERROR_CODES,
  formatTokenAmount,
  GLOBAL_CHANNELS,
  invertOdds,
  ladderSize,
  ODDS_SCALE,
  ORDER_REJECT_REASONS,
  oddsToTick,
  orderBookMarketChannel,
  parseTokenAmount,
  takerBook,
  tickToOdds,
} from '@oddsbook/protocol';
export {
  type AdminClient,
  createAdminClient,
  createExchangeClient,
  type ExchangeClient,
  type ExchangeClientOptions,
} from './client.js';
export {
  ExchangeApiError,
  ExchangeNetworkError,
  errorCodeOf,
  type FailedOrder,
  OrderCheckError,
  OrdersRejectedError,
  PlacementUnknownError,
} from './errors.js';
export type { RetryOptions } from './http/retry.js';
export type { Credentials } from './http/transport.js';
export { type KeepAlive, type KeepAliveOptions, keepAlive } from './keep-alive.js';
export {
  MarketQuoter,
  type MarketQuoterOptions,
  type QuoteLadder,
  type QuoteParameters,
  quoteLadder,
} from './market-maker.js';
export { OrderBuilder, type OrderRequest, roundToLadder } from './order-builder.js';
export { collect } from './paging.js';
export {
  legProbability,
  type ParlayLegChoice,
  type ParlayQuote,
  type ParlayQuoteInput,
  parlayProbability,
  quoteParlay,
} from './parlay/pricing.js';
export { newClientOrderId, type PlacedOrder, type PlaceOrdersOptions } from './place-orders.js';
export {
  type ChannelEvent,
  ChannelSubscription,
  RealtimeConnection,
  RealtimeError,
  type RealtimeOptions,
  type RealtimeState,
  type WebSocketConstructor,
  type WebSocketLike,
} from './realtime/connection.js';
export type { StreamPosition } from './realtime/wire.js';
export type { AdminBody, AdminResponse, ApiBody, ApiQuery, ApiResponse, RestMethods } from './rest-client.js';
export { signInMessage } from './sign-in.js';
export {
  type OrderParameters,
  randomSalt,
  type SignedOrder,
  signedOrderId,
  signOrder,
  type TimeInForce,
} from './sign-order.js';
export {
  accountSigner,
  type Eip1193Provider,
  eip1193Signer,
  jsonTypedData,
  remoteSigner,
  type Signer,
  type TypedDataPayload,
  toSigner,
  type ViemAccountLike,
} from './signer.js';
export { LiveBook } from './watch/live-book.js';
export { LiveFills } from './watch/live-fills.js';
export { LiveOrders, type OrderChange } from './watch/live-orders.js';
export { type ParlayRequest, ParlayRequests } from './watch/parlay-requests.js';
