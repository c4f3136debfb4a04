import type { Server } from 'node:http';
import { storedAdminToken } from '../auth/admin-token-file.js';
import { listening, reachable } from '../cluster/node-address.js';
import { NodeRegistry, type NodeStatus } from '../cluster/node-registry.js';
import type { Config } from '../config/config.js';
import type { Exchange } from '../exchange/exchange.js';
import { systemClock } from '../lib/clock.js';
import { openPostgres } from '../store/postgres/postgres-database.js';
import { buildNodeApp } from './node-app.js';
import { registerExchangeMetrics } from './plugins/exchange-metrics.js';

export type ServedNode = {
  /** host:port its HTTP server listens on, as registered. */
  readonly address: string;
  readonly registry: NodeRegistry;
  /** Deletes its row from the registry (the others see it gone at once). */
  leave(): Promise<void>;
  /** Leaves, then closes the HTTP server and the registry's connections. */
  stop(): Promise<void>;
  /** Adds the figures of the exchange it now runs (a sequencer that leads) to its /metrics; once. */
  leading(exchange: Exchange): void;
};

export type ServeNodeOptions = {
  roles: readonly string[];
  status: () => NodeStatus;
  log: { error(o: object, msg: string): void };
  /** Attaches more to its HTTP server before it listens (a realtime hub's WebSocket). */
  attach?: (server: Server) => void;
};

/**
 * Serves a cluster node without the API (ADR 0018): its HTTP server (`/health`, `/metrics`,
 * `GET /admin/cluster`) on `PORT`/`HOST`, and its row in the node registry, refreshed every second with
 * `status`. A listen that fails (the port in use) rejects with Node's error, nothing left open.
 */
export async function serveNode(config: Config, o: ServeNodeOptions): Promise<ServedNode> {
  // The operator token of the single process: ADMIN_TOKEN, or the one kept in the data dir.
  const adminToken = config.adminToken || storedAdminToken(config.dataDir).token;
  const database = await openPostgres({ url: config.databaseUrl, poolSize: 2 });
  let registry: NodeRegistry | null = null;
  const { app, metrics } = await buildNodeApp({
    roles: o.roles,
    status: o.status,
    nodes: { list: () => registry!.list() },
    adminToken,
    clock: systemClock,
  });
  o.attach?.(app.server);
  let address: string;
  try {
    await app.listen({ port: config.port, host: config.host });
    address = reachable(listening(app.server.address())!);
    registry = await NodeRegistry.start({
      pool: database.pool,
      roles: o.roles,
      address,
      status: o.status,
      onError: (error) => o.log.error({ err: error }, 'refreshing this node in cluster_nodes failed'),
    });
  } catch (error) {
    await app.close();
    await database.close();
    throw error;
  }
  const held = registry;
  let left: Promise<void> | null = null;
  const leave = () => {
    left ??= held
      .stop()
      .catch((error: unknown) => o.log.error({ err: error }, 'leaving cluster_nodes failed'));
    return left;
  };
  let led = false;
  return {
    address,
    registry: held,
    leave,
    leading(exchange) {
      if (led) return;
      led = true;
      try {
        registerExchangeMetrics(metrics, exchange, null);
      } catch (error) {
        // Never a reason to stop leading.
        o.log.error({ err: error }, "the exchange's figures could not be added to /metrics");
      }
    },
    async stop() {
      await leave();
      await app.close();
      await database.close();
    },
  };
}
