import { LegacyFailureBodySchema, PortfolioRefund, PortfolioRefundsQuery } from '@oddsbook/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { getAddress } from 'viem';
import { LegacyError } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange.js';
import { marketRefundsToWire } from '../../orders/wire.js';
import { errorResponse, errorResponses } from '../error-responses.js';

type Query = PortfolioRefundsQuery;

/** The legacy error code of a bad query parameter. */
const BAD_PARAMETER: Record<keyof Query, string> = {
  bettor: 'BAD_BETTOR',
  marketHash: 'BAD_MARKET_HASH',
  baseToken: 'BAD_BASE_TOKEN',
  fillOrderHash: 'BAD_FILL_ORDER_HASH',
  maker: 'BAD_MAKER',
  sortAsc: 'BAD_SORT_ASC',
  page: 'BAD_PAGE',
  perPage: 'BAD_PER_PAGE',
};

/** A failed query validation as the legacy failure of its first bad parameter. */
function legacyValidationError(error: NonNullable<FastifyRequest['validationError']>): LegacyError {
  const [issue] = (error as { validation?: { instancePath?: string; params?: Record<string, unknown> }[] })
    .validation ?? [{}];
  const field = String(issue?.params?.missingProperty ?? issue?.instancePath?.split('/')[1] ?? '');
  return new LegacyError(BAD_PARAMETER[field as keyof Query] ?? 'BAD_QUERY');
}

/**
 * `GET /trades/portfolio/refunds` (legacy v2 shape, public): a bettor's capital-efficiency refunds, one
 * result per market, offset paged over the markets (ordered by each market's first matching refund).
 */
export async function portfolioRefundRoutes(app: FastifyInstance, exchange: Exchange): Promise<void> {
  const { trading, config } = exchange;

  app.get(
    '/trades/portfolio/refunds',
    {
      attachValidation: true,
      schema: {
        summary: 'A bettor’s capital-efficiency refunds per market (legacy shape)',
        description:
          'Each result is a market with what it has refunded the bettor so far (totalRefunded, base units) ' +
          'and the refunds matching the filters; count is the number of such markets. A bad parameter is ' +
          '400 in the legacy shape {status: "failure", errorCode}.',
        tags: ['trades'],
        querystring: PortfolioRefundsQuery,
        response: {
          200: Type.Object({
            status: Type.Literal('success'),
            data: Type.Object({ results: Type.Array(PortfolioRefund), count: Type.Integer({ minimum: 0 }) }),
          }),
          400: errorResponse(400, LegacyFailureBodySchema),
          ...errorResponses(429),
        },
      },
    },
    async (request) => {
      if (request.validationError) throw legacyValidationError(request.validationError);
      const q = request.query as Query;
      if (q.baseToken !== undefined && q.baseToken.toLowerCase() !== config.baseToken.toLowerCase()) {
        // One base token on this exchange: refunds in another are none.
        return { status: 'success' as const, data: { results: [], count: 0 } };
      }
      const perPage = q.perPage ?? 100;
      const { markets, count } = trading.queries.refunds(
        getAddress(q.bettor),
        {
          ...(q.marketHash ? { marketHash: q.marketHash.toLowerCase() } : {}),
          ...(q.fillOrderHash ? { fillId: q.fillOrderHash } : {}),
          ...(q.maker !== undefined ? { maker: q.maker } : {}),
        },
        { sortAsc: q.sortAsc ?? false, offset: (q.page ?? 0) * perPage, limit: perPage },
      );
      return {
        status: 'success' as const,
        data: { results: markets.map((m) => marketRefundsToWire(m, config.baseToken)), count },
      };
    },
  );
}
