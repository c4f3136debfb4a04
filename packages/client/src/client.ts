import { type Channel, channels, GLOBAL_CHANNELS } from '@oddsbook/protocol';
import { type Credentials, Transport, type TransportOptions } from './http/transport.js';
import { type KeepAliveOptions, keepAlive } from './keep-alive.js';
import { OrderBuilder, type OrderRequest } from './order-builder.js';
import { type PlacedOrder, type PlaceOrdersOptions, placeOrders } from './place-orders.js';
import {
  type ChannelSubscription,
  RealtimeConnection,
  type RealtimeOptions,
  type WebSocketConstructor,
} from './realtime/connection.js';
import { adminMethods, restMethods } from './rest-client.js';
import { signInWithSigner } from './sign-in.js';
import type { SignedOrder } from './sign-order.js';
import { type Signer, toSigner, type ViemAccountLike } from './signer.js';
import { LiveBook } from './watch/live-book.js';
import { LiveFills } from './watch/live-fills.js';
import { LiveOrders } from './watch/live-orders.js';
import { ParlayRequests } from './watch/parlay-requests.js';

export type ExchangeClientOptions = TransportOptions & {
  /** Signs orders, the sign-in message and Safe transactions: a `Signer` (KMS, wallet) or a viem account. */
  signer?: Signer | ViemAccountLike | undefined;
  /** The same as `signer` (a viem account), kept for earlier callers. */
  account?: ViemAccountLike | undefined;
  /** Market facts (minimum, betting delay) the order builder keeps this long (default 5 s). */
  marketCacheMs?: number;
  realtime?: Partial<Omit<RealtimeOptions, 'getToken'>> & {
    /** Default: the base URL's origin with ws(s): and `/connection/websocket`. */
    url?: string;
    WebSocket?: WebSocketConstructor;
  };
};

function realtimeUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = '/connection/websocket';
  url.search = '';
  return url.toString();
}

/**
 * A client of the exchange: every REST route as a typed method (`API_ROUTES`), listings as async iterators,
 * signed and checked order placement with safe retries, the heartbeat keeper, sign-in, and the realtime
 * channels: raw (`subscribe`) or kept as live state (`watchBook`, `watchOrders`, `watchFills`).
 */
export function createExchangeClient(options: ExchangeClientOptions) {
  const transport = new Transport(options);
  const given = options.signer ?? options.account;
  const signer = given ? toSigner(given) : undefined;
  const rest = restMethods(transport, () => signer?.address);
  const builder = new OrderBuilder({
    getMetadata: () => rest.getMetadata(),
    findMarkets: (hashes) => rest.findMarkets(hashes),
    ...(options.marketCacheMs !== undefined ? { marketCacheMs: options.marketCacheMs } : {}),
  });
  const needSigner = (): Signer => {
    if (!signer) throw new TypeError('a signer is needed: pass `signer` to createExchangeClient');
    return signer;
  };
  let connection: RealtimeConnection | undefined;
  const realtime = (): RealtimeConnection => {
    if (!connection || connection.state === 'closed') {
      connection = new RealtimeConnection({
        ...options.realtime,
        url: options.realtime?.url ?? realtimeUrl(transport.baseUrl),
        getToken: () => rest.realtimeToken(),
      });
    }
    return connection;
  };
  let address: Promise<`0x${string}`> | undefined;
  const accountAddress = (): Promise<`0x${string}`> => {
    if (signer) return Promise.resolve(signer.address);
    address ??= rest.getBalance().then((b) => b.userAddress as `0x${string}`);
    address.catch(() => {
      address = undefined;
    });
    return address;
  };
  const placement = {
    transport,
    builder,
    getMetadata: () => rest.getMetadata(),
    signer: () => signer,
    getOrder: (orderId: string) => rest.getOrder(orderId),
  };

  return {
    ...rest,
    /** The base URL requests go to. */
    baseUrl: transport.baseUrl,
    signer,
    /** A client with the same options and other credentials (e.g. the session token of `signIn`). */
    withCredentials: (credentials: Credentials) => createExchangeClient({ ...options, ...credentials }),
    /** The account's address: the signer's, else the API key's account (read once from the balance route). */
    accountAddress,

    /** A market's record as the order builder holds it (cached `marketCacheMs`); null when unknown. */
    market: (marketHash: string) => builder.market(marketHash),
    /** Fills the defaults of orders, rounds their odds to the ladder and checks them (throws OrderCheckError). */
    prepareOrders: (orders: readonly OrderRequest[]) => builder.prepare(orders),
    /** Prepares and signs orders with the client's signer, without posting them. */
    signOrders: (orders: readonly OrderRequest[]) => builder.sign(needSigner(), orders),
    /**
     * Posts 1 to 10 orders (signing and checking the unsigned ones). Transient failures (no answer, 429,
     * 503) are retried with the same signed orders, which the exchange knows by their digest: a retry never
     * places an order twice. Each result is SUBMITTED or FAILED with its `reason`.
     */
    placeOrders: (orders: readonly (OrderRequest | SignedOrder)[], opts?: PlaceOrdersOptions) =>
      placeOrders(placement, orders, opts),
    /** Posts one order; a FAILED one throws OrdersRejectedError (its `reason`). */
    placeOrder: async (order: OrderRequest | SignedOrder, opts?: Omit<PlaceOrdersOptions, 'rejectFailed'>) =>
      (await placeOrders(placement, [order], { ...opts, rejectFailed: true }))[0] as PlacedOrder,

    /** Keeps the heartbeat armed while the process runs; `stop()` disarms it on a clean shutdown. */
    keepAlive: (opts?: KeepAliveOptions) => keepAlive((seconds) => rest.heartbeat(seconds), opts),

    /**
     * Adds a signer to a Safe of the account (default: its own proxy wallet): prepares the transaction,
     * signs its typed data with the client's signer, and confirms it. Answers the progress: executed once
     * enough owners confirmed (`isExecuted` after the next block; `getMultisig` shows the new owner).
     */
    async addSigner(opts: { newSignerAddress: string; threshold?: number; safeAddress?: string }) {
      const own = needSigner();
      const safeAddress = opts.safeAddress ?? (await rest.getMultisig()).safeAddress;
      const prepared = await rest.prepareAddSigner({
        safeAddress,
        newSignerAddress: opts.newSignerAddress,
        ...(opts.threshold !== undefined ? { threshold: opts.threshold } : {}),
      });
      const signature = await own.signTypedData(prepared.typedData);
      return rest.executeAddSigner({
        safeAddress,
        safeTxHash: prepared.safeTxHash,
        safeTransactionData: prepared.safeTransactionData,
        signature,
        signerAddress: own.address,
      });
    },

    /** Sign-In with Ethereum with the signer's key: a session token for the account routes (API keys). */
    signIn: (statement?: string) => signInWithSigner(rest, transport.baseUrl, needSigner(), statement),

    /** The realtime connection (made on first use; needs an API key for its token). */
    get realtime(): RealtimeConnection {
      return realtime();
    },
    /**
     * Follows a channel: events typed by its name (`ChannelPayload<C>`), by listener (`sub.on`) or as an
     * async iterator (`for await (const event of sub)`).
     */
    subscribe: <C extends Channel>(channel: C): ChannelSubscription<C> => realtime().subscribe(channel),

    /** A market's book kept live from REST and its channel (resolves once the first book is held). */
    async watchBook(
      marketHash: string,
      opts: { onError?: (error: unknown) => void } = {},
    ): Promise<LiveBook> {
      const { oddsLadderStepSize } = await rest.getMetadata();
      const book = new LiveBook(marketHash, {
        subscription: realtime().subscribe(channels.orderBookMarket(marketHash)),
        getOrderBook: (hash) => rest.getOrderBook(hash),
        ladderStepSize: oddsLadderStepSize,
        onError: opts.onError,
      });
      await book.ready;
      return book;
    },
    /** The account's open orders kept live (resolves once seeded). */
    async watchOrders(opts: { onError?: (error: unknown) => void } = {}): Promise<LiveOrders> {
      const orders = new LiveOrders({
        subscription: realtime().subscribe(channels.activeOrders(await accountAddress())),
        openOrders: () => rest.orders(),
        onError: opts.onError,
      });
      await orders.ready;
      return orders;
    },
    /** The account's fills since `since` (default now) kept live, each reported once per status. */
    async watchFills(
      opts: { since?: Date | string; onError?: (error: unknown) => void } = {},
    ): Promise<LiveFills> {
      const since = new Date(opts.since ?? Date.now()).toISOString();
      const fills = new LiveFills({
        subscription: realtime().subscribe(channels.accountFills()),
        fillsSince: (startDate) => rest.fills({ startDate, sortAsc: true, perPage: 100 }),
        since,
        onError: opts.onError,
      });
      await fills.ready;
      return fills;
    },
    /**
     * Asks makers for quotes on a parlay (`POST /parlays-v3`): 2 to 10 legs, each an active market of a
     * different event and the outcome wanted on it; `baseToken` defaults to the exchange's. Answers the
     * market made for the request: makers quote until `quoteWindowEndsAt`, then `getParlay` shows their
     * offers, which only the requester may take (betting outcome one) until `takeUntil`.
     */
    requestParlay: async (request: {
      legs: readonly { marketHash: string; bettingOutcomeOne: boolean }[];
      baseToken?: string;
      /** The stake in mind, base units; it does not cap what makers offer. */
      requestSize?: bigint | string;
    }) =>
      rest.requestParlay({
        baseToken: request.baseToken ?? (await rest.getMetadata()).activeAsset.baseToken,
        legs: request.legs.map((l) => ({ marketHash: l.marketHash, bettingOutcomeOne: l.bettingOutcomeOne })),
        ...(request.requestSize !== undefined ? { requestSize: request.requestSize.toString() } : {}),
      }),
    /**
     * Parlay requests as they are made (`parlay_markets:global`), for makers: by listener or as an async
     * iterator; `ready` resolves once subscribed. The channel keeps no history, so it is NOT recoverable:
     * requests made while the connection is down are missed (`onMissed`), nothing reseeds them.
     */
    watchParlayRequests(
      opts: { baseToken?: string; onMissed?: () => void; onError?: (error: unknown) => void } = {},
    ): ParlayRequests {
      return new ParlayRequests({
        subscription: realtime().subscribe(GLOBAL_CHANNELS.parlay_markets),
        baseToken: opts.baseToken,
        onMissed: opts.onMissed,
        onError: opts.onError,
      });
    },
    /** Closes the realtime connection (every subscription and watcher ends). */
    close(): void {
      connection?.close();
    },
  };
}

export type ExchangeClient = ReturnType<typeof createExchangeClient>;

/** A client of the operator API (`x-admin-token`). */
export function createAdminClient(
  options: Omit<TransportOptions, 'apiKey' | 'sessionToken'> & { adminToken: string },
) {
  return adminMethods(new Transport(options));
}

export type AdminClient = ReturnType<typeof createAdminClient>;
