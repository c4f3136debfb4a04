import { Envelope } from '@oddsbook/protocol';
import { Type } from 'typebox';
import { unavailable } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

const Health = Envelope(
  Type.Object({
    healthy: Type.Boolean(),
    network: Type.String(),
    chainId: Type.Integer(),
    uptimeSeconds: Type.Integer(),
  }),
);

/** Liveness and the OpenAPI document. */
export async function operationsRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  const startedAt = exchange.clock.now();
  app.get(
    '/health',
    {
      schema: {
        summary: 'Liveness: the process and its database answer',
        description: '503 when the database does not answer.',
        tags: ['operations'],
        response: { 200: Health, ...errorResponses(503) },
      },
    },
    async (request) => {
      try {
        await exchange.store.ping();
      } catch (cause) {
        request.log.error({ err: cause }, 'health: the database does not answer');
        throw unavailable('The database does not answer');
      }
      return {
        status: 'success' as const,
        data: {
          healthy: true,
          network: exchange.config.network,
          chainId: exchange.config.chainId,
          uptimeSeconds: Math.floor((exchange.clock.now() - startedAt) / 1000),
        },
      };
    },
  );
  app.get('/docs/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
