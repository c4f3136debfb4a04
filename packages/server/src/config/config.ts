import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { getAddress, isAddress } from 'viem';
import { DEFAULT_MAX_HISTORY_PUBLICATIONS, defaultMaxHistoryBytes } from '../realtime/options.js';

/** The two networks of the spec. Addresses are oddsbook's own, so a signature made here never replays elsewhere. */
export const NETWORKS = {
  mainnet: {
    chainId: 4162,
    verifyingContract: '0xa70B8BddF7B752f3756BecCB7710584d47597fC3',
    baseToken: '0xd1f05A1F2d3F5ef80e000ABD9c6Da3a9495Da054',
  },
  testnet: {
    chainId: 79479957,
    verifyingContract: '0x4574B7B01Ad86f2a1c2f5514D3BC2F69338579ee',
    baseToken: '0xEd70EdBA3C1DA75994d56a8bBec5154D8FF621DC',
  },
} as const;
export type NetworkName = keyof typeof NETWORKS;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  /**
   * postgres://… puts the exchange's storage on PostgreSQL (catalog, accounts, keys, sessions, the journal,
   * the projections and the settlement feed); '' keeps everything in SQLite in the data dir.
   */
  databaseUrl: string;
  /** redis://… keeps the rate-limit buckets in Redis, shared by every API node; '' keeps them in memory. */
  redisUrl: string;
  /** nats://… the cluster's transport (ADR 0018); '' for the single process. */
  natsUrl: string;
  /** Names this cluster's NATS subjects and stream, so that clusters may share a NATS server. */
  cluster: string;
  /** The roles this process runs (ADR 0018): `all` (the single process), or a set of cluster roles. */
  roles: Roles;
  network: NetworkName;
  chainId: number;
  verifyingContract: `0x${string}`;
  baseToken: `0x${string}`;
  /** '' when the operator did not set ADMIN_TOKEN: the exchange then keeps one in its data dir. */
  adminToken: string;
  demo: boolean;
  /** With `demo`, the single process quotes every active market from an account of its own (src/demo). */
  demoMarketMaker: boolean;
  logLevel: LogLevel;
  /** How the log is written: `auto` (readable on a terminal, JSON lines otherwise), `pretty` or `json`. */
  logFormat: LogFormat;
  /** One line per request and per response: `auto` (on with JSON logs, off with readable ones), on or off. */
  logRequests: boolean | 'auto';
  blockTimeMs: number;
  /** How often the engine's money is reconciled with the chain's (issue 33). */
  reconcileIntervalMs: number;
  /** How often the leading sequencer stores an engine checkpoint, busy or not (ADR 0020). */
  checkpointIntervalMs: number;
  /** Per-key request limits (429 past them); off only for benchmarks and tests. */
  rateLimits: boolean;
  /** Publications the realtime hub keeps for recovery over all channels (oldest dropped first past it). */
  realtimeHistoryMax: number;
  /** Bytes the realtime hub keeps for recovery over all channels (2 per JSON character plus 320 a publication). */
  realtimeHistoryBytes: number;
  /** Shortest time between two realtime publications of one market's book, ms (0: one per batch). */
  realtimeBookIntervalMs: number;
  /** Start even when secp256k1 or keccak runs on its pure-JS fallback (native build not loaded). */
  allowSlowCrypto: boolean;
  /** Each setting named as the operator gave it (the flag if one was passed, else the variable), for errors. */
  settingNames: Readonly<Record<SettingName, string>>;
  /** `scheme://host[:port]` origins a Sign-In with Ethereum message may be bound to (the pages' origins). */
  siweDomains: string[];
  // Load and abuse bounds (docs/operations.md, "Limits and load shedding").
  /** Fastify `trustProxy`: false, a hop count, or the proxies' addresses/CIDRs whose X-Forwarded-For counts. */
  trustProxy: false | number | string[];
  /** Open connections at most, all clients together; past it new connections are closed at once. */
  maxConnections: number;
  /** Open connections at most from one peer address. */
  maxConnectionsPerAddress: number;
  /** A connection idle this long (no request under way, or a request that stalls) is closed. */
  httpIdleTimeoutMs: number;
  /** Orders between their signature check and their commit at most; a request past it is answered 503. */
  maxPendingOrders: number;
  // Parlays (docs/parlays.md).
  /** How long makers may quote on a request, ms. */
  parlayQuoteWindowMs: number;
  /** How long after the quote window the requester may take, ms. */
  parlayTakeWindowMs: number;
  /** The fee on a parlay winner's profit, basis points (0: none). */
  parlayFeeBps: number;
  /** The account parlay fees are credited to. */
  parlayFeeAccount: `0x${string}`;
  // The legacy (v2) API's dates, unix ms (docs/legacy.md); the service's clock decides which side it is on.
  /** From then every v2 order route fails ("OrderBook V2 is no longer supported") and resting v2 orders are cancelled. */
  v2CutoverAt: number;
  /** From then the v2 trade-history routes answer 404. */
  v2HistoryRemovedAt: number;
  /** From then the legacy realtime channel names are refused as unknown. */
  legacyWsShutdownAt: number;
};

/** The roles of one binary (ADR 0018). */
export const CLUSTER_ROLES = ['sequencer', 'api', 'projector', 'realtime', 'chain'] as const;
export type ClusterRole = (typeof CLUSTER_ROLES)[number];
/** `all`: today's single process; else the cluster roles this node runs. */
export type Roles = 'all' | ReadonlySet<ClusterRole>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The fee account when the operator names none: an address no key can sign for. */
export const DEFAULT_FEE_ACCOUNT = '0x0000000000000000000000000000000000000FEE';

/** One option: its env variable, its CLI flag, and the help line. Everything else is derived from this table. */
const OPTIONS = {
  port: { env: 'PORT', flag: 'port', help: 'HTTP and WebSocket port', fallback: '8080' },
  host: { env: 'HOST', flag: 'host', help: 'interface to listen on', fallback: '127.0.0.1' },
  dataDir: { env: 'DATA_DIR', flag: 'data-dir', help: 'directory for all durable state', fallback: './data' },
  databaseUrl: {
    env: 'DATABASE_URL',
    flag: 'database-url',
    help: 'postgres://user@host:port/database: the store on PostgreSQL instead of SQLite in the data dir',
    fallback: '',
  },
  redisUrl: {
    env: 'REDIS_URL',
    flag: 'redis-url',
    help: 'redis://host:port: the rate-limit buckets in Redis, shared by every API node, instead of in memory',
    fallback: '',
  },
  natsUrl: {
    env: 'NATS_URL',
    flag: 'nats-url',
    help: 'nats://host:port: the cluster transport (needed by every role but all)',
    fallback: '',
  },
  cluster: {
    env: 'CLUSTER',
    flag: 'cluster',
    help: 'the cluster name: its NATS subjects <name>.* and stream <NAME>_COMMITTED',
    fallback: 'oddsbook',
  },
  role: {
    env: 'ROLE',
    flag: 'role',
    help: `all (one process), or a comma list of ${CLUSTER_ROLES.join(', ')}, any mix in one process (docs/scaling.md)`,
    fallback: 'all',
  },
  network: {
    env: 'NETWORK',
    flag: 'network',
    help: 'mainnet (chain 4162) or testnet (chain 79479957)',
    fallback: 'mainnet',
  },
  adminToken: {
    env: 'ADMIN_TOKEN',
    flag: 'admin-token',
    help: 'operator token (when unset: generated once, kept in the data dir)',
    fallback: '',
  },
  demo: {
    env: 'DEMO',
    flag: 'demo',
    help: 'seed a fresh data dir with demo sports data (1/0)',
    fallback: '1',
  },
  demoMarketMaker: {
    env: 'DEMO_MARKET_MAKER',
    flag: 'demo-market-maker',
    help: 'with DEMO=1, quote every active market from a demo account (1/0; the single process only)',
    fallback: '1',
  },
  logLevel: { env: 'LOG_LEVEL', flag: 'log-level', help: LOG_LEVELS.join(', '), fallback: 'info' },
  logFormat: {
    env: 'LOG_FORMAT',
    flag: 'log-format',
    help: 'auto (readable on a terminal, JSON lines otherwise), pretty or json',
    fallback: 'auto',
  },
  logRequests: {
    env: 'LOG_REQUESTS',
    flag: 'log-requests',
    help: 'a log line per request and response: auto (on with JSON logs, off on a terminal), 1 or 0',
    fallback: 'auto',
  },
  verifyingContract: {
    env: 'VERIFYING_CONTRACT',
    flag: 'verifying-contract',
    help: 'EIP-712 verifying contract (escrow) address',
    fallback: '',
  },
  baseToken: { env: 'BASE_TOKEN', flag: 'base-token', help: 'base token address', fallback: '' },
  blockTimeMs: {
    env: 'BLOCK_TIME_MS',
    flag: 'block-time-ms',
    help: 'embedded chain block interval',
    fallback: '500',
  },
  reconcileIntervalMs: {
    env: 'RECONCILE_INTERVAL_MS',
    flag: 'reconcile-interval-ms',
    help: "how often every account's money is compared with the chain's, to the base unit",
    fallback: '300000',
  },
  checkpointIntervalMs: {
    env: 'CHECKPOINT_INTERVAL_MS',
    flag: 'checkpoint-interval-ms',
    help: 'how often the engine state is checkpointed (a start replays the journal after the newest)',
    fallback: '300000',
  },
  rateLimits: {
    env: 'RATE_LIMITS',
    flag: 'rate-limits',
    help: 'per-key request limits (1/0)',
    fallback: '1',
  },
  realtimeHistoryMax: {
    env: 'REALTIME_HISTORY_MAX',
    flag: 'realtime-history-max',
    help: 'realtime publications kept for recovery, all channels together',
    fallback: String(DEFAULT_MAX_HISTORY_PUBLICATIONS),
  },
  realtimeHistoryBytes: {
    env: 'REALTIME_HISTORY_BYTES',
    flag: 'realtime-history-bytes',
    help: 'realtime history bytes kept for recovery, all channels together; an eighth of the V8 heap limit, here',
    fallback: String(defaultMaxHistoryBytes()),
  },
  realtimeBookIntervalMs: {
    env: 'REALTIME_BOOK_INTERVAL_MS',
    flag: 'realtime-book-interval-ms',
    help: "shortest time between two realtime publications of a market's book (0: every batch)",
    fallback: '100',
  },
  allowSlowCrypto: {
    env: 'ALLOW_SLOW_CRYPTO',
    flag: 'allow-slow-crypto',
    help: 'start on pure-JS secp256k1/keccak if the native builds did not load (1/0)',
    fallback: '0',
  },
  siweDomains: {
    env: 'SIWE_DOMAINS',
    flag: 'siwe-domains',
    help: 'origins the web sign-in accepts, [http(s)://]host[:port], http if no scheme (default loopback names of PORT)',
    fallback: '',
  },
  trustProxy: {
    env: 'TRUST_PROXY',
    flag: 'trust-proxy',
    help: 'proxies whose X-Forwarded-For is the client address: a hop count, or addresses/CIDRs (a,b)',
    fallback: '',
  },
  maxConnections: {
    env: 'MAX_CONNECTIONS',
    flag: 'max-connections',
    help: 'open connections at most (keep below ulimit -n)',
    fallback: '10000',
  },
  maxConnectionsPerAddress: {
    env: 'MAX_CONNECTIONS_PER_ADDRESS',
    flag: 'max-connections-per-address',
    help: 'open connections at most from one peer address',
    fallback: '256',
  },
  httpIdleTimeoutMs: {
    env: 'HTTP_IDLE_TIMEOUT_MS',
    flag: 'http-idle-timeout-ms',
    help: 'close a connection idle this long',
    fallback: '30000',
  },
  maxPendingOrders: {
    env: 'MAX_PENDING_ORDERS',
    flag: 'max-pending-orders',
    help: 'orders between signature check and commit at most (503 past it)',
    fallback: '4096',
  },
  parlayQuoteWindowMs: {
    env: 'PARLAY_QUOTE_WINDOW_MS',
    flag: 'parlay-quote-window-ms',
    help: 'how long makers may quote on a parlay request before the requester sees the offers',
    fallback: '3000',
  },
  parlayTakeWindowMs: {
    env: 'PARLAY_TAKE_WINDOW_MS',
    flag: 'parlay-take-window-ms',
    help: 'how long after its quote window the requester may take an offer; then the parlay market closes',
    fallback: '60000',
  },
  parlayFeeBps: {
    env: 'PARLAY_FEE_BPS',
    flag: 'parlay-fee-bps',
    help: "parlay fee on a winner's profit in basis points (500 = 5 %, 0 = none), charged at settlement",
    fallback: '500',
  },
  parlayFeeAccount: {
    env: 'PARLAY_FEE_ACCOUNT',
    flag: 'parlay-fee-account',
    help: 'the exchange account parlay fees are credited to',
    fallback: DEFAULT_FEE_ACCOUNT,
  },
  v2CutoverAt: {
    env: 'V2_CUTOVER_AT',
    flag: 'v2-cutover-at',
    help: 'v3 cut-over, UTC (ISO 8601 or unix seconds): v2 order routes fail and resting v2 orders are cancelled',
    fallback: '2026-08-26T14:00:00Z',
  },
  v2HistoryRemovedAt: {
    env: 'V2_HISTORY_REMOVED_AT',
    flag: 'v2-history-removed-at',
    help: 'from then the v2 trade-history routes answer 404 (ISO 8601 or unix seconds)',
    fallback: '2026-09-14T00:00:00Z',
  },
  legacyWsShutdownAt: {
    env: 'LEGACY_WS_SHUTDOWN_AT',
    flag: 'legacy-ws-shutdown-at',
    help: 'from then the legacy realtime channel names are refused (ISO 8601 or unix seconds)',
    fallback: '2026-07-01T00:00:00Z',
  },
} as const;
type OptionName = keyof typeof OPTIONS;
export type SettingName = OptionName;

export function configHelp(): string {
  const rows = Object.values(OPTIONS).map(
    (o) =>
      `  --${o.flag.padEnd(20)} ${o.env.padEnd(20)} ${o.help}${o.fallback ? ` (default ${o.fallback})` : ''}`,
  );
  return [
    'Options (flag, environment variable, meaning):',
    ...rows,
    '  --no-demo                                 same as DEMO=0',
  ].join('\n');
}

/** A DNS name, such as localhost or a container's name (which may hold underscores). */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/i;

function integer(name: string, raw: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** '' (SQLite), or a postgres:// or postgresql:// URL. */
function databaseUrl(name: string, raw: string): string {
  if (raw === '') return '';
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {}
  if (!url || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:'))
    throw new ConfigError(`${name} must be a postgres:// URL (postgres://user@host:port/database)`);
  return raw;
}

/** '' (buckets in memory), or a redis:// or rediss:// URL. */
function redisUrl(name: string, raw: string): string {
  if (raw === '') return '';
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {}
  if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:'))
    throw new ConfigError(`${name} must be a redis:// URL (redis://host:port)`);
  return raw;
}

/** '' (no cluster), or a nats:// URL. */
function natsUrl(name: string, raw: string): string {
  if (raw === '') return '';
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {}
  if (!url || (url.protocol !== 'nats:' && url.protocol !== 'tls:'))
    throw new ConfigError(`${name} must be a nats:// URL (nats://host:port)`);
  return raw;
}

/** CLUSTER: lower-case letters, digits and hyphens (a NATS subject token and, upper-cased, a stream name). */
function clusterName(name: string, raw: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(raw))
    throw new ConfigError(`${name} must be lower-case letters, digits and hyphens, got "${raw}"`);
  return raw;
}

/**
 * ROLE: `all` (the single process), or a comma list of cluster roles, any mix of them in one process
 * (ADR 0018); `all` is not mixed with others, and a role named twice counts once.
 */
function roles(name: string, raw: string): Roles {
  const names = raw.split(',').map((r) => r.trim());
  const choices = `all or a comma list of ${CLUSTER_ROLES.join(', ')}`;
  if (names.every((r) => r === '')) throw new ConfigError(`${name} is empty: it must be ${choices}`);
  if (names.length === 1 && names[0] === 'all') return 'all';
  if (names.includes('all'))
    throw new ConfigError(
      `${name} all runs every role in one process and is not combined with others, got "${raw}": name the roles instead (e.g. ${CLUSTER_ROLES.join(',')})`,
    );
  for (const role of names) {
    if (role === '') throw new ConfigError(`${name} "${raw}" names an empty role: it must be ${choices}`);
    if (!(CLUSTER_ROLES as readonly string[]).includes(role))
      throw new ConfigError(`${name} must be ${choices}, got "${role}"`);
  }
  return new Set(names as ClusterRole[]);
}

export function shownDatabaseUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return raw;
  }
}

function address(name: string, raw: string): `0x${string}` {
  if (!isAddress(raw, { strict: false }))
    throw new ConfigError(`${name} must be a 20-byte hex address, got "${raw}"`);
  return getAddress(raw);
}

/** The origins a sign-in may be bound to when the operator sets none: the loopback names of the port. */
export function defaultSiweDomains(host: string, port: number): string[] {
  const names = new Set(['127.0.0.1', 'localhost']);
  if (host !== '0.0.0.0' && host !== '::') names.add(host);
  return [...names].map((name) => `http://${name}:${port}`);
}

/**
 * SIWE_DOMAINS: the origins the pages are opened at, `[scheme://]host[:port]`, written out as
 * `scheme://host[:port]`. Without a scheme it is http, the scheme the exchange itself serves; behind a
 * TLS proxy write `https://`.
 */
function siweDomains(name: string, raw: string, host: string, port: string): string[] {
  if (!raw) return defaultSiweDomains(host, Number(port));
  return raw.split(',').map((entry) => {
    const match = /^(?:(https?):\/\/)?([a-zA-Z0-9.-]+(?::[0-9]{1,5})?)$/.exec(entry.trim());
    if (!match)
      throw new ConfigError(
        `${name} must be a comma-separated list of [http(s)://]host[:port], got "${entry.trim()}"`,
      );
    return `${match[1] ?? 'http'}://${match[2]}`;
  });
}

/** An ISO 8601 date-time with its zone (Z or an offset) or unix seconds, as unix ms. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;
export function instant(name: string, raw: string): number {
  if (/^[0-9]{1,11}$/.test(raw)) return Number(raw) * 1000;
  const ms = ISO_INSTANT.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(ms))
    throw new ConfigError(
      `${name} must be an ISO 8601 date-time with a zone (2026-08-26T14:00:00Z) or unix seconds, got "${raw}"`,
    );
  return ms;
}

function flag(name: string, raw: string): boolean {
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be 1 or 0, got "${raw}"`);
}

function oneOf<T extends string>(name: string, raw: string, values: readonly T[]): T {
  if ((values as readonly string[]).includes(raw)) return raw as T;
  throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
}

/** TRUST_PROXY: empty or 0 for none, a hop count, or a comma list of addresses and CIDRs. */
function trustProxy(name: string, raw: string): false | number | string[] {
  if (raw === '' || raw === '0') return false;
  if (/^[0-9]+$/.test(raw)) return integer(name, raw, 0, 100);
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const bitsOk =
      bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!family || !bitsOk || extra !== undefined)
      throw new ConfigError(
        `${name} must be a hop count or addresses/CIDRs separated by commas, got "${entry}"`,
      );
  }
  return entries;
}

/**
 * Parses configuration once, from CLI flags (highest precedence), then the environment, then defaults.
 * Nothing else in the server reads process.env.
 */
export function loadConfig(argv: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = parseArgs({
    args: [...argv],
    options: {
      ...Object.fromEntries(Object.values(OPTIONS).map((o) => [o.flag, { type: 'string' as const }])),
      'no-demo': { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  }).values as Record<string, string | boolean | undefined>;

  const raw = (name: OptionName): string => {
    const option = OPTIONS[name];
    const fromFlag = parsed[option.flag];
    if (typeof fromFlag === 'string') return fromFlag;
    return env[option.env] ?? option.fallback;
  };
  // An error names the setting as the operator gave it: the flag if one was passed, else the variable.
  const label = (name: OptionName): string => {
    const option = OPTIONS[name];
    return typeof parsed[option.flag] === 'string' ? `--${option.flag}` : option.env;
  };

  const networkName = raw('network');
  if (networkName !== 'mainnet' && networkName !== 'testnet') {
    throw new ConfigError(`${label('network')} must be mainnet or testnet, got "${networkName}"`);
  }
  const network = NETWORKS[networkName];
  const logLevel = raw('logLevel') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`${label('logLevel')} must be one of ${LOG_LEVELS.join(', ')}`);
  const adminToken = raw('adminToken');
  if (adminToken && adminToken.length < 16)
    throw new ConfigError(`${label('adminToken')} must be at least 16 characters`);
  const host = raw('host');
  if (!isIP(host) && !HOST_NAME.test(host))
    throw new ConfigError(`${label('host')} must be an IP address or a host name, got "${host}"`);

  return {
    port: integer(label('port'), raw('port'), 0, 65535),
    host,
    dataDir: resolve(raw('dataDir')),
    databaseUrl: databaseUrl(label('databaseUrl'), raw('databaseUrl')),
    redisUrl: redisUrl(label('redisUrl'), raw('redisUrl')),
    natsUrl: natsUrl(label('natsUrl'), raw('natsUrl')),
    cluster: clusterName(label('cluster'), raw('cluster')),
    roles: roles(label('role'), raw('role')),
    network: networkName,
    chainId: network.chainId,
    verifyingContract: raw('verifyingContract')
      ? address(label('verifyingContract'), raw('verifyingContract'))
      : network.verifyingContract,
    baseToken: raw('baseToken') ? address(label('baseToken'), raw('baseToken')) : network.baseToken,
    adminToken,
    demo: parsed['no-demo'] === true ? false : flag(label('demo'), raw('demo')),
    demoMarketMaker: flag(label('demoMarketMaker'), raw('demoMarketMaker')),
    logLevel,
    logFormat: oneOf(label('logFormat'), raw('logFormat'), LOG_FORMATS),
    logRequests: raw('logRequests') === 'auto' ? 'auto' : flag(label('logRequests'), raw('logRequests')),
    blockTimeMs: integer(label('blockTimeMs'), raw('blockTimeMs'), 10, 60_000),
    reconcileIntervalMs: integer(label('reconcileIntervalMs'), raw('reconcileIntervalMs'), 1_000, 86_400_000),
    checkpointIntervalMs: integer(
      label('checkpointIntervalMs'),
      raw('checkpointIntervalMs'),
      100,
      86_400_000,
    ),
    rateLimits: flag(label('rateLimits'), raw('rateLimits')),
    realtimeHistoryMax: integer(label('realtimeHistoryMax'), raw('realtimeHistoryMax'), 1_000, 100_000_000),
    realtimeHistoryBytes: integer(
      label('realtimeHistoryBytes'),
      raw('realtimeHistoryBytes'),
      1_048_576,
      Number.MAX_SAFE_INTEGER,
    ),
    realtimeBookIntervalMs: integer(
      label('realtimeBookIntervalMs'),
      raw('realtimeBookIntervalMs'),
      0,
      60_000,
    ),
    allowSlowCrypto: flag(label('allowSlowCrypto'), raw('allowSlowCrypto')),
    settingNames: Object.fromEntries(
      (Object.keys(OPTIONS) as OptionName[]).map((name) => [name, label(name)]),
    ) as Record<SettingName, string>,
    siweDomains: siweDomains(label('siweDomains'), raw('siweDomains'), raw('host'), raw('port')),
    trustProxy: trustProxy(label('trustProxy'), raw('trustProxy')),
    maxConnections: integer(label('maxConnections'), raw('maxConnections'), 1, 1_000_000),
    maxConnectionsPerAddress: integer(
      label('maxConnectionsPerAddress'),
      raw('maxConnectionsPerAddress'),
      1,
      1_000_000,
    ),
    httpIdleTimeoutMs: integer(label('httpIdleTimeoutMs'), raw('httpIdleTimeoutMs'), 100, 3_600_000),
    maxPendingOrders: integer(label('maxPendingOrders'), raw('maxPendingOrders'), 10, 10_000_000),
    parlayQuoteWindowMs: integer(label('parlayQuoteWindowMs'), raw('parlayQuoteWindowMs'), 0, 3_600_000),
    parlayTakeWindowMs: integer(label('parlayTakeWindowMs'), raw('parlayTakeWindowMs'), 1_000, 3_600_000),
    parlayFeeBps: integer(label('parlayFeeBps'), raw('parlayFeeBps'), 0, 10_000),
    parlayFeeAccount: address(label('parlayFeeAccount'), raw('parlayFeeAccount')),
    v2CutoverAt: instant(label('v2CutoverAt'), raw('v2CutoverAt')),
    v2HistoryRemovedAt: instant(label('v2HistoryRemovedAt'), raw('v2HistoryRemovedAt')),
    legacyWsShutdownAt: instant(label('legacyWsShutdownAt'), raw('legacyWsShutdownAt')),
  };
}
