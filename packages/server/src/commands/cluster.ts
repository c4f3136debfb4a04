import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect as connectNats, type NatsConnection } from '@nats-io/transport-node';
import pg from 'pg';
import { clusterNames } from '../cluster/cluster-names.js';
import {
  defaultTopology,
  LocalCluster,
  type LocalClusterEvent,
  type LocalNode,
} from '../cluster/local-cluster.js';
import { ConfigError, loadConfig, shownDatabaseUrl } from '../config/config.js';

export const CLUSTER_USAGE = `Usage: oddsbook cluster [options]

Runs a cluster on this machine (ADR 0018, docs/scaling.md), each node an \`oddsbook serve --role …\` child
process with a data dir of its own, on one PostgreSQL database and one NATS server: two sequencers (one
leads, one is a hot standby), one projector and one chain driver (each under a lease of its own), two API
nodes on PORT and PORT+1, a realtime node on PORT+2; the HTTP servers (/health, /metrics, /admin/cluster)
of the sequencers on PORT+3 and PORT+4, of the projector and the chain driver on PORT+5 and PORT+6. It
prints each node's role, pid and address, starts again a node that exits (a sequencer comes back as a
standby), and stops them all on Ctrl-C or SIGTERM (exit 0). Exit 2 for a bad setting or a server that does not answer.

Options (flag, environment variable, meaning):
  --database-url <url>  DATABASE_URL  the cluster's PostgreSQL database, created when missing
                                      (default postgres://postgres@127.0.0.1:5432/<--database>)
  --database <name>                   the database's name when DATABASE_URL is unset (default oddsbook_cluster)
  --nats-url <url>      NATS_URL      NATS with JetStream (default nats://127.0.0.1:4222)
  --cluster <name>      CLUSTER       names the NATS subjects and streams (default: the database's name,
                                      lower-cased, other characters as hyphens)
  --port <n>            PORT          the first API node's port (default 8080; 0: each node any free port)
  --host <address>      HOST          the interface every node listens on (default 127.0.0.1)
  --data-dir <dir>                    where the nodes' data dirs and logs (<node>.log) go (default a temp
                                      dir, removed at the end)
  --admin-token <token> ADMIN_TOKEN   the operator token of every node (default: generated and printed)
Every other setting of serve (DEMO, NETWORK, BLOCK_TIME_MS, REDIS_URL, ...) is passed on to each node from
the environment. A cluster whose journal is empty starts with its NATS streams emptied, since the
streams deduplicate by journal seq.`;

const DEFAULT_SERVER = 'postgres://postgres@127.0.0.1:5432/';
const DEFAULT_DATABASE = 'oddsbook_cluster';
const DEFAULT_NATS = 'nats://127.0.0.1:4222';

type ClusterSettings = {
  databaseUrl: string;
  natsUrl: string;
  cluster: string;
  port: number;
  host: string;
  dataRoot: string | undefined;
  adminToken: string;
  generatedToken: boolean;
};

/** `oddsbook cluster`: a supervised local cluster until Ctrl-C or SIGTERM. */
export async function clusterCommand(argv: readonly string[]): Promise<number> {
  const settings = clusterSettings(argv);
  const nc = await natsWithJetStream(settings);
  try {
    await prepareDatabase(settings);
    await clearStaleStreams(nc, settings);
  } finally {
    await nc.close();
  }

  const cluster = new LocalCluster({
    databaseUrl: settings.databaseUrl,
    natsUrl: settings.natsUrl,
    cluster: settings.cluster,
    adminToken: settings.adminToken,
    host: settings.host,
    nodes: defaultTopology(settings.port),
    ...(settings.dataRoot ? { dataRoot: settings.dataRoot } : {}),
    logFiles: true,
    supervise: true,
    onEvent: (event) => {
      const line = describeEvent(event);
      if (line) console.log(line);
    },
  });
  let stopRequested: (signal: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => {
    stopRequested = resolve;
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stopRequested(signal));

  console.log(
    `Starting cluster "${settings.cluster}" on ${shownDatabaseUrl(settings.databaseUrl)} and ${settings.natsUrl}; the nodes' data dirs and logs in ${cluster.root}`,
  );
  const started = cluster.start().then(
    () => null,
    (error: unknown) => error,
  );
  const first = await Promise.race([started, stopped.then((signal) => ({ signal }))]);
  if (first !== null && typeof first === 'object' && 'signal' in first) {
    console.log(`${first.signal}: stopping the nodes`);
    await cluster.stop();
    return 0;
  }
  if (first !== null) {
    console.error(`oddsbook cluster: a node did not start: ${(first as Error).message ?? first}`);
    await cluster.stop();
    return 1;
  }
  console.log(`\n${nodeTable(cluster.nodes)}\n`);
  const api = cluster.nodes.filter((n) => n.role === 'api' && n.url);
  const realtime = cluster.nodes.find((n) => n.role === 'realtime' && n.address);
  if (api[0])
    console.log(`Nodes and their state: curl -H 'x-admin-token: <token>' ${api[0].url}/admin/cluster`);
  console.log(
    settings.generatedToken
      ? `Operator token (ADMIN_TOKEN was not set, generated for this run): ${settings.adminToken}`
      : 'Operator token: ADMIN_TOKEN as set',
  );
  console.log(`API: ${api.map((n) => n.url).join(', ')}`);
  if (realtime) console.log(`Realtime WebSocket: ws://${realtime.address}/connection/websocket`);
  console.log('A node that exits is started again. Ctrl-C stops the cluster.');

  const signal = await stopped;
  console.log(`${signal}: stopping the nodes`);
  await cluster.stop();
  console.log('stopped');
  return 0;
}

/** The settings, checked as the nodes will check them: a bad one is a ConfigError (exit 2). */
function clusterSettings(argv: readonly string[]): ClusterSettings {
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      options: Object.fromEntries(
        ['database-url', 'database', 'nats-url', 'cluster', 'port', 'host', 'data-dir', 'admin-token'].map(
          (flag) => [flag, { type: 'string' as const }],
        ),
      ),
      strict: true,
      allowPositionals: false,
    }).values as Record<string, string | undefined>;
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  // An empty variable counts as unset.
  const env = Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== ''));
  const database = values.database ?? DEFAULT_DATABASE;
  if (values.database !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(database))
    throw new ConfigError(
      `--database must be a plain database name (letters, digits, underscores), got "${database}"`,
    );
  if (values.database !== undefined && (values['database-url'] ?? env.DATABASE_URL))
    throw new ConfigError('--database names the database when DATABASE_URL is unset: give one or the other');
  const databaseUrl = values['database-url'] ?? env.DATABASE_URL ?? `${DEFAULT_SERVER}${database}`;
  const natsUrl = values['nats-url'] ?? env.NATS_URL ?? DEFAULT_NATS;
  const cluster = values.cluster ?? env.CLUSTER ?? clusterNameOf(databaseName(databaseUrl));
  const portText = values.port ?? env.PORT ?? '8080';
  const port = Number(portText);
  const portName = values.port !== undefined ? '--port' : 'PORT';
  if (!/^\d+$/.test(portText) || port > 65_535 - 4)
    throw new ConfigError(
      `${portName} must be 0 or a port up to 65531 (the nodes take it and the four after it), got "${portText}"`,
    );
  const host = values.host ?? env.HOST ?? '127.0.0.1';
  const given = values['admin-token'] ?? env.ADMIN_TOKEN ?? '';
  const adminToken = given || randomBytes(24).toString('hex');
  // What every node will be given, read by the nodes' own rules: any setting they would refuse stops here,
  // before five processes start and fail alike.
  const flags = Object.entries({
    'database-url': values['database-url'],
    'nats-url': values['nats-url'],
    cluster: values.cluster,
    port: values.port,
    host: values.host,
    'admin-token': values['admin-token'],
  }).flatMap(([flag, value]) => (value === undefined ? [] : [`--${flag}`, value]));
  loadConfig(flags, {
    ...env,
    ROLE: 'api',
    DATABASE_URL: databaseUrl,
    NATS_URL: natsUrl,
    CLUSTER: cluster,
    PORT: String(port),
    HOST: host,
    ADMIN_TOKEN: adminToken,
  });
  return {
    databaseUrl,
    natsUrl,
    cluster,
    port,
    host,
    dataRoot: values['data-dir'],
    adminToken,
    generatedToken: given === '',
  };
}

function databaseName(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.slice(1)) || 'postgres';
  } catch {
    return DEFAULT_DATABASE;
  }
}

/** A CLUSTER name from a database name: lower case, other characters as hyphens. */
function clusterNameOf(database: string): string {
  const name = database
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 64);
  return name || 'oddsbook';
}

/** Creates the database when the server has none of that name; a server that does not answer: exit 2. */
async function prepareDatabase(settings: ClusterSettings): Promise<void> {
  const name = databaseName(settings.databaseUrl);
  const server = new URL(settings.databaseUrl);
  server.pathname = '/postgres';
  server.searchParams.delete('options');
  const client = new pg.Client({ connectionString: server.toString(), connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    throw new ConfigError(
      `PostgreSQL at ${shownDatabaseUrl(settings.databaseUrl)} does not answer (${(error as Error).message}): start it, or set DATABASE_URL`,
    );
  }
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      console.log(`Created the database ${name}`);
    }
  } catch (error) {
    throw new ConfigError(
      `the database ${name} could not be checked or created on ${shownDatabaseUrl(settings.databaseUrl)} (${(error as Error).message})`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/** A connection to NATS, its JetStream checked; a server that does not answer: exit 2. */
async function natsWithJetStream(settings: ClusterSettings): Promise<NatsConnection> {
  let nc: NatsConnection;
  try {
    nc = await connectNats({ servers: settings.natsUrl, timeout: 5_000 });
  } catch (error) {
    throw new ConfigError(
      `NATS at ${settings.natsUrl} does not answer (${(error as Error).message}): start nats-server -js, or set NATS_URL`,
    );
  }
  try {
    await jetstreamManager(nc);
  } catch (error) {
    await nc.close();
    throw new ConfigError(
      `NATS at ${settings.natsUrl} has no JetStream (${(error as Error).message}): start nats-server with -js`,
    );
  }
  return nc;
}

/**
 * When the database's journal is empty (a new database, or one replaced), deletes the cluster's streams:
 * they deduplicate batches by journal seq, and a journal starting again at 1 would have its first batches
 * dropped as duplicates of the old ones.
 */
async function clearStaleStreams(nc: NatsConnection, settings: ClusterSettings): Promise<void> {
  if (!(await journalEmpty(settings.databaseUrl))) return;
  const jsm = await jetstreamManager(nc);
  const names = clusterNames(settings.cluster);
  for (const stream of [names.stream, names.publicationsStream]) {
    const deleted = await jsm.streams.delete(stream).catch(() => false);
    if (deleted) console.log(`Deleted the stream ${stream} of an earlier journal (this one is empty)`);
  }
}

async function journalEmpty(databaseUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM journal) AS any');
    return !rows[0]!.any;
  } catch (error) {
    // No journal table yet: the nodes have not migrated this database.
    if ((error as { code?: string }).code === '42P01') return true;
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The nodes as a table: name, role, pid, address, state. */
export function nodeTable(nodes: readonly LocalNode[]): string {
  const rows = [
    ['NODE', 'ROLE', 'PID', 'ADDRESS', 'STATE'],
    ...nodes.map((n) => [n.name, n.role, String(n.pid ?? '-'), n.address ?? '-', stateOf(n)]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function stateOf(node: LocalNode): string {
  if (node.state === 'leader') return `leader, epoch ${node.epoch}`;
  return node.state;
}

function describeEvent(event: LocalClusterEvent): string | null {
  const { node } = event;
  switch (event.kind) {
    case 'state':
      return node.state === 'leader' ? `${node.name} (pid ${node.pid}) leads, epoch ${node.epoch}` : null;
    case 'ready':
      return node.restarts > 0
        ? `${node.name} started again: pid ${node.pid}, ${node.address}, ${stateOf(node)}`
        : `${node.name} ready: pid ${node.pid}, ${node.address}, ${stateOf(node)}`;
    case 'exited':
      return event.expected
        ? null
        : `${node.name} (pid ${node.pid}) exited (${event.signal ?? `code ${event.code}`})`;
    case 'restarting':
      return `starting ${node.name} again in ${event.inMs / 1000} s`;
    case 'restart-failed':
      return `${node.name} did not start again: ${event.error.message.split('\n')[0]}`;
  }
}
