import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { ApiKeys } from './auth/api-keys.js';
import { serveClusterNode } from './cluster-node.js';
import { checkDataDir } from './commands/check-data-dir.js';
import { CLUSTER_USAGE, clusterCommand } from './commands/cluster.js';
import { COPY_TO_POSTGRES_USAGE, copyToPostgresCommand } from './commands/copy-to-postgres.js';
import { replayCommand } from './commands/replay.js';
import { type Config, ConfigError, configHelp, loadConfig } from './config/config.js';
import {
  type DemoMarketMaker,
  demoMarketMakerAddress,
  startDemoMarketMaker,
} from './demo/demo-market-maker.js';
import { AppError } from './errors/app-error.js';
import { type Exchange, openExchange } from './exchange/exchange.js';
import { openCommandStore } from './exchange/exchange-storage.js';
import { parseAddress } from './lib/address.js';
import { buildExchangeApp, listenExchangeApp, sayExchangeIsUp } from './serve-exchange-app.js';
import { reconcileReportToWire } from './settlement/reconcile.js';
import { cryptoImplementations } from './signing/native-crypto.js';
import { DataDirInUse, lockDataDir } from './store/sqlite/data-dir-lock.js';

const COMMANDS = `Commands:
  serve                         run the exchange (HTTP and WebSocket on one port)
  keys create <address> [--label <text>]
                                issue an API key for an account (printed once)
  keys list <address>           list an account's keys
  keys revoke <keyId>           revoke a key
  replay                        rebuild the engine from the journal alone and compare its state hash
                                with the projections', then reconcile it with the chain's stored state
                                (run it while the server is stopped)
  copy-to-postgres --database-url <postgres://…>
                                copy the data dir (the exchange stopped) into an empty PostgreSQL
                                database and verify the copy by replay (docs/operations.md)
  cluster                       run a cluster on this machine: sequencers, API and realtime nodes, each a
                                child process, on PostgreSQL and NATS, restarted when they exit
  reconcile                     start the exchange without serving, compare every account's money with
                                the chain to the base unit, print the differences and stop
  help [<command>]              this text, or a command's
  version                       the version (also --version)`;

const USAGE = `Usage: oddsbook <command> [options]

${COMMANDS}

${configHelp()}`;

/** Each command's own help, printed by `oddsbook <command> --help` before anything else is done. */
const COMMAND_USAGE: Record<string, string> = {
  serve: `Usage: oddsbook serve [options]

Runs the exchange: HTTP and the realtime WebSocket on one port, all state in the data dir (ROLE all, the
default). With DATABASE_URL and NATS_URL, ROLE names the cluster roles this process runs, any mix of
sequencer (a hot standby that leads when it holds the lease; it carries projector and chain when they are
named), projector and chain (each under a lease of its own otherwise), api (the HTTP API and the realtime
WebSocket, intents sent to the leader) and realtime (the WebSocket alone), all behind one HTTP server on
PORT (docs/scaling.md).

${configHelp()}`,
  keys: `Usage: oddsbook keys create <address> [--label <text>] [--data-dir <dir>]
       oddsbook keys list <address> [--data-dir <dir>]
       oddsbook keys revoke <keyId> [--data-dir <dir>]

Issues (printed once), lists or revokes the API keys of an account in the data dir (DATA_DIR, default
./data). create and revoke need the exchange stopped: while it runs, use its admin API
(POST /admin/api-keys, DELETE /admin/api-keys/<keyId>).`,
  replay: `Usage: oddsbook replay [--data-dir <dir>]

Rebuilds the engine from the journal alone and compares its state hash with the projections' (run it
while the exchange is stopped); then compares the money of every account with the chain's stored state
(wallets, escrow pool, transactions not mined yet). Exit code 0 when identical and reconciled, 1 otherwise.`,
  'copy-to-postgres': COPY_TO_POSTGRES_USAGE,
  cluster: CLUSTER_USAGE,
  reconcile: `Usage: oddsbook reconcile [options]

Starts the exchange on the data dir without serving (it journals the chain's receipts a start finds, as
serve does), compares each account's available balance with its proxy wallet and the escrowed amounts with
the escrow pool, to the base unit, counting the settlement items not on the chain yet, prints the report as
JSON and stops. Exit code 0 when the chain holds exactly what the engine says, 1 when not. The exchange must
be stopped; while it runs, use GET /admin/reconcile.

${configHelp()}`,
};

const HELP_FLAGS = ['--help', '-h'];

/** The version of @oddsbook/server (its package.json is one level up from src/ and from dist/). */
export function version(): string {
  return (createRequire(import.meta.url)('../package.json') as { version: string }).version;
}

/** CLI entry. Returns the exit code, or never resolves while serving. */
export async function main(argv: readonly string[]): Promise<number | undefined> {
  const [command, ...rest] = argv;
  // Help for a command is answered before its arguments are read: no data dir is opened or created.
  if (command && command in COMMAND_USAGE && rest.some((arg) => HELP_FLAGS.includes(arg)))
    return print(COMMAND_USAGE[command]!);
  try {
    switch (command) {
      case 'serve':
        return await serve(rest);
      case 'keys':
        return await keys(rest);
      case 'replay':
        return await replayCommand(rest);
      case 'copy-to-postgres':
        return await copyToPostgresCommand(rest);
      case 'reconcile':
        return await reconcileCommand(rest);
      case 'cluster':
        return await clusterCommand(rest);
      case 'version':
      case '--version':
      case '-v':
        return print(`oddsbook ${version()}`);
      case 'help':
        if (rest[0] && rest[0] in COMMAND_USAGE) return print(COMMAND_USAGE[rest[0]]!);
        return print(USAGE);
      case undefined:
      case '--help':
      case '-h':
        return print(USAGE);
      default:
        console.error(`Unknown command "${command}".\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (
      error instanceof ConfigError ||
      error instanceof AppError ||
      (error instanceof TypeError && 'code' in error)
    ) {
      console.error(`oddsbook: ${error.message}\nRun "oddsbook help" for the options.`);
      return 2;
    }
    throw error;
  }
}

function print(text: string): number {
  console.log(text);
  return 0;
}

/** Refuses to start on a pure-JS secp256k1 or keccak unless the operator allowed it. */
function checkCrypto(config: Config): void {
  const slow = Object.entries(cryptoImplementations).filter(([, { kind }]) => kind === 'js');
  if (slow.length === 0 || config.allowSlowCrypto) return;
  const names = slow.map(([name]) => name).join(' and ');
  const reasons = slow.map(([name, { nativeError }]) => `${name}: ${nativeError}`).join('; ');
  throw new ConfigError(
    `${names} would run on pure JavaScript (their native build did not load: ${reasons}): order signature checks would be some 30 times slower. Rebuild them (npm rebuild secp256k1 keccak), or set ALLOW_SLOW_CRYPTO=1 to start anyway`,
  );
}

async function serve(argv: readonly string[]): Promise<undefined> {
  const config = loadConfig(argv);
  checkCrypto(config);
  if (config.roles !== 'all') return serveClusterNode(config);
  checkDataDir(config);
  let app: FastifyInstance | undefined;
  const log = {
    info: (o: object, msg: string) => app?.log.info(o, msg),
    error: (o: object, msg: string) => (app ? app.log.error(o, msg) : console.error(msg, o)),
  };
  // A commit that fails leaves the engine ahead of the database: stop, and recover from the journal.
  const onFatal = () => void stop('FATAL').finally(() => process.exit(1));
  const exchange = await openExchange(config, { log, onFatal });
  const runsDemoMaker = config.demo && config.demoMarketMaker;
  app = await buildExchangeApp(exchange, {
    demoMarketMaker: runsDemoMaker ? demoMarketMakerAddress(config.dataDir) : undefined,
  });
  let stopping = false;
  let demoMaker: Promise<DemoMarketMaker | null> = Promise.resolve(null);
  async function stop(signal: string): Promise<void> {
    if (stopping || !app) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: draining requests');
    // Its quotes are pulled while the API still answers (else its heartbeat pulls them later).
    await (await demoMaker.catch(() => null))
      ?.stop()
      .catch((error: unknown) => app?.log.warn({ err: error }, 'demo market maker: pulling quotes failed'));
    const force = setTimeout(() => {
      app.log.error('shutdown took over 10 s; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    await app.close();
    await exchange.close();
    app.log.info('stopped cleanly');
  }

  const address = await listenExchangeApp(app, exchange, config);
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  sayExchangeIsUp(app, exchange, address);
  if (runsDemoMaker) demoMaker = startDemoMaker(app, exchange, address);
  return undefined;
}

/** The demo market maker on the exchange's own address; a failure is logged, never fatal. */
function startDemoMaker(app: FastifyInstance, exchange: Exchange, address: string) {
  const started = startDemoMarketMaker({
    baseUrl: loopbackUrl(address),
    adminToken: exchange.config.adminToken,
    dataDir: exchange.config.dataDir,
    log: app.log,
  });
  started.catch((error: unknown) => app.log.warn({ err: error }, 'demo market maker did not start'));
  return started;
}

/** The listening address as this process reaches it: a wildcard host (0.0.0.0, ::) is the loopback. */
export function loopbackUrl(address: string): string {
  const url = new URL(address);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.origin;
}

/** `oddsbook reconcile`: a start without serving, its reconciliation printed. */
async function reconcileCommand(argv: readonly string[]): Promise<number> {
  const config = loadConfig(argv);
  checkDataDir(config);
  const exchange = await openExchange(config);
  try {
    const report = exchange.reconciliation.last?.report ?? (await exchange.reconciliation.run());
    if (report === null) {
      console.error(
        'the chain gave no moment to compare exactly (blocks stalled mid-transaction): try again',
      );
      return 1;
    }
    console.log(JSON.stringify(reconcileReportToWire(report), null, 2));
    return report.differences.length === 0 ? 0 : 1;
  } finally {
    await exchange.close();
  }
}

async function keys(argv: readonly string[]): Promise<number> {
  const [action, target, ...options] = argv;
  const labelIndex = options.indexOf('--label');
  const label = labelIndex >= 0 ? options[labelIndex + 1] : undefined;
  const flags =
    labelIndex >= 0 ? options.filter((_, i) => i !== labelIndex && i !== labelIndex + 1) : options;
  if (!target || !['create', 'list', 'revoke'].includes(action ?? '')) {
    console.error(COMMAND_USAGE.keys);
    return 2;
  }
  // Only the key tables: never a second sequencer or chain on a data dir a server may be using.
  const config = loadConfig(flags);
  checkDataDir(config);
  // A running server authenticates from the keys it loaded at start: a key created or revoked here would
  // not take effect there (a revoked key would go on working), so the writes need the server stopped.
  let releaseDataDir = () => {};
  if (action !== 'list') {
    try {
      releaseDataDir = lockDataDir(config.dataDir);
    } catch (error) {
      if (!(error instanceof DataDirInUse)) throw error;
      console.error(
        `An exchange is running on ${config.dataDir}: ${action} the key through its admin API (docs/operations.md), or stop it first.`,
      );
      return 1;
    }
  }
  let store: Awaited<ReturnType<typeof openCommandStore>>;
  try {
    store = await openCommandStore(config);
  } catch (error) {
    releaseDataDir();
    throw error;
  }
  const apiKeys = await ApiKeys.load(store);
  try {
    const now = Date.now();
    if (action === 'create') {
      const issued = await apiKeys.create(parseAddress(target), {
        now,
        ...(label ? { label } : {}),
      });
      console.log(
        `API key for ${issued.record.address} (shown once, store it now):\n${issued.apiKey}\nkey id: ${issued.record.id}`,
      );
    } else if (action === 'list') {
      for (const key of await store.apiKeys.listForAccount(parseAddress(target))) {
        const state = key.revokedAt ? `revoked ${new Date(key.revokedAt).toISOString()}` : 'active';
        console.log(`${key.id}  ${new Date(key.createdAt).toISOString()}  ${state}  ${key.label ?? ''}`);
      }
    } else {
      const record = await apiKeys.revoke(target, now);
      if (!record) {
        console.error(`No API key with id ${target}.`);
        return 1;
      }
      console.log(`Revoked ${record.id} of ${record.address}.`);
    }
    return 0;
  } finally {
    await store.close();
    releaseDataDir();
  }
}
