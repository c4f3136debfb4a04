import {
  BestOdds,
  BetSizeTooLowBodySchema,
  Bytes32,
  CancelOrdersBody,
  CancelOrdersResult,
  CancelSubmittedResult,
  CLIENT_ORDER_ID_PATTERN,
  CreateOrderResult,
  CreateOrdersBody,
  EndedOrdersQuery,
  Envelope,
  ErrorBodySchema,
  OrderRow,
  OrdersPage,
  OrdersQuery,
} from '@oddsbook/protocol';
import { Type } from 'typebox';
import { EXCHANGE_LIMITS } from '../../config/limits.js';
import { badRequest, notFound } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { levelToWire } from '../../orders/book.js';
import { orderToWire } from '../../orders/wire.js';
import { type OrderScope, orderListing } from '../../store/trading-reads.js';
import { success } from '../envelope.js';
import { errorResponse, errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';
import { readPage } from '../page-key.js';
import { BODY_LIMITS } from '../plugins/json-body.js';

const security = [{ apiKey: [] }];
const tags = ['orders'];
const MAX_BEST_ODDS_MARKETS = 100;
const DEBUG_LEVELS = new Set(['debug', 'trace']);

/** Orders v3: create (make and take), read, cancel, best odds. */
export async function orderRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  const { trading } = exchange;
  const walletOf = (account: `0x${string}`) => exchange.wallets.proxyAddress(account);

  app.post(
    '/orders-v3',
    {
      bodyLimit: BODY_LIMITS.orders,
      schema: {
        summary: 'Create orders (make and take)',
        description:
          'Up to 10 signed orders of one maker. Each result is SUBMITTED or FAILED with a reason; with waitForOutcome, SUBMITTED results carry the outcome. A stake below the market minimum is 400 {message: TOTAL_BET_SIZE_TOO_LOW, marketHash, minimum}.',
        tags,
        security,
        body: CreateOrdersBody,
        response: {
          200: Envelope(Type.Object({ orders: Type.Array(CreateOrderResult) })),
          400: errorResponse(400, Type.Union([ErrorBodySchema, BetSizeTooLowBodySchema])),
          ...errorResponses(401, 429, 503),
        },
      },
    },
    async (request) => {
      const orders = await trading.orders.create(request.account, request.body);
      // A line per request, as the request lines: at debug (a market maker's re-quotes would fill the
      // terminal at info), and built only when it will be written, off the hot path.
      if (DEBUG_LEVELS.has(request.log.level)) {
        request.log.debug(
          { orders: orders.map((o) => ({ orderId: o.orderId, status: o.status, reason: o.reason })) },
          'orders submitted',
        );
      }
      return success({ orders });
    },
  );

  /** A page of the account's open or ended orders: one query for both, the ended newest first by default. */
  const listOrders = async (account: `0x${string}`, q: OrdersQuery, scope: OrderScope) => {
    const listing = orderListing(q.sortBy ?? 'createdAt', q.sortAsc ?? scope === 'open', scope);
    const filter = {
      ...(q.marketHash ? { marketHash: q.marketHash.toLowerCase() } : {}),
      ...(q.eventId ? { eventId: q.eventId } : {}),
    };
    const page = await readPage(q.nextKey, q.perPage ?? 100, listing, (range) =>
      trading.queries.orders(account, filter, listing, range),
    );
    return success({
      orders: page.rows.map((o) => orderToWire(o, walletOf(o.account))),
      nextKey: page.nextKey,
    });
  };
  const listingSchema = (
    summary: string,
    description: string,
    querystring: typeof OrdersQuery | typeof EndedOrdersQuery,
  ) => ({
    summary,
    description,
    tags,
    security,
    querystring,
    response: { 200: Envelope(OrdersPage), ...errorResponses(400, 401, 429) },
  });

  app.get(
    '/orders-v3',
    {
      schema: listingSchema(
        'List the account’s open orders',
        'PENDING and ACTIVE orders, oldest first by default. Sorted in full before paging; keyset paged by nextKey.',
        OrdersQuery,
      ),
    },
    async (request) => listOrders(request.account, request.query, 'open'),
  );

  app.get(
    '/orders-v3/ended',
    {
      schema: listingSchema(
        'List the account’s ended orders',
        'INACTIVE orders (filled, cancelled, expired, refused) with their inactiveReason, newest first by default (sortAsc false). The query of GET /orders-v3, sorted by createdAt only.',
        EndedOrdersQuery,
      ),
    },
    async (request) => listOrders(request.account, request.query, 'ended'),
  );

  app.get(
    '/orders-v3/client/:clientOrderId',
    {
      schema: {
        summary: 'Get an order by its client order id',
        description: 'Any status; 404 for a missing, unset or foreign tag.',
        tags,
        security,
        params: Type.Object({
          clientOrderId: Type.String({ minLength: 1, maxLength: 64, pattern: CLIENT_ORDER_ID_PATTERN }),
        }),
        response: { 200: Envelope(OrderRow), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { clientOrderId } = request.params;
      const order = await trading.queries.getOrderByClientId(request.account, clientOrderId);
      if (!order) throw notFound('ORDER_NOT_FOUND', 'Order not found');
      return success(orderToWire(order, walletOf(order.account)));
    },
  );

  app.get(
    '/orders-v3/odds/best',
    {
      schema: {
        summary: 'Best resting odds of markets',
        description: 'Best level per side, maker frame, for up to 100 markets.',
        tags,
        security,
        querystring: Type.Object({
          marketHashes: Type.String({ minLength: 66, maxLength: 67 * MAX_BEST_ODDS_MARKETS }),
        }),
        response: {
          200: Envelope(Type.Object({ bestOdds: Type.Array(BestOdds) })),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const hashes = [...new Set(request.query.marketHashes.split(',').map((h) => h.trim().toLowerCase()))];
      if (hashes.length > MAX_BEST_ODDS_MARKETS || !hashes.every((h) => /^0x[0-9a-f]{64}$/.test(h))) {
        throw badRequest(
          'BAD_MARKET_HASHES',
          `marketHashes must be 1 to ${MAX_BEST_ODDS_MARKETS} comma-separated 32-byte hashes`,
        );
      }
      const now = exchange.clock.now();
      const bestOdds = hashes.map((marketHash) => {
        const levels = trading.sequencer.publicBook(marketHash, now, 1);
        const best = (side: readonly { percentageOdds: bigint; size: bigint }[] | undefined) =>
          side?.[0] ? levelToWire(side[0]) : null;
        return { marketHash, outcomeOne: best(levels?.outcomeOne), outcomeTwo: best(levels?.outcomeTwo) };
      });
      return success({ bestOdds });
    },
  );

  app.get(
    '/orders-v3/:orderId',
    {
      schema: {
        summary: 'Get an order by id',
        description: 'Any status; 404 for an unknown or foreign id.',
        tags,
        security,
        params: Type.Object({ orderId: Bytes32 }),
        response: { 200: Envelope(OrderRow), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { orderId } = request.params;
      const order = await trading.queries.getOrder(request.account, orderId.toLowerCase());
      if (!order) throw notFound('ORDER_NOT_FOUND', 'Order not found');
      return success(orderToWire(order, walletOf(order.account)));
    },
  );

  app.delete(
    '/orders-v3',
    {
      bodyLimit: BODY_LIMITS.orders,
      schema: {
        summary: 'Cancel orders by id (synchronous)',
        description:
          'Answered once committed or after 5 s (then in unconfirmed). Ids not owned, gone or already cancelled come back in notCancelled.',
        tags,
        security,
        body: CancelOrdersBody,
        response: { 200: Envelope(CancelOrdersResult), ...errorResponses(400, 401, 429, 503) },
      },
    },
    async (request) => {
      const ids = request.body.orders.map((o) => o.orderId.toLowerCase());
      if (new Set(ids).size > EXCHANGE_LIMITS.maxCancelOrders) {
        throw badRequest(
          'TOO_MANY_ORDERS',
          `at most ${EXCHANGE_LIMITS.maxCancelOrders} unique order ids per request`,
        );
      }
      return success(await trading.orders.cancelByIds(request.account, ids));
    },
  );

  app.delete(
    '/orders-v3/market',
    {
      schema: {
        summary: 'Cancel every open order of a market',
        description:
          'Asynchronous: 200 means submitted. hasMore says to call again. 500 CANCEL_NOT_PUBLISHED when the cancel commands could not be published.',
        tags,
        security,
        querystring: Type.Object({ marketHash: Bytes32 }),
        response: { 200: Envelope(CancelSubmittedResult), ...errorResponses(400, 401, 429, 500, 503) },
      },
    },
    async (request) => success(await trading.orders.cancelMarket(request.account, request.query.marketHash)),
  );

  app.delete(
    '/orders-v3/event',
    {
      schema: {
        summary: 'Cancel every open order of an event',
        description: 'Asynchronous: 200 means submitted.',
        tags,
        security,
        querystring: Type.Object({ eventId: Type.String({ minLength: 2, maxLength: 64 }) }),
        response: { 200: Envelope(CancelSubmittedResult), ...errorResponses(400, 401, 429, 503) },
      },
    },
    async (request) => success(await trading.orders.cancelEvent(request.account, request.query.eventId)),
  );

  app.delete(
    '/orders-v3/all',
    {
      schema: {
        summary: 'Cancel every open order of the account',
        description: 'Asynchronous: 200 means submitted.',
        tags,
        security,
        response: { 200: Envelope(CancelSubmittedResult), ...errorResponses(401, 429, 503) },
      },
    },
    async (request) => success(await trading.orders.cancelAll(request.account)),
  );
}
