import {
  DEFAULT_REFUND_EVENTS_PER_MARKET,
  LegacyFailureBodySchema,
  MAX_REFUND_EVENTS_PER_ANSWER,
  PortfolioRefundResult,
  PortfolioRefundsQuery,
} from '@oddsbook/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { getAddress } from 'viem';
import { API_KEY_HEADER } from '../../auth/api-keys.js';
import { LegacyError } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { marketRefundsToWire } from '../../orders/wire.js';
import { errorResponse, errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

/** The legacy error code of a bad query parameter. */
const BAD_PARAMETER: Record<keyof PortfolioRefundsQuery, string> = {
  bettor: 'BAD_BETTOR',
  marketHash: 'BAD_MARKET_HASH',
  baseToken: 'BAD_BASE_TOKEN',
  fillOrderHash: 'BAD_FILL_ORDER_HASH',
  maker: 'BAD_MAKER',
  sortAsc: 'BAD_SORT_ASC',
  page: 'BAD_PAGE',
  perPage: 'BAD_PER_PAGE',
  eventsPage: 'BAD_EVENTS_PAGE',
  eventsPerPage: 'BAD_EVENTS_PER_PAGE',
};

/** A failed query validation as the legacy failure of its first bad parameter. */
function legacyValidationError(error: NonNullable<FastifyRequest['validationError']>): LegacyError {
  const [issue] = (error as { validation?: { instancePath?: string; params?: Record<string, unknown> }[] })
    .validation ?? [{}];
  const field = String(issue?.params?.missingProperty ?? issue?.instancePath?.split('/')[1] ?? '');
  return new LegacyError(BAD_PARAMETER[field as keyof PortfolioRefundsQuery] ?? 'BAD_QUERY');
}

const legacyFailure = LegacyFailureBodySchema;

/**
 * `GET /trades/portfolio/refunds` (legacy v2 shape): the key's own capital-efficiency refunds, one result
 * per market, offset paged over the markets (ordered by each market's first matching refund) and over
 * each market's events. Like `ce_refunds:{bettor}`, only the bettor sees them: `bettor` must be the
 * account of the API key (401 without a valid key, 403 for another bettor, both in the legacy shape).
 */
export async function portfolioRefundRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  const { trading, config, apiKeys } = exchange;

  app.get(
    '/trades/portfolio/refunds',
    {
      attachValidation: true,
      // Before the query is validated, as on every authenticated route; answered in the legacy shape.
      onRequest: (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
        const value = request.headers[API_KEY_HEADER];
        const auth = apiKeys.authenticate(Array.isArray(value) ? value[0] : value);
        if (!auth) return done(new LegacyError('BAD_AUTH', 401));
        request.account = auth.address;
        done();
      },
      schema: {
        summary: 'The key’s own capital-efficiency refunds per market (legacy shape)',
        description:
          'Each result is a market with what it has refunded the bettor so far (totalRefunded, base units), ' +
          'one page of the refunds matching the filters (eventsPage, eventsPerPage) and how many match ' +
          '(eventCount); count is the number of such markets. At most 5,000 events per answer ' +
          '(perPage x eventsPerPage). Only the bettor’s own API key may ask (401 BAD_AUTH without one, ' +
          '403 BETTOR_MISMATCH for another bettor). A bad parameter is 400 in the legacy shape ' +
          '{status: "failure", errorCode}.',
        tags: ['trades'],
        security: [{ apiKey: [] }],
        querystring: PortfolioRefundsQuery,
        response: {
          200: Type.Object({
            status: Type.Literal('success'),
            data: Type.Object({
              results: Type.Array(PortfolioRefundResult),
              count: Type.Integer({ minimum: 0 }),
            }),
          }),
          400: errorResponse(400, legacyFailure),
          401: errorResponse(401, legacyFailure),
          403: errorResponse(403, legacyFailure),
          ...errorResponses(429),
        },
      },
    },
    async (request) => {
      if (request.validationError) throw legacyValidationError(request.validationError);
      const q = request.query;
      if (getAddress(q.bettor) !== request.account) throw new LegacyError('BETTOR_MISMATCH', 403);
      const perPage = q.perPage ?? 100;
      const fits = Math.floor(MAX_REFUND_EVENTS_PER_ANSWER / perPage);
      const eventsPerPage = q.eventsPerPage ?? Math.min(DEFAULT_REFUND_EVENTS_PER_MARKET, fits);
      if (eventsPerPage > fits) throw new LegacyError('BAD_EVENTS_PER_PAGE');
      if (q.baseToken !== undefined && q.baseToken.toLowerCase() !== config.baseToken.toLowerCase()) {
        // One base token on this exchange: refunds in another are none.
        return { status: 'success' as const, data: { results: [], count: 0 } };
      }
      const { markets, count } = await trading.queries.refunds(
        request.account,
        {
          ...(q.marketHash ? { marketHash: q.marketHash.toLowerCase() } : {}),
          ...(q.fillOrderHash ? { fillId: q.fillOrderHash } : {}),
          ...(q.maker !== undefined ? { maker: q.maker } : {}),
        },
        {
          sortAsc: q.sortAsc ?? false,
          offset: (q.page ?? 0) * perPage,
          limit: perPage,
          eventsOffset: (q.eventsPage ?? 0) * eventsPerPage,
          eventsLimit: eventsPerPage,
        },
      );
      return {
        status: 'success' as const,
        data: {
          results: markets.map((m) => ({
            ...marketRefundsToWire(m, config.baseToken),
            eventCount: m.eventCount,
          })),
          count,
        },
      };
    },
  );
}
