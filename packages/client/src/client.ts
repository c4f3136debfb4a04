import type {
  BookSnapshot,
  CreateOrderResult,
  FillRow,
  Metadata,
  OrderDomain,
  OrderRow,
  TradeRow,
} from '@oddsbook/protocol';
import type { LocalAccount } from 'viem';
import { ExchangeApiError } from './errors.js';
import { type OrderParameters, type SignedOrder, signOrder } from './sign-order.js';

export type ExchangeClientOptions = {
  /** e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  apiKey?: string;
  /** The EOA that signs orders; needed by `placeOrders` with unsigned parameters. */
  account?: LocalAccount;
  fetch?: typeof fetch;
};

type Query = Record<string, string | number | boolean | undefined>;
type Page<K extends string, T> = { [key in K]: T[] } & { nextKey: string | null };

/**
 * A typed client for the oddsbook REST API. Every method returns `data` of the `{status, data}`
 * envelope and throws `ExchangeApiError` on any non-2xx answer.
 */
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
    listOrders: (
      query: {
        marketHash?: string;
        eventId?: string;
        sortBy?: string;
        sortAsc?: boolean;
        perPage?: number;
        nextKey?: string;
      } = {},
    ) => request<Page<'orders', OrderRow>>('GET', '/orders-v3', { query }),
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
    listFills: (
      query: {
        orderId?: string;
        tradeId?: string;
        startDate?: string;
        endDate?: string;
        sortAsc?: boolean;
        perPage?: number;
        nextKey?: string;
      } = {},
    ) => request<Page<'fills', FillRow>>('GET', '/fills-v3', { query }),
    listTrades: (
      query: {
        marketHash?: string;
        status?: string;
        startDate?: string;
        endDate?: string;
        sortAsc?: boolean;
        perPage?: number;
        nextKey?: string;
      } = {},
    ) => request<Page<'trades', TradeRow>>('GET', '/trades-v3', { query }),
    getOrderBook: (marketHash: string, showTakerPerspective = false) =>
      request<BookSnapshot>('GET', '/orderbook-v3/snapshot', { query: { marketHash, showTakerPerspective } }),
    getBalance: async () =>
      (
        await request<{ balances: { availableAmount: string; escrowedAmount: string; wallet: string }[] }>(
          'GET',
          '/user/balance-v3',
        )
      ).balances[0]!,
    deployProxy: () =>
      request<{ proxy: string; deployed: boolean; pending: boolean }>('POST', '/user/deploy-proxy'),
    getProxy: () => request<{ proxy: string; deployed: boolean; pending: boolean }>('GET', '/user/proxy'),
    heartbeat: (timeoutSeconds: number) =>
      request<{ timeoutSeconds: number; expiresAt: string | null }>('POST', '/heartbeat/v3', {
        body: { timeoutSeconds },
      }),
    realtimeToken: async () =>
      (await request<{ token: string }>('GET', '/user/realtime-token-v3/api-key')).token,
  };
}

export type ExchangeClient = ReturnType<typeof createExchangeClient>;
