import {
  API_ROUTES,
  type CreateOrderResult,
  type CreateOrdersBody,
  type Metadata,
  type OrderDomain,
  type OrderRow,
} from '@oddsbook/protocol';
import {
  ExchangeApiError,
  ExchangeNetworkError,
  OrdersRejectedError,
  PlacementUnknownError,
} from './errors.js';
import { isTransient, type RetryOptions, retryDelay, retryPolicy, sleep } from './http/retry.js';
import type { Transport } from './http/transport.js';
import type { OrderBuilder, OrderRequest } from './order-builder.js';
import { type SignedOrder, signedOrderId } from './sign-order.js';
import type { Signer } from './signer.js';

export type PlaceOrdersOptions = {
  /** Wait for each order's outcome (up to `maxWaitTime` ms, at most 15 s). */
  waitForOutcome?: boolean;
  maxWaitTime?: number;
  /** Throw `OrdersRejectedError` when any order comes back FAILED (default: return the results). */
  rejectFailed?: boolean;
  /** Tag each order without a clientOrderId with a fresh one (default true). */
  clientOrderIds?: boolean;
  retry?: RetryOptions | false;
  signal?: AbortSignal;
  /** Called before each retry. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
};

/** A result of `placeOrders`: the exchange's, and for an order a retry found already placed, its row. */
export type PlacedOrder = CreateOrderResult & {
  /** The order was placed by an earlier attempt whose answer was lost: this is its row now. */
  order?: OrderRow;
  retried?: true;
};

/** Reasons a retry answers for an order an earlier, unanswered attempt placed. */
const ALREADY_PLACED = new Set(['ORDER_ALREADY_EXISTS', 'DUPLICATE_ORDER_ID']);

export function newClientOrderId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `sdk-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export type Placement = {
  transport: Transport;
  builder: OrderBuilder;
  getMetadata: () => Promise<Metadata>;
  signer: () => Signer | undefined;
  getOrder: (orderId: string) => Promise<OrderRow>;
};

/**
 * Posts 1 to 10 orders (signing the unsigned ones) and retries transient failures with the same signed
 * orders: the exchange knows an order by its signed digest, so a retry can never place one twice. An order
 * an earlier unanswered attempt placed comes back SUBMITTED with `retried` and its row.
 */
export async function placeOrders(
  p: Placement,
  orders: readonly (OrderRequest | SignedOrder)[],
  options: PlaceOrdersOptions = {},
): Promise<PlacedOrder[]> {
  const metadata = await p.getMetadata();
  if (orders.length === 0 || orders.length > metadata.limits.maxCreateOrders)
    throw new RangeError(
      `post 1 to ${metadata.limits.maxCreateOrders} orders per request, not ${orders.length}`,
    );
  const unsigned = orders.filter((o): o is OrderRequest => !('orderSignature' in o));
  let signed: SignedOrder[] = [];
  if (unsigned.length > 0) {
    const signer = p.signer();
    if (!signer) throw new TypeError('a signer is needed to sign orders: pass `signer` to the client');
    signed = await p.builder.sign(signer, unsigned);
  }
  let next = 0;
  const tag = options.clientOrderIds ?? true;
  const wire = orders.map((o) => {
    const order = 'orderSignature' in o ? o : signed[next++]!;
    return tag && !order.clientOrderId ? { ...order, clientOrderId: newClientOrderId() } : order;
  });
  const domain = metadata.domain as OrderDomain;
  const ids = wire.map((o) => ({
    orderId: signedOrderId(domain, o),
    ...(o.clientOrderId ? { clientOrderId: o.clientOrderId } : {}),
  }));
  const body: CreateOrdersBody = {
    orders: wire,
    ...(options.waitForOutcome !== undefined ? { waitForOutcome: options.waitForOutcome } : {}),
    ...(options.maxWaitTime !== undefined ? { maxWaitTime: options.maxWaitTime } : {}),
  };
  const post = () => postWithRetries(p, body, ids, options);
  const results = await post();
  if (options.rejectFailed) {
    const failed = results.flatMap((r, index) =>
      r.status === 'FAILED'
        ? [
            {
              index,
              orderId: r.orderId,
              reason: r.reason ?? 'UNKNOWN',
              ...(r.clientOrderId ? { clientOrderId: r.clientOrderId } : {}),
              ...(r.commandId ? { commandId: r.commandId } : {}),
            },
          ]
        : [],
    );
    if (failed.length > 0) throw new OrdersRejectedError(failed, results);
  }
  return results;
}

async function postWithRetries(
  p: Placement,
  body: CreateOrdersBody,
  ids: { orderId: `0x${string}`; clientOrderId?: string }[],
  options: PlaceOrdersOptions,
  /** An earlier call went unanswered: an order already there was placed by it. */
  again = false,
): Promise<PlacedOrder[]> {
  const policy = options.retry === undefined ? p.transport.policy : retryPolicy(options.retry);
  // waitForOutcome holds the answer up to 15 s: the request may take that long before it is late.
  const timeoutMs = body.waitForOutcome ? Math.min(body.maxWaitTime ?? 10_000, 15_000) + 15_000 : undefined;
  let unanswered = false;
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = (await p.transport.call(
        API_ROUTES.placeOrders,
        { body },
        {
          retry: false,
          ...(timeoutMs ? { timeoutMs } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        },
      )) as { orders: CreateOrderResult[] };
      return attempt === 1 && !again ? answer.orders : await recoverPlaced(p, answer.orders);
    } catch (error) {
      if (error instanceof ExchangeNetworkError) unanswered = true;
      const retriable = attempt < policy.attempts && isTransient(error, true);
      const delay = retriable ? retryDelay(error, attempt, policy) : undefined;
      if (delay === undefined) {
        if (unanswered && (error instanceof ExchangeNetworkError || isTransient(error, true)))
          throw new PlacementUnknownError(ids, () => postWithRetries(p, body, ids, options, true), {
            cause: error,
          });
        throw error;
      }
      options.onRetry?.(error, attempt, delay);
      await sleep(delay, options.signal);
    }
  }
}

/** On a retry: an order refused as already there was placed by an earlier attempt; read its row. */
async function recoverPlaced(p: Placement, results: CreateOrderResult[]): Promise<PlacedOrder[]> {
  return Promise.all(
    results.map(async (r): Promise<PlacedOrder> => {
      if (r.status !== 'FAILED' || !r.reason || !ALREADY_PLACED.has(r.reason) || !r.orderId) return r;
      const { reason: _reason, ...rest } = r;
      const placed: PlacedOrder = { ...rest, status: 'SUBMITTED', retried: true };
      const row = await readBack(p, r.orderId);
      return row ? { ...placed, order: row } : placed;
    }),
  );
}

/** The order's row; the read side may trail the answer by a moment, so a 404 is asked again briefly. */
async function readBack(p: Placement, orderId: string): Promise<OrderRow | undefined> {
  for (let i = 0; i < 10; i++) {
    try {
      return await p.getOrder(orderId);
    } catch (error) {
      if (!(error instanceof ExchangeApiError) || error.status !== 404) return undefined;
      await sleep(100);
    }
  }
  return undefined;
}
