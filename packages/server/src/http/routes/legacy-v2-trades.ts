import {
  Envelope,
  LegacyFailureBodySchema,
  V2ConsolidatedTradesPage,
  V2ConsolidatedTradesQuery,
  V2TradeOrdersQuery,
  V2TradeRow,
  V2TradesPage,
  V2TradesQuery,
} from '@oddsbook/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { getAddress } from 'viem';
import { AppError, LegacyError } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { v2ConsolidatedRow, v2TradeRow } from '../../legacy/v2-wire.js';
import { consolidatedTradeListing, tradeListing } from '../../store/trading-reads.js';
import { success } from '../envelope.js';
import { errorResponse, errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';
import { readPage } from '../page-key.js';
import { answerInLegacyShape } from './legacy-v2-orders.js';

const tags = ['legacy v2'];
const failure = errorResponse(400, LegacyFailureBodySchema);
const HASH = /^0x[0-9a-fA-F]{64}$/;
/** At most this many hashes in a `marketHashes` or `orderHashes` list. */
const MAX_HASHES = 100;

/** A comma-separated list of 32-byte hashes, lower-cased; `BAD_BODY` past `MAX_HASHES` or malformed. */
function hashList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const hashes = [...new Set(value.split(',').map((h) => h.trim().toLowerCase()))];
  if (hashes.length === 0 || hashes.length > MAX_HASHES || !hashes.every((h) => HASH.test(h)))
    throw new LegacyError('BAD_BODY');
  return hashes;
}

/**
 * A page read with a key this listing did not hand out is BAD_PAGINATION_KEY in the legacy shape (the
 * shared pager answers BAD_NEXT_KEY).
 */
async function legacyPage<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof AppError && error.code === 'BAD_NEXT_KEY')
      throw new LegacyError('BAD_PAGINATION_KEY');
    throw error;
  }
}

/**
 * The legacy v2 trade-history routes (issue 38, docs/legacy.md): public, as in v2. From V2_HISTORY_REMOVED_AT
 * they answer 404 as a route that no longer exists.
 */
export async function legacyTradeRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  const { legacy, trading, config } = exchange;
  answerInLegacyShape(app);
  const removed = (_request: FastifyRequest, reply: FastifyReply, done: (e?: Error) => void) => {
    if (legacy.historyOpen) return done();
    reply.callNotFound();
  };
  const baseToken = config.baseToken;

  app.get(
    '/trades',
    {
      onRequest: removed,
      schema: {
        summary: 'Trades by bettor, markets, event or time (legacy)',
        description:
          'At least one of bettor, marketHashes, sportXeventId, startDate (unix seconds). Newest first, ' +
          'paged by paginationKey (nextKey of the previous page). 404 from V2_HISTORY_REMOVED_AT.',
        tags,
        querystring: V2TradesQuery,
        response: { 200: Envelope(V2TradesPage), 400: failure, ...errorResponses(404, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      if (
        q.bettor === undefined &&
        q.marketHashes === undefined &&
        q.sportXeventId === undefined &&
        q.startDate === undefined
      )
        throw new LegacyError('TRADES_FILTER_REQUIRED');
      const marketHashes = hashList(q.marketHashes);
      const pageSize = q.pageSize ?? 100;
      if (q.baseToken !== undefined && q.baseToken.toLowerCase() !== baseToken.toLowerCase())
        return success({ trades: [], nextKey: null, pageSize, count: 0 });
      const listing = tradeListing(false, 'public');
      const page = await legacyPage(() =>
        readPage(q.paginationKey, pageSize, listing, (range) =>
          trading.queries.marketTrades(
            {
              ...(q.bettor !== undefined ? { account: getAddress(q.bettor) } : {}),
              ...(marketHashes ? { marketHashes } : {}),
              ...(q.sportXeventId !== undefined ? { eventId: q.sportXeventId } : {}),
              ...(q.startDate !== undefined ? { startDate: q.startDate * 1000 } : {}),
              ...(q.endDate !== undefined ? { endDate: q.endDate * 1000 + 999 } : {}),
            },
            listing,
            range,
          ),
        ),
      );
      // `maker` and `settled` narrow the page itself (a page may then hold fewer than pageSize rows).
      const trades = page.rows
        .map((t) => v2TradeRow(t, baseToken))
        .filter(
          (t) =>
            (q.maker === undefined || t.maker === q.maker) &&
            (q.settled === undefined || t.settled === q.settled),
        );
      return success({ trades, nextKey: page.nextKey, pageSize, count: trades.length });
    },
  );

  app.get(
    '/trades/orders',
    {
      onRequest: removed,
      schema: {
        summary: 'The trades of some orders (legacy)',
        description:
          'orderHashes (comma-separated, at most 100): each order’s bets. 404 from V2_HISTORY_REMOVED_AT.',
        tags,
        querystring: V2TradeOrdersQuery,
        response: {
          200: Envelope(Type.Object({ trades: Type.Array(V2TradeRow) })),
          400: failure,
          ...errorResponses(404, 429),
        },
      },
    },
    async (request) => {
      const orderIds = hashList(request.query.orderHashes)!;
      const trades = await trading.queries.marketTrades({ orderIds }, tradeListing(true, 'public'), {
        limit: 1_000,
        after: null,
      });
      return success({ trades: trades.map((t) => v2TradeRow(t, baseToken)) });
    },
  );

  app.get(
    '/trades/consolidated',
    {
      onRequest: removed,
      schema: {
        summary: 'A bettor’s consolidated trades, quarter-line parents beside their legs (legacy)',
        description:
          'hideQuarterLineParents returns only legs, hideQuarterLineLegs only parents; offset paged by ' +
          'page and perPage. 404 from V2_HISTORY_REMOVED_AT.',
        tags,
        querystring: V2ConsolidatedTradesQuery,
        response: { 200: Envelope(V2ConsolidatedTradesPage), 400: failure, ...errorResponses(404, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      const account = getAddress(q.bettor);
      const perPage = q.perPage ?? 100;
      const skip = (q.page ?? 0) * perPage;
      const rows = await trading.queries.consolidatedTrades(
        account,
        {
          ...(q.hideQuarterLineParents ? { hideQuarterLineParents: true } : {}),
          ...(q.hideQuarterLineLegs ? { hideQuarterLineLegs: true } : {}),
        },
        consolidatedTradeListing(false),
        { limit: skip + perPage, after: null },
      );
      const trades = rows
        .slice(skip)
        .map((r) => v2ConsolidatedRow(r, baseToken))
        .filter((t) => q.settled === undefined || t.settled === q.settled);
      return success({ trades, count: trades.length });
    },
  );
}
