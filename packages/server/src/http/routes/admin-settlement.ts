import { Bytes32, Envelope, Market } from '@oddsbook/protocol';
import { Type } from 'typebox';
import { quarterLineNotResolvable } from '../../catalog/catalog-service.js';
import { marketToWire } from '../../catalog/wire.js';
import { conflict, notFound } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

/**
 * `POST /admin/markets/{marketHash}/resolve {outcome}`: the market's result. Open orders are cancelled
 * (`EVENT_LIFECYCLE`), each pot goes to the winner (0 voids: both stakes back), trades become SETTLED and
 * the payouts leave escrow on the chain. A quarter-line market is not resolved itself: its legs are.
 */
export async function adminSettlementRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  app.post(
    '/admin/markets/:marketHash/resolve',
    {
      schema: {
        summary: 'Resolve a market and pay out its trades',
        description:
          'Outcome 1 or 2, or 0 for void (every stake refunded). 409 when already resolved, and for a ' +
          'quarter-line market (QUARTER_LINE_MARKET): its two legs are resolved instead, and settle it.',
        security: [{ adminToken: [] }],
        tags: ['admin'],
        params: Type.Object({ marketHash: Bytes32 }),
        body: Type.Object(
          // One bound each way, so a bad outcome gets one message ("must be <= 2"), not one per value;
          // Unsafe only types it as the three outcomes.
          {
            outcome: Type.Unsafe<0 | 1 | 2>(
              Type.Integer({ minimum: 0, maximum: 2, description: '0 void, 1 outcome one, 2 outcome two' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(Market), ...errorResponses(400, 401, 404, 409, 429, 503) },
      },
    },
    async (request) => {
      const marketHash = request.params.marketHash.toLowerCase();
      const { outcome } = request.body;
      const market = await exchange.catalog.getMarket(marketHash);
      if (!market) throw notFound('MARKET_NOT_FOUND', `no market with hash ${marketHash}`);
      if (market.quarterLineLegs !== null) throw quarterLineNotResolvable(market);
      if (market.parlayLegs)
        throw conflict('PARLAY_MARKET', 'a parlay market is settled by its legs: resolve its leg markets');
      if (market.outcome !== null)
        throw conflict('MARKET_ALREADY_RESOLVED', `the market was resolved with outcome ${market.outcome}`);
      await exchange.trading.resolveMarket(marketHash, outcome);
      const resolved = await exchange.catalog.getMarket(marketHash);
      if (!resolved) throw notFound('MARKET_NOT_FOUND', `no market with hash ${marketHash}`);
      request.log.info({ marketHash, outcome }, 'market resolved');
      return { status: 'success' as const, data: marketToWire(resolved) };
    },
  );
}
