import type { Config } from '../config/config.js';
import { openPostgres } from '../store/postgres/postgres-database.js';
import { listening, reachable } from './node-address.js';
import { NodeRegistry, type NodeStatus } from './node-registry.js';

/**
 * The registry row of a node that serves HTTP itself (an API node, a realtime node): `address` is where it
 * listens. `stop` deletes the row and closes the registry's connection.
 */
export async function registerServingNode(
  config: Config,
  o: {
    roles: readonly string[];
    address: unknown;
    status: () => NodeStatus;
    log: { error(o: object, msg: string): void };
  },
): Promise<{ registry: NodeRegistry; stop(): Promise<void> }> {
  const database = await openPostgres({ url: config.databaseUrl, poolSize: 1 });
  try {
    const registry = await NodeRegistry.start({
      pool: database.pool,
      roles: o.roles,
      address: reachable(listening(o.address)!),
      status: o.status,
      onError: (error) => o.log.error({ err: error }, 'refreshing this node in cluster_nodes failed'),
    });
    return {
      registry,
      async stop() {
        await registry
          .stop()
          .catch((error: unknown) => o.log.error({ err: error }, 'leaving cluster_nodes failed'));
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
