import { ClusterNodeInfo, Envelope } from '@oddsbook/protocol';
import { Type } from 'typebox';
import { listening } from '../../cluster/node-address.js';
import { type ClusterNode, type ClusterNodes, thisNodeId } from '../../cluster/node-registry.js';
import type { Exchange } from '../../exchange/exchange.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The single process (`--role all`, on SQLite or PostgreSQL): one node, itself, leading; no registry. Its
 * address is where `server` listens.
 */
export function singleProcessCluster(exchange: Exchange, server: { address(): unknown }): ClusterNodes {
  const startedAt = exchange.clock.now();
  return {
    async list() {
      const now = exchange.clock.now();
      return [
        {
          node: thisNodeId(),
          roles: ['all'],
          pid: process.pid,
          address: listening(server.address()),
          state: 'leader',
          epoch: null,
          lastSeq: exchange.trading.sequencer.lastSeq,
          startedAt,
          seenAt: now,
          alive: true,
        },
      ];
    },
  };
}

/**
 * `GET /admin/cluster` (issue 37 point 7): the nodes of the cluster with their roles, pid, address, leader or
 * standby, last seq and whether they are alive. Behind the operator token of the scope it is registered in.
 */
export async function adminClusterRoutes(app: ExchangeApp, nodes: ClusterNodes): Promise<void> {
  app.get(
    '/admin/cluster',
    {
      schema: {
        summary: 'The nodes of the cluster',
        description:
          'Every node registered in the cluster (cluster_nodes in PostgreSQL), refreshed every second: its ' +
          'roles, pid, HTTP address, state (leader or standby), epoch and last journal seq. A node gone ' +
          'without a clean stop shows alive: false, and is removed after a minute. The single process ' +
          '(--role all) answers itself.',
        security: [{ adminToken: [] }],
        tags: ['admin'],
        response: { 200: Envelope(Type.Array(ClusterNodeInfo)), ...errorResponses(401, 429, 503) },
      },
    },
    async () => ({
      status: 'success' as const,
      data: (await nodes.list()).map((n: ClusterNode) => ({
        ...n,
        roles: [...n.roles],
        startedAt: iso(n.startedAt),
        seenAt: iso(n.seenAt),
      })),
    }),
  );
}
