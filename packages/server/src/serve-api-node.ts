import type { FastifyInstance } from 'fastify';
import type { NodeStatus } from './cluster/node-registry.js';
import { registerServingNode } from './cluster/serving-node.js';
import type { Config } from './config/config.js';
import { openApiNode } from './exchange/api-role.js';
import type { Exchange } from './exchange/exchange.js';
import { buildExchangeApp, listenExchangeApp, sayExchangeIsUp } from './serve-exchange-app.js';

export type ServedApi = {
  readonly exchange: Exchange;
  readonly app: FastifyInstance;
  /** Deletes its row from the registry (the others see it gone at once); once. */
  leave(): Promise<void>;
  /** Leaves, drains the requests and the WebSocket, closes the exchange. */
  stop(): Promise<void>;
};

export type ServeApiOptions = {
  /** Every role of the process: the API app's /health, /metrics and its `cluster_nodes` row show them all. */
  roles: readonly string[];
  status: () => NodeStatus;
  /** The API node's copy of the trading state broke: the process must stop. */
  onFatal: (error: unknown) => void;
};

/**
 * The API of a cluster node (`serve --role api[,…]`, ADR 0018): the exchange of an API node
 * (`openApiNode`: a replica of the journal, intents to the leader over NATS, the realtime hub on the
 * stamped publications) under the whole HTTP app and its WebSocket on PORT/HOST, listed in
 * `cluster_nodes` once it listens. Its /health, /metrics and /admin/cluster speak for every role of the
 * process. A port in use rejects with a ConfigError, nothing left open.
 */
export async function serveApiNode(config: Config, o: ServeApiOptions): Promise<ServedApi> {
  let app: FastifyInstance | undefined;
  const log = {
    info: (fields: object, msg: string) => app?.log.info(fields, msg),
    error: (fields: object, msg: string) => (app ? app.log.error(fields, msg) : console.error(msg, fields)),
  };
  const exchange = await openApiNode(config, { log, onFatal: o.onFatal });
  let registered: Awaited<ReturnType<typeof registerServingNode>> | null = null;
  const built = await buildExchangeApp(exchange, {
    clusterNodes: { list: async () => (registered ? registered.registry.list() : []) },
    node: { roles: o.roles, status: o.status },
  });
  app = built;
  const address = await listenExchangeApp(built, exchange, config);
  try {
    registered = await registerServingNode(config, {
      roles: o.roles,
      address: built.server.address(),
      status: o.status,
      log: built.log,
    });
  } catch (error) {
    await built.close();
    await exchange.close();
    throw error;
  }
  const held = registered;
  let left: Promise<void> | null = null;
  const leave = () => {
    left ??= held.stop();
    return left;
  };
  sayExchangeIsUp(built, exchange, address, { roles: o.roles });
  let stopping: Promise<void> | null = null;
  return {
    exchange,
    app: built,
    leave,
    stop() {
      stopping ??= (async () => {
        await leave();
        await built.close();
        await exchange.close();
      })();
      return stopping;
    },
  };
}
