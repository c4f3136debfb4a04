import { Envelope } from '@oddsbook/protocol';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Exchange } from '../../exchange.js';

const Health = Envelope(
  Type.Object({
    healthy: Type.Boolean(),
    network: Type.String(),
    chainId: Type.Integer(),
    uptimeSeconds: Type.Integer(),
  }),
);

/** Liveness and the OpenAPI document. */
export async function operationsRoutes(app: FastifyInstance, exchange: Exchange): Promise<void> {
  const startedAt = exchange.clock.now();
  app.get('/health', { schema: { tags: ['operations'], response: { 200: Health } } }, async () => {
    exchange.db.prepare('SELECT 1').get();
    return {
      status: 'success' as const,
      data: {
        healthy: true,
        network: exchange.config.network,
        chainId: exchange.config.chainId,
        uptimeSeconds: Math.floor((exchange.clock.now() - startedAt) / 1000),
      },
    };
  });
  app.get('/docs/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
