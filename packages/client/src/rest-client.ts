import {
  ADMIN_ROUTES,
  type AdminRouteName,
  API_ROUTES,
  type ApiRouteName,
  type BalanceRow,
  type OrderDomain,
  type PreparedSafeTx,
  type RouteBody,
  type RouteParams,
  type RouteQuery,
  type RouteResponse,
} from '@oddsbook/protocol';
import type { CallOptions, Transport } from './http/transport.js';
import { keysetRows, offsetRows } from './paging.js';

type Api = typeof API_ROUTES;
type Admin = typeof ADMIN_ROUTES;
type Input<R extends Api[keyof Api] | Admin[keyof Admin]> = {
  params?: RouteParams<R>;
  query?: RouteQuery<R>;
  body?: RouteBody<R>;
};
export type ApiResponse<K extends ApiRouteName> = RouteResponse<Api[K]>;
export type ApiQuery<K extends ApiRouteName> = NonNullable<RouteQuery<Api[K]>>;
export type ApiBody<K extends ApiRouteName> = NonNullable<RouteBody<Api[K]>>;
export type AdminResponse<K extends AdminRouteName> = RouteResponse<Admin[K]>;
export type AdminBody<K extends AdminRouteName> = NonNullable<RouteBody<Admin[K]>>;

/** Paging parameters handled by the iterators themselves. */
type Unpaged<Q> = Omit<Q, 'nextKey'>;

/** A typed call of one user route (`API_ROUTES[name]`). */
export function apiCaller(transport: Transport) {
  return <K extends ApiRouteName>(name: K, input: Input<Api[K]> = {}, options?: CallOptions) =>
    transport.call(API_ROUTES[name], input as never, options) as Promise<ApiResponse<K>>;
}

/**
 * One method per route of `API_ROUTES`, named as its key, typed from its schemas; listings also as async
 * iterators of their rows. `account` fills the bettor of `listRefunds`.
 */
export function restMethods(transport: Transport, account: () => `0x${string}` | undefined) {
  const call = apiCaller(transport);
  let metadata: Promise<ApiResponse<'getMetadata'>> | undefined;

  const getMetadata = (options?: { refresh?: boolean }) => {
    if (!metadata || options?.refresh) {
      metadata = call('getMetadata');
      // A failure is not kept: the next call asks again.
      metadata.catch(() => {
        metadata = undefined;
      });
    }
    return metadata;
  };
  const bettor = (given: string | undefined) => {
    const address = given ?? account();
    if (!address) throw new TypeError('listRefunds needs a bettor: give one or a signer to the client');
    return address;
  };

  return {
    health: () => call('health'),
    /** `GET /metadata/obv3`, read once and kept (`{ refresh: true }` reads it again). */
    getMetadata,
    async getOrderDomain(): Promise<OrderDomain> {
      return (await getMetadata()).domain as OrderDomain;
    },

    listSports: () => call('listSports'),
    listLeagues: () => call('listLeagues'),
    listActiveLeagues: () => call('listActiveLeagues'),
    listTeams: (query: ApiQuery<'listTeams'> = {}) => call('listTeams', { query }),
    listActiveFixtures: (query: ApiQuery<'listActiveFixtures'> = {}) => call('listActiveFixtures', { query }),
    /** Fixture status by event id (1 not started ... 9 about to start). */
    getFixtureStatuses: (eventIds: readonly string[]) =>
      call('getFixtureStatuses', { query: { sportXEventIds: eventIds.join(',') } }),
    getLiveScores: (eventIds: readonly string[]) =>
      call('getLiveScores', { query: { sportXEventIds: eventIds.join(',') } }),
    search: (query: string) => call('search', { query: { query } }),
    /** One page of active markets; `activeMarkets()` iterates them all. */
    listActiveMarkets: (query: ApiQuery<'listActiveMarkets'> = {}) => call('listActiveMarkets', { query }),
    activeMarkets: (query: Omit<ApiQuery<'listActiveMarkets'>, 'paginationKey'> = {}) =>
      keysetRows(
        (paginationKey) =>
          call('listActiveMarkets', { query: { ...query, ...(paginationKey ? { paginationKey } : {}) } }),
        (page) => page.markets,
      ),
    /** Markets by hash (1 to 30), any status. */
    findMarkets: (marketHashes: readonly string[]) =>
      call('findMarkets', { query: { marketHashes: marketHashes.join(',') } }),
    listPopularMarkets: () => call('listPopularMarkets'),
    /** The book of a market: maker frame, or what a taker can take with `showTakerPerspective`. */
    getOrderBook: (marketHash: string, showTakerPerspective = false) =>
      call('getOrderBook', { query: { marketHash, showTakerPerspective } }),
    listPublicTrades: (query: ApiQuery<'listPublicTrades'> = {}) => call('listPublicTrades', { query }),
    publicTrades: (query: Unpaged<ApiQuery<'listPublicTrades'>> = {}) =>
      keysetRows(
        (nextKey) => call('listPublicTrades', { query: { ...query, ...(nextKey ? { nextKey } : {}) } }),
        (page) => page.trades,
      ),

    siweNonce: () => call('siweNonce'),
    siweVerify: (message: string, signature: string) => call('siweVerify', { body: { message, signature } }),
    getSession: () => call('getSession'),
    signOut: () => call('signOut'),
    listApiKeys: () => call('listApiKeys'),
    createApiKey: (label?: string) => call('createApiKey', { body: label ? { label } : {} }),
    revokeApiKey: (keyId: string) => call('revokeApiKey', { params: { keyId } }),

    /** A token for the realtime WebSocket (an hour). */
    realtimeToken: async () => (await call('realtimeToken')).token,
    legacyRealtimeToken: async () => (await call('legacyRealtimeToken')).token,

    listOrders: (query: ApiQuery<'listOrders'> = {}) => call('listOrders', { query }),
    /** Every open order (PENDING or ACTIVE) of the account, page after page. */
    orders: (query: Unpaged<ApiQuery<'listOrders'>> = {}) =>
      keysetRows(
        (nextKey) => call('listOrders', { query: { ...query, ...(nextKey ? { nextKey } : {}) } }),
        (page) => page.orders,
      ),
    /** One page of the account's ended orders (INACTIVE, with `inactiveReason`), newest first by default. */
    listEndedOrders: (query: ApiQuery<'listEndedOrders'> = {}) => call('listEndedOrders', { query }),
    /** Every ended order of the account, page after page (newest first unless `sortAsc`). */
    endedOrders: (query: Unpaged<ApiQuery<'listEndedOrders'>> = {}) =>
      keysetRows(
        (nextKey) => call('listEndedOrders', { query: { ...query, ...(nextKey ? { nextKey } : {}) } }),
        (page) => page.orders,
      ),
    getOrder: (orderId: string) => call('getOrder', { params: { orderId } }),
    getOrderByClientId: (clientOrderId: string) => call('getOrderByClientId', { params: { clientOrderId } }),
    /** Best resting level per side (maker frame) of up to 100 markets. */
    getBestOdds: async (marketHashes: readonly string[]) =>
      (await call('getBestOdds', { query: { marketHashes: marketHashes.join(',') } })).bestOdds,
    /** Cancels by id (at most 100 unique); answered once committed or after 5 s (`unconfirmed`). */
    cancelOrders: (orderIds: readonly string[]) =>
      call('cancelOrders', { body: { orders: orderIds.map((orderId) => ({ orderId })) } }),
    cancelMarket: (marketHash: string) => call('cancelMarket', { query: { marketHash } }),
    cancelEvent: (eventId: string) => call('cancelEvent', { query: { eventId } }),
    /** Cancels every open order of the account (asynchronous: `cancelledSubmitted`). */
    cancelAll: () => call('cancelAll'),

    listFills: (query: ApiQuery<'listFills'> = {}) => call('listFills', { query }),
    fills: (query: Unpaged<ApiQuery<'listFills'>> = {}) =>
      keysetRows(
        (nextKey) => call('listFills', { query: { ...query, ...(nextKey ? { nextKey } : {}) } }),
        (page) => page.fills,
      ),
    listTrades: (query: ApiQuery<'listTrades'> = {}) => call('listTrades', { query }),
    trades: (query: Unpaged<ApiQuery<'listTrades'>> = {}) =>
      keysetRows(
        (nextKey) => call('listTrades', { query: { ...query, ...(nextKey ? { nextKey } : {}) } }),
        (page) => page.trades,
      ),
    /**
     * Trades with each quarter-line bet's synthetic parent beside its two legs; `hideQuarterLineLegs` for a
     * portfolio (one row per bet), `hideQuarterLineParents` for the legs only.
     */
    listConsolidatedTrades: (query: ApiQuery<'listConsolidatedTrades'> = {}) =>
      call('listConsolidatedTrades', { query }),
    consolidatedTrades: (query: Unpaged<ApiQuery<'listConsolidatedTrades'>> = {}) =>
      keysetRows(
        (nextKey) => call('listConsolidatedTrades', { query: { ...query, ...(nextKey ? { nextKey } : {}) } }),
        (page) => page.trades,
      ),
    /** Open positions: stakes and pots per outcome, guaranteed receipt, refunded so far, max loss. */
    listPositions: (query: ApiQuery<'listPositions'> = {}) => call('listPositions', { query }),
    positions: (query: Unpaged<ApiQuery<'listPositions'>> = {}) =>
      keysetRows(
        (nextKey) => call('listPositions', { query: { ...query, ...(nextKey ? { nextKey } : {}) } }),
        (page) => page.positions,
      ),
    /**
     * The key's own capital-efficiency refunds, per market (legacy shape; `page` from 0 over markets,
     * `eventsPage` over each market's events). `bettor` defaults to the client's signer; another bettor
     * is refused (403 BETTOR_MISMATCH).
     */
    listRefunds: (query: Omit<ApiQuery<'listRefunds'>, 'bettor'> & { bettor?: string } = {}) =>
      call('listRefunds', { query: { ...query, bettor: bettor(query.bettor) } }),
    refunds: (query: Omit<ApiQuery<'listRefunds'>, 'bettor' | 'page'> & { bettor?: string } = {}) => {
      const perPage = query.perPage ?? 100;
      return offsetRows(
        async (page) =>
          (await call('listRefunds', { query: { ...query, perPage, page, bettor: bettor(query.bettor) } }))
            .results,
        perPage,
      );
    },
    /** `POST /parlays-v3` as the exchange takes it; `requestParlay` of the client fills the base token. */
    requestParlay: (body: ApiBody<'requestParlay'>) => call('requestParlay', { body }),
    /**
     * A parlay request and the offers the caller may see: the requester, once the quote window closed, the
     * offers posted within it; a maker its own open offers. The legs' market records follow their results.
     */
    getParlay: (marketHash: string) => call('getParlay', { params: { marketHash } }),
    /** Arms (or refreshes) the dead-man switch for `timeoutSeconds` (1..3600); 0 disarms it. */
    heartbeat: (timeoutSeconds: number) => call('heartbeat', { body: { timeoutSeconds } }),

    /** The account's balance row (available, escrowed, exposure, owed). */
    getBalance: async (): Promise<BalanceRow> => (await call('getBalance')).balances[0]!,
    deployProxy: () => call('deployProxy'),
    getPendingDeployProxy: () => call('getPendingDeployProxy'),
    getProxy: () => call('getProxy'),
    /** The account's proxy wallet as a Safe: owners, threshold, nonce. */
    getMultisig: () => call('getMultisig'),
    /** The add-signer Safe transaction to sign (`typedData`, as it is); `addSigner` does it all. */
    prepareAddSigner: async (body: ApiBody<'prepareAddSigner'>): Promise<PreparedSafeTx> =>
      // The route's schema leaves the typed data open; the protocol types what it holds.
      (await call('prepareAddSigner', { body })) as PreparedSafeTx,
    executeAddSigner: (body: ApiBody<'executeAddSigner'>) => call('executeAddSigner', { body }),
  };
}

export type RestMethods = ReturnType<typeof restMethods>;

/** A client of the operator API (`x-admin-token`): keys, the catalog, results, the faucet, the chain. */
export function adminMethods(transport: Transport) {
  const call = <K extends AdminRouteName>(name: K, input: Input<Admin[K]> = {}) =>
    transport.call(ADMIN_ROUTES[name], input as never) as Promise<AdminResponse<K>>;
  return {
    createApiKey: (body: AdminBody<'createApiKey'>) => call('createApiKey', { body }),
    listApiKeys: (address: string) => call('listApiKeys', { query: { address } }),
    revokeApiKey: (keyId: string) => call('revokeApiKey', { params: { keyId } }),
    createLeague: (body: AdminBody<'createLeague'>) => call('createLeague', { body }),
    createFixture: (body: AdminBody<'createFixture'>) => call('createFixture', { body }),
    createMarket: (body: AdminBody<'createMarket'>) => call('createMarket', { body }),
    recordScore: (eventId: string, body: AdminBody<'recordScore'>) =>
      call('recordScore', { params: { eventId }, body }),
    setFixtureStatus: (eventId: string, status: number) =>
      call('setFixtureStatus', { params: { eventId }, body: { status } }),
    resolveMarket: (marketHash: string, outcome: 0 | 1 | 2) =>
      call('resolveMarket', { params: { marketHash }, body: { outcome } }),
    reconcile: () => call('reconcile'),
    /** The exchange's fee account: where parlay fees go, the fee rate, what it holds. */
    getFees: () => call('getFees'),
    clusterNodes: () => call('clusterNodes'),
    getFaults: () => call('getFaults'),
    injectFaults: (body: AdminBody<'injectFaults'>) => call('injectFaults', { body }),
    /** Credits a deployed proxy wallet with test funds (base units). */
    faucet: (address: string, amount: bigint | string) =>
      call('faucet', { body: { address, amount: amount.toString() } }),
  };
}
