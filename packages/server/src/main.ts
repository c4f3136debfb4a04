import { ladderSize } from '@oddsbook/protocol';
import { buildApp } from './app.js';
import { ApiKeys } from './auth/api-keys.js';
import { ConfigError, configHelp, loadConfig } from './config.js';
import { AppError } from './errors/app-error.js';
import { openExchange } from './exchange.js';
import { parseAddress } from './lib/address.js';
import { compareWithJournal } from './sequencer/recovery.js';
import { DataDirInUse, lockDataDir } from './store/sqlite/data-dir-lock.js';
import { openDatabase } from './store/sqlite/open-database.js';
import { createSqliteStore } from './store/sqlite/sqlite-store.js';
import { SqliteTradingStore } from './store/sqlite/sqlite-trading-store.js';

const USAGE = `Usage: oddsbook <command> [options]

Commands:
  serve                         run the exchange (HTTP and WebSocket on one port)
  keys create <address> [--label <text>]
                                issue an API key for an account (printed once)
  keys list <address>           list an account's keys
  keys revoke <keyId>           revoke a key
  replay                        rebuild the engine from the journal alone and compare its state hash
                                with the projections' (run it while the server is stopped)
  help                          this text

${configHelp()}`;

/** CLI entry. Returns the exit code, or never resolves while serving. */
export async function main(argv: readonly string[]): Promise<number | undefined> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        if (rest.includes('--help') || rest.includes('-h')) return print(USAGE);
        return await serve(rest);
      case 'keys':
        return await keys(rest);
      case 'replay':
        return replay(rest);
      case undefined:
      case 'help':
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

async function serve(argv: readonly string[]): Promise<undefined> {
  const config = loadConfig(argv);
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  const exchange = await openExchange(config, {
    log: {
      info: (o, msg) => app?.log.info(o, msg),
      error: (o, msg) => (app ? app.log.error(o, msg) : console.error(msg, o)),
    },
    // A commit that fails leaves the engine ahead of the database: stop, and recover from the journal.
    onFatal: () => void stop('FATAL').finally(() => process.exit(1)),
  });
  app = await buildApp(exchange);
  let stopping = false;
  async function stop(signal: string): Promise<void> {
    if (stopping || !app) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: draining requests');
    const force = setTimeout(() => {
      app.log.error('shutdown took over 10 s; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    await app.close();
    await exchange.close();
    app.log.info('stopped cleanly');
  }
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  // A burst of connections waits in the accept queue rather than having its SYNs dropped and retried
  // seconds later (Node's default is 511; the kernel caps it at net.core.somaxconn).
  const backlog = Math.min(config.maxConnections, 65_535);
  const address = await app.listen({ port: config.port, host: config.host, backlog });
  app.log.info(
    { address, network: config.network, chainId: config.chainId, dataDir: config.dataDir },
    'oddsbook is up',
  );
  if (config.adminTokenGenerated) {
    // Printed once, on purpose outside the JSON log, so an operator sees it at first start.
    console.log(`\nADMIN_TOKEN was not set; generated for this run: ${config.adminToken}\n`);
  }
  return undefined;
}

function replay(argv: readonly string[]): number {
  const config = loadConfig(argv);
  const db = openDatabase(config.dataDir);
  try {
    const store = new SqliteTradingStore(db);
    const started = Date.now();
    const {
      journalHash,
      projectionsHash,
      replayedCommands: commands,
    } = compareWithJournal(store, ladderSize(), {
      fromCheckpoint: false,
    });
    const { lastSeq } = store.sequencerState();
    console.log(
      `journal: ${lastSeq} entries, ${commands} engine commands replayed in ${Date.now() - started} ms`,
    );
    console.log(`state hash from the journal:     ${journalHash}`);
    console.log(`state hash from the projections: ${projectionsHash}`);
    if (journalHash !== projectionsHash) {
      console.error('MISMATCH: the projections do not match the journal.');
      return 1;
    }
    console.log('identical');
    return 0;
  } finally {
    db.close();
  }
}

async function keys(argv: readonly string[]): Promise<number> {
  const [action, target, ...options] = argv;
  const labelIndex = options.indexOf('--label');
  const label = labelIndex >= 0 ? options[labelIndex + 1] : undefined;
  const flags =
    labelIndex >= 0 ? options.filter((_, i) => i !== labelIndex && i !== labelIndex + 1) : options;
  if (!target || !['create', 'list', 'revoke'].includes(action ?? '')) {
    console.error(USAGE);
    return 2;
  }
  // Only the key tables: never a second sequencer or chain on a data dir a server may be using.
  const config = loadConfig(flags);
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
  const store = createSqliteStore(openDatabase(config.dataDir));
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
