import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Envelope } from '@oddsbook/protocol';
import Fastify, { type FastifyInstance } from 'fastify';
import { Gauge, type Registry } from 'prom-client';
import { Type } from 'typebox';
import type { ClusterNodes, NodeStatus } from '../cluster/node-registry.js';
import { unavailable } from '../errors/app-error.js';
import type { Clock } from '../lib/clock.js';
import { errorResponses } from './error-responses.js';
import { requireAdminToken } from './plugins/auth.js';
import { registerErrorHandler } from './plugins/error-handler.js';
import { registerMetrics } from './plugins/metrics.js';
import { registerSecurityHeaders } from './plugins/security-headers.js';
import { adminClusterRoutes } from './routes/admin-cluster.js';

export type NodeAppOptions = {
  /** The node's roles, a label of its cluster gauges (`sequencer`, or `projector,sequencer`). */
  roles: readonly string[];
  status: () => NodeStatus;
  /** The cluster's nodes, for `GET /admin/cluster`. */
  nodes: ClusterNodes;
  adminToken: string;
  clock: Clock;
  logger?: boolean | { level: string };
};

/** States in which a node is not fit to serve: /health answers 503. */
export const UNHEALTHY = new Set(['deposed', 'stopped']);

const NodeHealth = Envelope(
  Type.Object({
    healthy: Type.Boolean(),
    roles: Type.Array(Type.String()),
    state: Type.String({ description: 'starting, standby, taking-over, leader (a sequencer)' }),
    epoch: Type.Union([Type.Integer(), Type.Null()]),
    lastSeq: Type.Integer(),
    uptimeSeconds: Type.Integer(),
  }),
);

/**
 * The cluster's figures of a node, labelled with its roles: leader or not, its epoch and its last journal
 * seq. A standby's epoch is 0 (it appends under none).
 */
export function registerClusterMetrics(
  registry: Registry,
  roles: readonly string[],
  status: () => NodeStatus,
): void {
  const role = [...roles].sort().join(',');
  const gauge = (name: string, help: string, read: (s: NodeStatus) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['role'] as const,
      registers: [registry],
      collect() {
        this.set({ role }, read(status()));
      },
    });
  gauge('oddsbook_cluster_leader', 'This node leads the cluster (1) or not (0: a standby)', (s) =>
    s.state === 'leader' ? 1 : 0,
  );
  gauge(
    'oddsbook_cluster_epoch',
    'The leader epoch this node appends under (0 while it does not lead)',
    (s) => s.epoch ?? 0,
  );
  gauge('oddsbook_journal_last_seq', "The last journal seq of this node's state", (s) => s.lastSeq);
}

/**
 * The HTTP server of a cluster node that serves no API (a sequencer, ADR 0018): `/health` with its state,
 * `/metrics` (the process, its requests and its cluster gauges) and `GET /admin/cluster` behind the operator
 * token, so that every node can be watched and asked about the others.
 */
export async function buildNodeApp(o: NodeAppOptions): Promise<{ app: FastifyInstance; metrics: Registry }> {
  const app = Fastify({ logger: o.logger ?? false }).withTypeProvider<TypeBoxTypeProvider>();
  registerSecurityHeaders(app);
  registerErrorHandler(app);
  const metrics = registerMetrics(app);
  registerClusterMetrics(metrics, o.roles, o.status);
  const startedAt = o.clock.now();
  app.get(
    '/health',
    {
      schema: {
        summary: "Liveness: the node's state",
        description: '503 once it is deposed or stopping.',
        tags: ['operations'],
        response: { 200: NodeHealth, ...errorResponses(503) },
      },
    },
    async () => {
      const { state, epoch, lastSeq } = o.status();
      if (UNHEALTHY.has(state)) throw unavailable(`This node is ${state}`);
      return {
        status: 'success' as const,
        data: {
          healthy: true,
          roles: [...o.roles],
          state,
          epoch,
          lastSeq,
          uptimeSeconds: Math.floor((o.clock.now() - startedAt) / 1000),
        },
      };
    },
  );
  await app.register(async (scope) => {
    requireAdminToken(scope, o.adminToken);
    await adminClusterRoutes(scope, o.nodes);
  });
  return { app, metrics };
}
