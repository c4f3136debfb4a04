import type {
  BalanceRow,
  BookSnapshot,
  ConsolidatedTradeRow,
  CreateOrderResult,
  FillRow,
  Metadata,
  OrderDomain,
  OrderRow,
  PortfolioRefundResult,
  PortfolioRefundsQuery,
  PositionRow,
  TradeRow,
} from '@oddsbook/protocol';
import type { LocalAccount } from 'viem';
import { ExchangeApiError } from './errors.js';
import { type OrderParameters, type SignedOrder, signOrder } from './sign-order.js';

export type ExchangeClientOptions = {
  /** e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  apiKey?: string;
  /** A browser session token (`POST /auth/siwe/verify`), sent as `Authorization: Bearer`. */
  sessionToken?: string;
  /** The EOA that signs orders; needed by `placeOrders` with unsigned parameters. */
  account?: LocalAccount;
  fetch?: typeof fetch;
};

export type AccountApiKey = {
  keyId: string;
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
};

/** `POST /user/multisig/add-signer/prepare`: sign `typedData` as it is (EIP-712). */
export type PreparedSafeTx = {
  safeTxHash: `0x${string}`;
  safeTransactionData: Record<string, unknown>;
  typedData: {
    domain: { chainId: number; verifyingContract: `0x${string}` };
    types: Record<string, { name: string; type: string }[]>;
    primaryType: string;
    message: Record<string, unknown>;
  };
};

export type SafeTxProgress = {
  safeTxHash: string;
  confirmedBy: string[];
  signedCount: number;
  requiredThreshold: number;
  isReadyToExecute: boolean;
  isExecuted: boolean;
  executionTxHash: string | null;
};

type Query = Record<string, string | number | boolean | undefined>;
type Page<K extends string, T> = { [key in K]: T[] } & { nextKey: string | null };

/**
 * A typed client for the oddsbook REST API. Every method returns `data` of the `{status, data}`
 * envelope and throws `ExchangeApiError` on any non-2xx answer.
 */
/** Paging of the listings: `nextKey` from the previous page continues after its last row. */
type PageQuery = { sortAsc?: boolean; perPage?: number; nextKey?: string };
type DateRange = { startDate?: string; endDate?: string };

export function createExchangeClient(options: ExchangeClientOptions) {
  const doFetch = options.fetch ?? fetch;
  let metadata: Metadata | undefined;

  async function request<T>(
    method: string,
    path: string,
    init: { query?: Query; body?: unknown } = {},
  ): Promise<T> {
    const query = Object.entries(init.query ?? {}).filter(([, v]) => v !== undefined);
    const url = `${options.baseUrl}${path}${query.length ? `?${new URLSearchParams(query.map(([k, v]): [string, string] => [k, String(v)]))}` : ''}`;
    const response = await doFetch(url, {
      method,
      headers: {
        ...(options.apiKey ? { 'x-svc-api-key': options.apiKey } : {}),
        ...(options.sessionToken ? { authorization: `Bearer ${options.sessionToken}` } : {}),
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await response.text();
    const body = text ? JSON.parse(text) : null;
    if (!response.ok) throw new ExchangeApiError(response.status, body, response.headers.get('x-request-id'));
    return (body?.data ?? body) as T;
  }

  const getMetadata = async () => (metadata ??= await request<Metadata>('GET', '/metadata/obv3'));

  return {
    request,
    getMetadata,
    async getOrderDomain(): Promise<OrderDomain> {
      return (await getMetadata()).domain as OrderDomain;
    },
    /** Signs (when given parameters) and posts 1 to 10 orders. */
    async placeOrders(
      orders: readonly (OrderParameters | SignedOrder)[] | readonly Omit<OrderParameters, 'baseToken'>[],
      opts: { waitForOutcome?: boolean; maxWaitTime?: number } = {},
    ): Promise<CreateOrderResult[]> {
      const meta = await getMetadata();
      const signed = await Promise.all(
        orders.map(async (o) => {
          if ('orderSignature' in o) return o;
          if (!options.account) throw new TypeError('an account is needed to sign orders');
          return signOrder(
            options.account,
            meta.domain as OrderDomain,
            { baseToken: meta.activeAsset.baseToken as `0x${string}`, ...o },
            meta.oddsLadderStepSize,
          );
        }),
      );
      return (
        await request<{ orders: CreateOrderResult[] }>('POST', '/orders-v3', {
          body: { orders: signed, ...opts },
        })
      ).orders;
    },
    listOrders: (query: PageQuery & { marketHash?: string; eventId?: string; sortBy?: string } = {}) =>
      request<Page<'orders', OrderRow>>('GET', '/orders-v3', { query }),
    getOrder: (orderId: string) => request<OrderRow>('GET', `/orders-v3/${orderId}`),
    getOrderByClientId: (clientOrderId: string) =>
      request<OrderRow>('GET', `/orders-v3/client/${encodeURIComponent(clientOrderId)}`),
    cancelOrders: (orderIds: readonly string[]) =>
      request<{
        cancelled: { orderId: string; commandId: string }[];
        notCancelled: { orderId: string; reason: string }[];
        unconfirmed: { orderId: string; reason: string }[];
      }>('DELETE', '/orders-v3', { body: { orders: orderIds.map((orderId) => ({ orderId })) } }),
    cancelMarket: (marketHash: string) => request('DELETE', '/orders-v3/market', { query: { marketHash } }),
    cancelEvent: (eventId: string) => request('DELETE', '/orders-v3/event', { query: { eventId } }),
    cancelAll: () => request('DELETE', '/orders-v3/all'),
    listFills: (query: PageQuery & DateRange & { orderId?: string; tradeId?: string } = {}) =>
      request<Page<'fills', FillRow>>('GET', '/fills-v3', { query }),
    listTrades: (query: PageQuery & DateRange & { marketHash?: string; status?: string } = {}) =>
      request<Page<'trades', TradeRow>>('GET', '/trades-v3', { query }),
    /**
     * Trades with each quarter-line bet's synthetic parent beside its two legs; `hideQuarterLineLegs` for a
     * portfolio (one row per bet), `hideQuarterLineParents` for the legs only.
     */
    listConsolidatedTrades: (
      query: PageQuery &
        DateRange & {
          marketHash?: string;
          hideQuarterLineParents?: boolean;
          hideQuarterLineLegs?: boolean;
        } = {},
    ) => request<Page<'trades', ConsolidatedTradeRow>>('GET', '/trades-v3/consolidated', { query }),
    /** Open positions: stakes and pots per outcome, guaranteed receipt, refunded so far, max loss. */
    listPositions: (query: Omit<PageQuery, 'sortAsc'> & { marketHash?: string; eventId?: string } = {}) =>
      request<Page<'positions', PositionRow>>('GET', '/positions-v3', { query }),
    /**
     * The key's own capital-efficiency refunds, per market (legacy shape; `page` from 0 over markets,
     * `eventsPage` over each market's events, `eventCount` how many match). `bettor` defaults to the
     * client's `account`; another bettor is refused (403 BETTOR_MISMATCH).
     */
    listRefunds: (query: Omit<PortfolioRefundsQuery, 'bettor'> & { bettor?: string } = {}) =>
      request<{ results: PortfolioRefundResult[]; count: number }>('GET', '/trades/portfolio/refunds', {
        query: { ...query, bettor: query.bettor ?? options.account?.address },
      }),
    getOrderBook: (marketHash: string, showTakerPerspective = false) =>
      request<BookSnapshot>('GET', '/orderbook-v3/snapshot', { query: { marketHash, showTakerPerspective } }),
    getBalance: async () =>
      (await request<{ balances: BalanceRow[] }>('GET', '/user/balance-v3')).balances[0]!,
    deployProxy: () =>
      request<{ proxy: string; deployed: boolean; pending: boolean }>('POST', '/user/deploy-proxy'),
    getProxy: () => request<{ proxy: string; deployed: boolean; pending: boolean }>('GET', '/user/proxy'),
    heartbeat: (timeoutSeconds: number) =>
      request<{ timeoutSeconds: number; expiresAt: string | null }>('POST', '/heartbeat/v3', {
        body: { timeoutSeconds },
      }),
    realtimeToken: async () =>
      (await request<{ token: string }>('GET', '/user/realtime-token-v3/api-key')).token,
    prepareAddSigner: (body: { safeAddress: string; newSignerAddress: string; threshold?: number }) =>
      request<PreparedSafeTx>('POST', '/user/multisig/add-signer/prepare', { body }),
    executeAddSigner: (body: {
      safeAddress: string;
      safeTxHash: string;
      safeTransactionData: unknown;
      signature: string;
      signerAddress: string;
    }) => request<SafeTxProgress>('POST', '/user/multisig/add-signer/execute', { body }),
    /** Sign-In with Ethereum: a single-use nonce for the message. */
    siweNonce: () =>
      request<{ nonce: string; expiresAt: string; chainId: number }>('POST', '/auth/siwe/nonce'),
    /** Sign-In with Ethereum: the signed message opens a session (its token goes in `sessionToken`). */
    siweVerify: (message: string, signature: string) =>
      request<{ sessionToken: string; address: `0x${string}`; expiresAt: string }>(
        'POST',
        '/auth/siwe/verify',
        {
          body: { message, signature },
        },
      ),
    getSession: () => request<{ address: `0x${string}`; expiresAt: string }>('GET', '/auth/session'),
    signOut: () => request<{ ended: boolean }>('DELETE', '/auth/session'),
    listApiKeys: () => request<{ keys: AccountApiKey[]; maxActiveKeys: number }>('GET', '/account/api-keys'),
    createApiKey: (label?: string) =>
      request<AccountApiKey & { apiKey: string }>('POST', '/account/api-keys', {
        body: label ? { label } : {},
      }),
    revokeApiKey: (keyId: string) =>
      request<{ keyId: string; revokedAt: string }>(
        'DELETE',
        `/account/api-keys/${encodeURIComponent(keyId)}`,
      ),
  };
}

export type ExchangeClient = ReturnType<typeof createExchangeClient>;
