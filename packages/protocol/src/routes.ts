/**
 * Every REST route of the exchange, once: method, path, who may call it, and the TypeBox schemas of its
 * parameters and of its answer's `data`. The SDK types its methods from this table (one method per route,
 * named as the key); a test holds it equal to the OpenAPI document the server serves.
 */
import { type Static, type TSchema, Type } from 'typebox';
import {
  AccountApiKeyList,
  ApiKeyIdParams,
  CreateApiKeyBody,
  CreatedApiKey,
  RealtimeToken,
  RevokedApiKey,
  SessionInfo,
  SignedInSession,
  SignOutResult,
  SiweNonce,
  SiweVerifyBody,
} from './schemas/account.js';
import {
  AdminApiKeyList,
  AdminApiKeysQuery,
  AdminCreateApiKeyBody,
  AdminCreatedApiKey,
  AdminRevokedApiKey,
  ClusterNodeInfo,
  CreatedFixture,
  CreatedLeague,
  CreatedMarket,
  CreateFixtureBody,
  CreateLeagueBody,
  CreateMarketBody,
  EventIdParams,
  FaucetBody,
  FaucetResult,
  FaultState,
  FaultsBody,
  FixtureStatusBody,
  MarketHashParams,
  ReconcileReport,
  RecordScoreBody,
  ResolveMarketBody,
} from './schemas/admin.js';
import { Fixture, LiveScore, Market } from './schemas/catalog.js';
import {
  V2BestOddsQuery,
  V2BestOddsResult,
  V2CancelAllBody,
  V2CancelEventBody,
  V2CancelOrdersBody,
  V2CancelResult,
  V2ConsolidatedTradesPage,
  V2ConsolidatedTradesQuery,
  V2FillBody,
  V2FillResult,
  V2Metadata,
  V2OrderRow,
  V2OrdersQuery,
  V2PostOrdersBody,
  V2PostOrdersResult,
  V2TradeOrdersQuery,
  V2TradeRow,
  V2TradesPage,
  V2TradesQuery,
} from './schemas/legacy.js';
import { Metadata } from './schemas/metadata.js';
import { Health } from './schemas/operations.js';
import { FeeAccountState, ParlayDetail, ParlayRequestBody, ParlayRequestResult } from './schemas/parlays.js';
import {
  ActiveFixturesQuery,
  ActiveLeagueList,
  ActiveMarketsPage,
  ActiveMarketsQuery,
  BalanceResult,
  BestOddsQuery,
  BestOddsResult,
  BookSnapshotQuery,
  CancelEventQuery,
  CancelMarketQuery,
  ClientOrderIdParams,
  ConsolidatedTradesPage,
  ConsolidatedTradesQuery,
  CreateOrdersResult,
  EndedOrdersQuery,
  EventIdsQuery,
  FillsPage,
  FillsQuery,
  FindMarketsQuery,
  FixtureList,
  FixtureStatuses,
  LeagueList,
  LiveScoreList,
  MarketList,
  OrderIdParams,
  OrdersPage,
  OrdersQuery,
  PositionsPage,
  PositionsQuery,
  PublicTradesPage,
  PublicTradesQuery,
  RefundsResult,
  SearchQuery,
  SearchResultList,
  SportList,
  TeamList,
  TeamsQuery,
  TradesPage,
  TradesQuery,
} from './schemas/queries.js';
import {
  BookSnapshot,
  CancelOrdersBody,
  CancelOrdersResult,
  CancelSubmittedResult,
  CreateOrdersBody,
  HeartbeatBody,
  HeartbeatResult,
  OrderRow,
  PortfolioRefundsQuery,
} from './schemas/trading.js';
import {
  AddSignerExecuteBody,
  AddSignerPrepareBody,
  PendingDeployProxy,
  PreparedSafeTx,
  ProxyState,
  SafeInfo,
  SafeTxProgress,
} from './schemas/wallets.js';

/** Who may call a route: anyone, an API key (`x-svc-api-key`), a browser session (Bearer), the operator. */
export type RouteAuth = 'none' | 'apiKey' | 'session' | 'admin';

export type RouteSpec = {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** With `{name}` for a path parameter, as the OpenAPI document writes it. */
  readonly path: string;
  readonly auth: RouteAuth;
  readonly params?: TSchema;
  readonly query?: TSchema;
  readonly body?: TSchema;
  /** The answer's `data` (`{status: "success", data}`), or the whole answer of a `bare` route. */
  readonly response: TSchema;
  /** `bare`: the answer is not in the envelope (legacy). Default: the envelope. */
  readonly shape?: 'bare';
  /** Sending it twice has the effect of sending it once: a client may retry it after a lost answer. */
  readonly idempotent: boolean;
};

const get = <R extends Omit<RouteSpec, 'method' | 'idempotent'>>(route: R) =>
  ({ method: 'GET', idempotent: true, ...route }) as const;
const post = <R extends Omit<RouteSpec, 'method'>>(route: R) => ({ method: 'POST', ...route }) as const;
const del = <R extends Omit<RouteSpec, 'method'>>(route: R) => ({ method: 'DELETE', ...route }) as const;

/** The routes of the exchange's users (market data, trading, wallets, sign-in, keys, realtime tokens). */
export const API_ROUTES = {
  health: get({ path: '/health', auth: 'none', response: Health }),
  getMetadata: get({ path: '/metadata/obv3', auth: 'none', response: Metadata }),

  listSports: get({ path: '/sports', auth: 'none', response: SportList }),
  listLeagues: get({ path: '/leagues', auth: 'none', response: LeagueList }),
  listActiveLeagues: get({ path: '/leagues/active', auth: 'none', response: ActiveLeagueList }),
  listTeams: get({ path: '/teams', auth: 'none', query: TeamsQuery, response: TeamList }),
  listActiveFixtures: get({
    path: '/fixture/active',
    auth: 'none',
    query: ActiveFixturesQuery,
    response: FixtureList,
  }),
  getFixtureStatuses: get({
    path: '/fixture/status',
    auth: 'none',
    query: EventIdsQuery,
    response: FixtureStatuses,
  }),
  getLiveScores: get({ path: '/live-scores', auth: 'none', query: EventIdsQuery, response: LiveScoreList }),
  search: get({ path: '/search', auth: 'none', query: SearchQuery, response: SearchResultList }),
  listActiveMarkets: get({
    path: '/markets/active',
    auth: 'none',
    query: ActiveMarketsQuery,
    response: ActiveMarketsPage,
  }),
  findMarkets: get({ path: '/markets/find', auth: 'none', query: FindMarketsQuery, response: MarketList }),
  listPopularMarkets: get({ path: '/markets/popular', auth: 'none', response: MarketList }),
  getOrderBook: get({
    path: '/orderbook-v3/snapshot',
    auth: 'none',
    query: BookSnapshotQuery,
    response: BookSnapshot,
  }),
  listPublicTrades: get({
    path: '/trades-v3/public',
    auth: 'none',
    query: PublicTradesQuery,
    response: PublicTradesPage,
  }),

  siweNonce: post({ path: '/auth/siwe/nonce', auth: 'none', response: SiweNonce, idempotent: true }),
  siweVerify: post({
    path: '/auth/siwe/verify',
    auth: 'none',
    body: SiweVerifyBody,
    response: SignedInSession,
    idempotent: false,
  }),
  getSession: get({ path: '/auth/session', auth: 'session', response: SessionInfo }),
  signOut: del({ path: '/auth/session', auth: 'session', response: SignOutResult, idempotent: true }),
  listApiKeys: get({ path: '/account/api-keys', auth: 'session', response: AccountApiKeyList }),
  createApiKey: post({
    path: '/account/api-keys',
    auth: 'session',
    body: CreateApiKeyBody,
    response: CreatedApiKey,
    idempotent: false,
  }),
  revokeApiKey: del({
    path: '/account/api-keys/{keyId}',
    auth: 'session',
    params: ApiKeyIdParams,
    response: RevokedApiKey,
    idempotent: false,
  }),

  realtimeToken: get({ path: '/user/realtime-token-v3/api-key', auth: 'apiKey', response: RealtimeToken }),
  legacyRealtimeToken: get({
    path: '/user/realtime-token/api-key',
    auth: 'apiKey',
    response: RealtimeToken,
    shape: 'bare',
  }),

  placeOrders: post({
    path: '/orders-v3',
    auth: 'apiKey',
    body: CreateOrdersBody,
    response: CreateOrdersResult,
    // The same signed orders twice: the second are ORDER_ALREADY_EXISTS, never placed again.
    idempotent: true,
  }),
  listOrders: get({ path: '/orders-v3', auth: 'apiKey', query: OrdersQuery, response: OrdersPage }),
  /** The account's ended orders (filled, cancelled, expired), newest first unless `sortAsc`. */
  listEndedOrders: get({
    path: '/orders-v3/ended',
    auth: 'apiKey',
    query: EndedOrdersQuery,
    response: OrdersPage,
  }),
  cancelOrders: del({
    path: '/orders-v3',
    auth: 'apiKey',
    body: CancelOrdersBody,
    response: CancelOrdersResult,
    idempotent: true,
  }),
  getOrderByClientId: get({
    path: '/orders-v3/client/{clientOrderId}',
    auth: 'apiKey',
    params: ClientOrderIdParams,
    response: OrderRow,
  }),
  getBestOdds: get({
    path: '/orders-v3/odds/best',
    auth: 'apiKey',
    query: BestOddsQuery,
    response: BestOddsResult,
  }),
  getOrder: get({ path: '/orders-v3/{orderId}', auth: 'apiKey', params: OrderIdParams, response: OrderRow }),
  cancelMarket: del({
    path: '/orders-v3/market',
    auth: 'apiKey',
    query: CancelMarketQuery,
    response: CancelSubmittedResult,
    idempotent: true,
  }),
  cancelEvent: del({
    path: '/orders-v3/event',
    auth: 'apiKey',
    query: CancelEventQuery,
    response: CancelSubmittedResult,
    idempotent: true,
  }),
  cancelAll: del({
    path: '/orders-v3/all',
    auth: 'apiKey',
    response: CancelSubmittedResult,
    idempotent: true,
  }),
  listFills: get({ path: '/fills-v3', auth: 'apiKey', query: FillsQuery, response: FillsPage }),
  listTrades: get({ path: '/trades-v3', auth: 'apiKey', query: TradesQuery, response: TradesPage }),
  listConsolidatedTrades: get({
    path: '/trades-v3/consolidated',
    auth: 'apiKey',
    query: ConsolidatedTradesQuery,
    response: ConsolidatedTradesPage,
  }),
  listPositions: get({
    path: '/positions-v3',
    auth: 'apiKey',
    query: PositionsQuery,
    response: PositionsPage,
  }),
  listRefunds: get({
    path: '/trades/portfolio/refunds',
    auth: 'apiKey',
    query: PortfolioRefundsQuery,
    response: RefundsResult,
  }),
  heartbeat: post({
    path: '/heartbeat/v3',
    auth: 'apiKey',
    body: HeartbeatBody,
    response: HeartbeatResult,
    idempotent: true,
  }),

  requestParlay: post({
    path: '/parlays-v3',
    auth: 'apiKey',
    body: ParlayRequestBody,
    response: ParlayRequestResult,
    // Each request makes a new market.
    idempotent: false,
  }),
  getParlay: get({
    path: '/parlays-v3/{marketHash}',
    auth: 'apiKey',
    params: MarketHashParams,
    response: ParlayDetail,
  }),

  getBalance: get({ path: '/user/balance-v3', auth: 'apiKey', response: BalanceResult }),
  deployProxy: post({ path: '/user/deploy-proxy', auth: 'apiKey', response: ProxyState, idempotent: true }),
  getPendingDeployProxy: get({
    path: '/user/pending-deploy-proxy',
    auth: 'apiKey',
    response: PendingDeployProxy,
  }),
  getProxy: get({ path: '/user/proxy', auth: 'apiKey', response: ProxyState }),
  getMultisig: get({ path: '/user/multisig', auth: 'apiKey', response: SafeInfo }),
  prepareAddSigner: post({
    path: '/user/multisig/add-signer/prepare',
    auth: 'apiKey',
    body: AddSignerPrepareBody,
    response: PreparedSafeTx,
    idempotent: false,
  }),
  executeAddSigner: post({
    path: '/user/multisig/add-signer/execute',
    auth: 'apiKey',
    body: AddSignerExecuteBody,
    response: SafeTxProgress,
    // "Posting the same body again returns the current progress."
    idempotent: true,
  }),
} as const satisfies Record<string, RouteSpec>;

/** The operator's routes (`x-admin-token`). */
export const ADMIN_ROUTES = {
  createApiKey: post({
    path: '/admin/api-keys',
    auth: 'admin',
    body: AdminCreateApiKeyBody,
    response: AdminCreatedApiKey,
    idempotent: false,
  }),
  listApiKeys: get({
    path: '/admin/api-keys',
    auth: 'admin',
    query: AdminApiKeysQuery,
    response: AdminApiKeyList,
  }),
  revokeApiKey: del({
    path: '/admin/api-keys/{keyId}',
    auth: 'admin',
    params: ApiKeyIdParams,
    response: AdminRevokedApiKey,
    idempotent: false,
  }),
  createLeague: post({
    path: '/admin/leagues',
    auth: 'admin',
    body: CreateLeagueBody,
    response: CreatedLeague,
    idempotent: false,
  }),
  createFixture: post({
    path: '/admin/fixtures',
    auth: 'admin',
    body: CreateFixtureBody,
    response: CreatedFixture,
    idempotent: false,
  }),
  createMarket: post({
    path: '/admin/markets',
    auth: 'admin',
    body: CreateMarketBody,
    response: CreatedMarket,
    idempotent: false,
  }),
  recordScore: post({
    path: '/admin/fixtures/{eventId}/scores',
    auth: 'admin',
    params: EventIdParams,
    body: RecordScoreBody,
    response: LiveScore,
    idempotent: false,
  }),
  setFixtureStatus: post({
    path: '/admin/fixtures/{eventId}/status',
    auth: 'admin',
    params: EventIdParams,
    body: FixtureStatusBody,
    response: Fixture,
    idempotent: true,
  }),
  resolveMarket: post({
    path: '/admin/markets/{marketHash}/resolve',
    auth: 'admin',
    params: MarketHashParams,
    body: ResolveMarketBody,
    response: Market,
    idempotent: false,
  }),
  reconcile: get({ path: '/admin/reconcile', auth: 'admin', response: ReconcileReport }),
  getFees: get({ path: '/admin/fees', auth: 'admin', response: FeeAccountState }),
  clusterNodes: get({ path: '/admin/cluster', auth: 'admin', response: Type.Array(ClusterNodeInfo) }),
  getFaults: get({ path: '/admin/faults', auth: 'admin', response: FaultState }),
  injectFaults: post({
    path: '/admin/faults',
    auth: 'admin',
    body: FaultsBody,
    response: FaultState,
    idempotent: false,
  }),
  faucet: post({
    path: '/admin/faucet',
    auth: 'admin',
    body: FaucetBody,
    response: FaucetResult,
    idempotent: false,
  }),
} as const satisfies Record<string, RouteSpec>;

/**
 * The legacy v2 API (docs/legacy.md): served until the cut-over dates, authenticated by v2 signatures, never
 * by a key. The SDK is v3 only: it has no methods for these.
 */
export const LEGACY_ROUTES = {
  v2Metadata: get({ path: '/metadata', auth: 'none', response: V2Metadata }),
  v2PostOrders: post({
    path: '/orders/new',
    auth: 'none',
    body: V2PostOrdersBody,
    response: V2PostOrdersResult,
    idempotent: true,
  }),
  v2Fill: post({
    path: '/orders/fill/v2',
    auth: 'none',
    body: V2FillBody,
    response: V2FillResult,
    idempotent: true,
  }),
  v2CancelOrders: post({
    path: '/orders/cancel/v2',
    auth: 'none',
    body: V2CancelOrdersBody,
    response: V2CancelResult,
    idempotent: false,
  }),
  v2CancelEvent: post({
    path: '/orders/cancel/event',
    auth: 'none',
    body: V2CancelEventBody,
    response: V2CancelResult,
    idempotent: false,
  }),
  v2CancelAll: post({
    path: '/orders/cancel/all',
    auth: 'none',
    body: V2CancelAllBody,
    response: V2CancelResult,
    idempotent: false,
  }),
  v2Orders: get({ path: '/orders', auth: 'none', query: V2OrdersQuery, response: Type.Array(V2OrderRow) }),
  v2BestOdds: get({
    path: '/orders/odds/best',
    auth: 'none',
    query: V2BestOddsQuery,
    response: V2BestOddsResult,
  }),
  v2Trades: get({ path: '/trades', auth: 'none', query: V2TradesQuery, response: V2TradesPage }),
  v2TradesOfOrders: get({
    path: '/trades/orders',
    auth: 'none',
    query: V2TradeOrdersQuery,
    response: Type.Object({ trades: Type.Array(V2TradeRow) }),
  }),
  v2ConsolidatedTrades: get({
    path: '/trades/consolidated',
    auth: 'none',
    query: V2ConsolidatedTradesQuery,
    response: V2ConsolidatedTradesPage,
  }),
} as const satisfies Record<string, RouteSpec>;

export type ApiRouteName = keyof typeof API_ROUTES;
export type AdminRouteName = keyof typeof ADMIN_ROUTES;

type Maybe<S> = S extends TSchema ? Static<S> : undefined;

/** The typed parts of a route's request and its answer. */
export type RouteParams<R extends RouteSpec> = Maybe<R['params']>;
export type RouteQuery<R extends RouteSpec> = Maybe<R['query']>;
export type RouteBody<R extends RouteSpec> = Maybe<R['body']>;
export type RouteResponse<R extends RouteSpec> = Static<R['response']>;
