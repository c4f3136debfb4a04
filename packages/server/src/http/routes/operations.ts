import { Envelope } from '@oddsbook/protocol';
import { Type } from 'typebox';
import type { NodeStatus } from '../../cluster/node-registry.js';
import { unavailable } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';
import { UNHEALTHY } from '../node-app.js';

const Health = Envelope(
  Type.Object({
    healthy: Type.Boolean(),
    network: Type.String(),
    chainId: Type.Integer(),
    uptimeSeconds: Type.Integer(),
    roles: Type.Optional(Type.Array(Type.String(), { description: "a cluster node's roles" })),
    state: Type.Optional(
      Type.String({
        description: "a cluster node's state: leader, standby, serving, ... (GET /admin/cluster)",
      }),
    ),
    epoch: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    lastSeq: Type.Optional(Type.Integer()),
  }),
);

/**
 * Liveness and the OpenAPI document. A cluster node (`node`) adds its roles and state to /health, and
 * answers 503 once one of its roles is deposed or it is stopping.
 */
export async function operationsRoutes(
  app: ExchangeApp,
  exchange: Exchange,
  node?: { roles: readonly string[]; status: () => NodeStatus },
): Promise<void> {
  const startedAt = exchange.clock.now();
  app.get(
    '/health',
    {
      schema: {
        summary: 'Liveness: the process and its database answer',
        description:
          '503 when the database does not answer, or (a cluster node) once one of its roles is deposed.',
        tags: ['operations'],
        response: { 200: Health, ...errorResponses(503) },
      },
    },
    async (request) => {
      const status = node?.status();
      if (status && UNHEALTHY.has(status.state)) throw unavailable(`This node is ${status.state}`);
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
          ...(node && status
            ? { roles: [...node.roles], state: status.state, epoch: status.epoch, lastSeq: status.lastSeq }
            : {}),
        },
      };
    },
  );
  app.get('/docs/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
