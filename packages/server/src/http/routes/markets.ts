import {
  ActiveMarketsPage,
  Envelope,
  ErrorBodySchema,
  ErrorCode,
  LegacyFailureBodySchema,
  Market,
} from '@oddsbook/protocol';
import { Type } from 'typebox';
import { CATALOG_LIMITS } from '../../catalog/catalog-service.js';
import { marketToWire } from '../../catalog/wire.js';
import { LegacyError } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { success } from '../envelope.js';
import { errorResponse, errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';
import { EventId, IntegerList, parseIntegerList } from './catalog-query.js';

const HASH = /^0x[0-9a-fA-F]{64}$/;

/** 1 to 30 distinct 32-byte hashes, else the legacy `BAD_MARKET_HASHES` failure. */
function parseMarketHashes(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  const hashes = [...new Set(text.split(',').map((h) => h.trim().toLowerCase()))];
  if (
    text.trim() === '' ||
    hashes.length > CATALOG_LIMITS.findMarketHashes ||
    !hashes.every((h) => HASH.test(h))
  )
    throw new LegacyError(ErrorCode.BAD_MARKET_HASHES);
  return hashes;
}

/** Market discovery routes (legacy shapes kept in v3): active, find, popular. */
export async function marketRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  const { catalog } = exchange;
  const tags = ['market data'];

  app.get(
    '/markets/active',
    {
      schema: {
        summary: 'List active markets',
        description: 'Keyset paged: pass the previous page’s nextKey as paginationKey.',
        tags,
        querystring: Type.Object({
          onlyMainLine: Type.Optional(Type.Boolean()),
          eventId: Type.Optional(EventId),
          leagueId: Type.Optional(Type.Integer({ minimum: 1 })),
          sportIds: Type.Optional(IntegerList),
          liveOnly: Type.Optional(Type.Boolean()),
          type: Type.Optional(IntegerList),
          paginationKey: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
          pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: CATALOG_LIMITS.marketsPageSize })),
        }),
        response: { 200: Envelope(ActiveMarketsPage), ...errorResponses(400, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await catalog.activeMarkets({
        ...(q.onlyMainLine !== undefined ? { onlyMainLine: q.onlyMainLine } : {}),
        ...(q.eventId !== undefined ? { eventId: q.eventId } : {}),
        ...(q.leagueId !== undefined ? { leagueId: q.leagueId } : {}),
        ...(q.sportIds !== undefined ? { sportIds: parseIntegerList(q.sportIds) } : {}),
        ...(q.liveOnly !== undefined ? { liveOnly: q.liveOnly } : {}),
        ...(q.type !== undefined ? { types: parseIntegerList(q.type) } : {}),
        ...(q.paginationKey !== undefined ? { paginationKey: q.paginationKey } : {}),
        ...(q.pageSize !== undefined ? { pageSize: q.pageSize } : {}),
      });
      return success({ markets: page.markets.map(marketToWire), nextKey: page.nextKey });
    },
  );

  app.get(
    '/markets/find',
    {
      schema: {
        summary: 'Find markets by hash (legacy shape)',
        description: 'A bad hash list is 400 in the legacy shape {status: "failure", errorCode}.',
        tags,
        querystring: Type.Object({
          marketHashes: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
        }),
        response: {
          200: Envelope(Type.Array(Market)),
          400: errorResponse(400, Type.Union([LegacyFailureBodySchema, ErrorBodySchema])),
          ...errorResponses(429),
        },
      },
    },
    async (request) => {
      const hashes = parseMarketHashes(request.query.marketHashes);
      return success((await catalog.findMarkets(hashes)).map(marketToWire));
    },
  );

  app.get(
    '/markets/popular',
    {
      schema: {
        summary: 'List popular markets',
        tags,
        response: { 200: Envelope(Type.Array(Market)), ...errorResponses(429) },
      },
    },
    async () => success((await catalog.popularMarkets()).map(marketToWire)),
  );
}
