import type { FastifyInstance } from 'fastify';
import { type AppOptions, buildApp } from './app.js';
import type { Config } from './config/config.js';
import { listenRefusal } from './config/listen-refusal.js';
import type { Exchange } from './exchange/exchange.js';
import { cryptoImplementations } from './signing/native-crypto.js';

/*
 * The HTTP app of `oddsbook serve` over an opened exchange, as the single process (main.ts) and an API
 * node of a cluster (serve-api-node.ts) both serve it: built, listening on PORT/HOST, said to be up.
 */

/** `buildApp`; when it fails (REDIS_URL unreachable, say), the exchange is closed: nothing is left running. */
export async function buildExchangeApp(exchange: Exchange, options?: AppOptions): Promise<FastifyInstance> {
  try {
    return await buildApp(exchange, options);
  } catch (error) {
    await exchange.close();
    throw error;
  }
}

/**
 * Listens on PORT/HOST (warning first when the signature crypto is pure JS, as ALLOW_SLOW_CRYPTO allows)
 * and resolves with the address. When it cannot, the app and the exchange are closed, and a port in use
 * rejects with a ConfigError.
 */
export async function listenExchangeApp(
  app: FastifyInstance,
  exchange: Exchange,
  config: Config,
): Promise<string> {
  const crypto = cryptoKinds();
  if (crypto.secp256k1 === 'js' || crypto.keccak === 'js')
    app.log.warn(
      { crypto },
      'pure-JS signature crypto allowed by ALLOW_SLOW_CRYPTO: order checks are slower',
    );
  try {
    // A burst of connections waits in the accept queue rather than having its SYNs dropped and retried
    // seconds later (Node's default is 511; the kernel caps it at net.core.somaxconn).
    return await app.listen({
      port: config.port,
      host: config.host,
      backlog: Math.min(config.maxConnections, 65_535),
    });
  } catch (error) {
    await app.close();
    await exchange.close();
    throw listenRefusal(error, config) ?? error;
  }
}

/**
 * Where the operator token is, when ADMIN_TOKEN was not set, and the "oddsbook is up" log line with the
 * address, `fields` and the setup.
 */
export function sayExchangeIsUp(
  app: FastifyInstance,
  exchange: Exchange,
  address: string,
  fields: Record<string, unknown> = {},
): void {
  // On purpose outside the JSON log, so that an operator sees it.
  const stored = exchange.storedAdminToken;
  if (stored?.created) {
    console.log(
      `\nADMIN_TOKEN was not set; generated the operator token, kept in ${stored.file} (mode 0600) for later starts:\n${exchange.config.adminToken}\n`,
    );
  } else if (stored) {
    console.log(`\nADMIN_TOKEN is not set; the operator token is the one kept in ${stored.file}\n`);
  }
  const { config } = exchange;
  app.log.info(
    {
      address,
      ...fields,
      network: config.network,
      chainId: config.chainId,
      dataDir: config.dataDir,
      crypto: cryptoKinds(),
    },
    'oddsbook is up',
  );
}

function cryptoKinds() {
  return { secp256k1: cryptoImplementations.secp256k1.kind, keccak: cryptoImplementations.keccak.kind };
}
