import {
  BookSnapshot,
  Bytes32,
  ConsolidatedTradeRow,
  Envelope,
  FILL_STATUSES,
  FillRow,
  HeartbeatBody,
  HeartbeatResult,
  PositionRow,
  PublicTradeRow,
  TradeRow,
} from '@oddsbook/protocol';
import { Type } from 'typebox';
import { badRequest, notFound } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { bookToWire } from '../../orders/book.js';
import {
  consolidatedTradeToWire,
  fillToWire,
  positionToWire,
  publicTradeToWire,
  tradeToWire,
} from '../../orders/wire.js';
import {
  consolidatedTradeListing,
  fillListing,
  POSITION_LISTING,
  tradeListing,
} from '../../store/trading-reads.js';
import { success } from '../envelope.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';
import { NextKeyQuery, readPage } from '../page-key.js';
import { EventId } from './catalog-query.js';

const security = [{ apiKey: [] }];
const NextKey = Type.Union([Type.String(), Type.Null()]);
const IsoDate = Type.String({ format: 'date-time', description: 'ISO-8601' });

/** ISO dates in, ms out; `end` must not be before `start`. */
function dateRange(q: { startDate?: string; endDate?: string }) {
  const startDate = q.startDate === undefined ? undefined : Date.parse(q.startDate);
  const endDate = q.endDate === undefined ? undefined : Date.parse(q.endDate);
  if (startDate !== undefined && endDate !== undefined && endDate < startDate) {
    throw badRequest('INVALID_DATE_RANGE', 'endDate must not be earlier than startDate');
  }
  return { ...(startDate !== undefined ? { startDate } : {}), ...(endDate !== undefined ? { endDate } : {}) };
}

/** Fills and trades of the account (API key). */
export async function accountTradingRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  const { trading } = exchange;

  app.get(
    '/fills-v3',
    {
      schema: {
        summary: 'List the account’s fills',
        description: 'One row per match; keyset paged by nextKey.',
        tags: ['fills'],
        security,
        querystring: Type.Object({
          tradeId: Type.Optional(Type.String({ maxLength: 80 })),
          orderId: Type.Optional(Type.String({ maxLength: 80 })),
          startDate: Type.Optional(IsoDate),
          endDate: Type.Optional(IsoDate),
          sortAsc: Type.Optional(Type.Boolean()),
          perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
          nextKey: Type.Optional(NextKeyQuery),
        }),
        response: {
          200: Envelope(Type.Object({ fills: Type.Array(FillRow), nextKey: NextKey })),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const perPage = q.perPage ?? 50;
      const listing = fillListing(q.sortAsc ?? true);
      const page = await readPage(q.nextKey, perPage, listing, (range) =>
        trading.queries.fills(
          request.account,
          {
            ...(q.tradeId ? { tradeId: q.tradeId.toLowerCase() } : {}),
            ...(q.orderId ? { orderId: q.orderId.toLowerCase() } : {}),
            ...dateRange(q),
          },
          listing,
          range,
        ),
      );
      return success({ fills: page.rows.map(fillToWire), nextKey: page.nextKey });
    },
  );

  app.get(
    '/trades-v3',
    {
      schema: {
        summary: 'List the account’s trades (bets)',
        description:
          'One row per order’s fills together; keyset paged by nextKey. A quarter-line bet has one trade ' +
          'per leg (isQuarterLineLeg, on the leg market); marketHash of a quarter-line market lists the ' +
          'trades on its legs.',
        tags: ['trades'],
        security,
        querystring: Type.Object({
          marketHash: Type.Optional(Bytes32),
          status: Type.Optional(
            Type.String({ maxLength: 60, description: 'comma-separated: MATCHED,LOCKED,SETTLED,FAILED' }),
          ),
          startDate: Type.Optional(IsoDate),
          endDate: Type.Optional(IsoDate),
          sortAsc: Type.Optional(Type.Boolean()),
          perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
          nextKey: Type.Optional(NextKeyQuery),
        }),
        response: {
          200: Envelope(Type.Object({ trades: Type.Array(TradeRow), nextKey: NextKey })),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const statuses = q.status ? q.status.split(',').map((s) => s.trim().toUpperCase()) : [];
      if (!statuses.every((s) => (FILL_STATUSES as readonly string[]).includes(s))) {
        throw badRequest('INVALID_STATUS', `status must be among ${FILL_STATUSES.join(', ')}`);
      }
      const perPage = q.perPage ?? 50;
      const listing = tradeListing(q.sortAsc ?? true);
      const page = await readPage(q.nextKey, perPage, listing, (range) =>
        trading.queries.trades(
          request.account,
          {
            ...(q.marketHash ? { marketHash: q.marketHash.toLowerCase() } : {}),
            status: statuses,
            ...dateRange(q),
          },
          listing,
          range,
        ),
      );
      return success({ trades: page.rows.map(tradeToWire), nextKey: page.nextKey });
    },
  );

  app.get(
    '/trades-v3/consolidated',
    {
      schema: {
        summary: 'List the account’s trades with quarter-line bets consolidated',
        description:
          'The trades of /trades-v3, and for each quarter-line bet a synthetic parent beside its two leg ' +
          'trades (isQuarterLineParent; the legs point at it by quarterLineFillHash): count parents or legs, ' +
          'never both. hideQuarterLineParents leaves the parents out, hideQuarterLineLegs the legs. By time, ' +
          'keyset paged by nextKey.',
        tags: ['trades'],
        security,
        querystring: Type.Object({
          marketHash: Type.Optional(Bytes32),
          hideQuarterLineParents: Type.Optional(Type.Boolean()),
          hideQuarterLineLegs: Type.Optional(Type.Boolean()),
          startDate: Type.Optional(IsoDate),
          endDate: Type.Optional(IsoDate),
          sortAsc: Type.Optional(Type.Boolean()),
          perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
          nextKey: Type.Optional(NextKeyQuery),
        }),
        response: {
          200: Envelope(Type.Object({ trades: Type.Array(ConsolidatedTradeRow), nextKey: NextKey })),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const listing = consolidatedTradeListing(q.sortAsc ?? true);
      const page = await readPage(q.nextKey, q.perPage ?? 50, listing, (range) =>
        trading.queries.consolidatedTrades(
          request.account,
          {
            ...(q.marketHash ? { marketHash: q.marketHash.toLowerCase() } : {}),
            ...(q.hideQuarterLineParents ? { hideQuarterLineParents: true } : {}),
            ...(q.hideQuarterLineLegs ? { hideQuarterLineLegs: true } : {}),
            ...dateRange(q),
          },
          listing,
          range,
        ),
      );
      return success({ trades: page.rows.map(consolidatedTradeToWire), nextKey: page.nextKey });
    },
  );

  app.get(
    '/positions-v3',
    {
      schema: {
        summary: 'List the account’s open positions',
        description:
          'One row per market not yet resolved: stake and potential payout per outcome, the guaranteed ' +
          'receipt min(pot one, pot two, stakes), what capital efficiency has refunded of it, and the most ' +
          'it can still lose (stakes - guaranteed receipt). Amounts in base units; by marketHash, paged by nextKey.',
        tags: ['positions'],
        security,
        querystring: Type.Object({
          marketHash: Type.Optional(Bytes32),
          eventId: Type.Optional(EventId),
          perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
          nextKey: Type.Optional(NextKeyQuery),
        }),
        response: {
          200: Envelope(Type.Object({ positions: Type.Array(PositionRow), nextKey: NextKey })),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await readPage(q.nextKey, q.perPage ?? 50, POSITION_LISTING, (range) =>
        trading.queries.positions(
          request.account,
          {
            ...(q.marketHash ? { marketHash: q.marketHash.toLowerCase() } : {}),
            ...(q.eventId ? { eventId: q.eventId } : {}),
          },
          range,
        ),
      );
      return success({ positions: page.rows.map(positionToWire), nextKey: page.nextKey });
    },
  );

  app.post(
    '/heartbeat/v3',
    {
      schema: {
        summary: 'Arm, refresh or disarm the cancel-all heartbeat',
        description:
          'When the timer lapses every open order of the account is cancelled (HEARTBEAT_TIMEOUT); 0 disarms.',
        tags: ['heartbeat'],
        security,
        body: HeartbeatBody,
        response: { 200: Envelope(HeartbeatResult), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { timeoutSeconds } = request.body;
      const state = await trading.heartbeat(request.account, timeoutSeconds);
      return success({
        timeoutSeconds: state.timeoutSeconds,
        expiresAt: state.expiresAt === null ? null : new Date(state.expiresAt).toISOString(),
      });
    },
  );
}

/** Public market activity: the order book and the anonymous trade tape. */
export async function publicTradingRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  const { trading } = exchange;

  app.get(
    '/orderbook-v3/snapshot',
    {
      schema: {
        summary: 'Order book snapshot of a market',
        description: 'Levels aggregated, best first, maker frame unless showTakerPerspective.',
        tags: ['book'],
        querystring: Type.Object({
          marketHash: Bytes32,
          showTakerPerspective: Type.Optional(Type.Boolean()),
        }),
        response: { 200: Envelope(BookSnapshot), ...errorResponses(400, 404, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      const marketHash = q.marketHash.toLowerCase();
      // A parlay's offers show once its quote window has closed (docs/parlays.md).
      let levels = trading.sequencer.publicBook(marketHash, exchange.clock.now());
      if (!levels) {
        // A catalog market nobody has traded yet has an empty book.
        const market = await exchange.catalog.getMarket(marketHash);
        if (!market) throw notFound('MARKET_NOT_FOUND', 'no market with that hash');
        levels = { marketHash, eventId: market.eventId, outcomeOne: [], outcomeTwo: [], version: 0 };
      }
      return {
        status: 'success' as const,
        data: bookToWire(levels, {
          takerPerspective: q.showTakerPerspective ?? false,
          ladderSize: trading.sequencer.ladderSize,
        }),
      };
    },
  );

  app.get(
    '/trades-v3/public',
    {
      schema: {
        summary: 'Public trade tape',
        description: 'Taker bets, newest first, without identities; keyset paged by nextKey.',
        tags: ['trades'],
        querystring: Type.Object({
          marketHash: Type.Optional(Bytes32),
          perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
          nextKey: Type.Optional(NextKeyQuery),
        }),
        response: {
          200: Envelope(Type.Object({ trades: Type.Array(PublicTradeRow), nextKey: NextKey })),
          ...errorResponses(400, 429),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const perPage = q.perPage ?? 50;
      const listing = tradeListing(false, 'public');
      const page = await readPage(q.nextKey, perPage, listing, (range) =>
        trading.queries.publicTrades(
          q.marketHash ? { marketHash: q.marketHash.toLowerCase() } : {},
          listing,
          range,
        ),
      );
      return success({ trades: page.rows.map(publicTradeToWire), nextKey: page.nextKey });
    },
  );
}
