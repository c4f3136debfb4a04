import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ApiKeys } from '../auth/api-keys.js';
import { CatalogService } from '../catalog/catalog-service.js';
import { clusterNames } from '../cluster/cluster-names.js';
import { PublicationsFeed } from '../cluster/publications-feed.js';
import { ensurePublicationsStream } from '../cluster/publications-stream.js';
import { registerServingNode } from '../cluster/serving-node.js';
import type { Config } from '../config/config.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { closerStack } from '../lib/closers.js';
import { exitOnSignals } from '../lib/exit-on-signals.js';
import { createRealtimeHub, type RealtimeHub } from '../realtime/hub.js';
import type { RealtimeHubOptions } from '../realtime/options.js';
import { openPostgres, type PostgresDatabase } from '../store/postgres/postgres-database.js';
import { openPostgresRevocations } from '../store/postgres/postgres-revocation-broadcast.js';
import { createPostgresStore } from '../store/postgres/postgres-store.js';
import type { RevocationBroadcast } from '../store/revocation-broadcast.js';
import { realtimeLoggerOf } from './exchange-publications.js';
import { exchangeHubOptions } from './exchange-realtime.js';

export type RealtimeRoleLog = { info(o: object, msg: string): void; error(o: object, msg: string): void };

export type RealtimeRoleOptions = {
  log: RealtimeRoleLog;
  /** The feed of publications stopped: the node no longer serves what happens (its supervisor restarts it). */
  onFatal: (error: unknown) => void;
  clock?: Clock;
  /** Hub settings beyond the exchange's (tests shorten pings, for instance). */
  hub?: Omit<RealtimeHubOptions, 'verifyToken' | 'logger' | 'numbering'>;
  /** How far back the publications stream is read at start, ms (default 5 minutes). */
  fillMs?: number;
};

export type RealtimeRole = {
  readonly hub: RealtimeHub;
  readonly feed: PublicationsFeed;
  /** The port it listens on (config.port, or the one the system gave for 0). */
  readonly port: number;
  stop(): Promise<void>;
};

/** The realtime part of a node: its hub, fed by the stamped publications, and how it stops. */
export type RealtimeFeed = {
  readonly hub: RealtimeHub;
  readonly feed: PublicationsFeed;
  stop(): Promise<void>;
};

/**
 * The realtime hub of a cluster node (ADR 0018), served from the leader's stamped publications. Tokens are
 * checked as the exchange checks them (its secret in the store, an API key still active: revocations on
 * other nodes arrive over PostgreSQL and end the key's sessions here); the channel policy is the
 * exchange's, so account channels are for their owner only. Before it resolves, it fills its history from
 * the stream's last five minutes, so a client moving here from another node recovers what it missed. The
 * caller attaches the hub to its HTTP server.
 */
export async function openRealtimeFeed(config: Config, o: RealtimeRoleOptions): Promise<RealtimeFeed> {
  const clock = o.clock ?? systemClock;
  const names = clusterNames(config.cluster);
  const closers = closerStack();
  try {
    const database: PostgresDatabase = await openPostgres({ url: config.databaseUrl, poolSize: 4 });
    closers.push(() => database.close());
    const store = createPostgresStore(database);
    const realtimeSecret = await store.secrets.keep(
      'realtime-token',
      randomBytes(32).toString('base64url'),
      clock.now(),
    );
    let apiKeys: ApiKeys | undefined;
    const revocations: RevocationBroadcast = await openPostgresRevocations(database, {
      onReconnect: () =>
        void apiKeys?.resync().catch((error) => o.log.error({ err: error }, 'api keys resync failed')),
    });
    closers.push(() => revocations.close());
    const keys = await ApiKeys.load(store, revocations);
    apiKeys = keys;
    closers.push(
      revocations.subscribe((revocation) => {
        if (revocation.kind === 'api-key') keys.revokedElsewhere(revocation.id);
        // A key an API node issued after this node loaded its keys: its tokens are good here too.
        else if (revocation.kind === 'api-key-issued')
          void keys
            .issuedElsewhere(revocation.id)
            .catch((error) => o.log.error({ err: error }, 'reading a key issued elsewhere failed'));
      }),
    );
    const catalog = new CatalogService({ repository: store.catalog, clock });
    const hub = createRealtimeHub({
      ...exchangeHubOptions(
        {
          realtimeSecret,
          clock,
          apiKeys: keys,
          catalog,
          config,
          legacyChannelsOpen: () => clock.now() < config.legacyWsShutdownAt,
        },
        {
          ...(o.hub ? { hub: o.hub } : {}),
          logger: realtimeLoggerOf(o.log),
        },
      ),
      numbering: 'stamped',
    });
    closers.push(() => hub.close());
    closers.push(keys.onRevoke((record) => hub.disconnectKey(record.id)));

    const nc: NatsConnection = await connect({
      servers: config.natsUrl,
      timeout: 5_000,
      maxReconnectAttempts: -1,
    });
    closers.push(() => (nc.isClosed() ? undefined : nc.drain().catch(() => nc.close())));
    const jsm = await jetstreamManager(nc);
    await ensurePublicationsStream(jsm, names);
    const feed = new PublicationsFeed({
      js: jetstream(nc),
      jsm,
      stream: names.publicationsStream,
      ...(o.fillMs !== undefined ? { fillMs: o.fillMs } : {}),
      now: () => clock.now(),
      handler: (publications) => hub.publishStamped(publications),
      onSkipped: (streamSeq, reason) => o.log.info({ streamSeq, reason }, 'a publications message skipped'),
      onFatal: o.onFatal,
    });
    await feed.start();
    closers.push(() => feed.stop());
    return { hub, feed, stop: () => closers.closeAll() };
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}

/**
 * `oddsbook serve --role realtime` (ADR 0018): the realtime hub (`openRealtimeFeed`) on the Centrifugo
 * WebSocket (`/connection/websocket`) of its own HTTP server on PORT/HOST, with `/health` beside it,
 * registered in `cluster_nodes` once it listens (after its history is filled).
 */
export async function startRealtimeRole(config: Config, o: RealtimeRoleOptions): Promise<RealtimeRole> {
  const realtime = await openRealtimeFeed(config, o);
  const { hub, feed } = realtime;
  const closers = closerStack();
  closers.push(() => realtime.stop());
  try {
    const server = createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/health') {
        const { connections, subscriptions, topics, historyKept } = hub.stats();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            status: 'ok',
            role: 'realtime',
            leaderEpoch: feed.counts.leaderEpoch,
            connections,
            subscriptions,
            topics,
            historyKept,
          }),
        );
        return;
      }
      res.writeHead(404).end();
    });
    hub.attach(server);
    await listen(server, config.port, config.host);
    closers.push(() => closeServer(server));
    const registered = await registerServingNode(config, {
      roles: ['realtime'],
      address: server.address(),
      status: () => ({ state: 'serving', epoch: null, lastSeq: 0 }),
      log: o.log,
    });
    // Out of cluster_nodes first, so that nobody takes a stopping node for a live one.
    closers.push(() => registered.stop());
    o.log.info(
      {
        role: 'realtime',
        port: (server.address() as AddressInfo).port,
        filled: feed.counts.handled,
        leaderEpoch: feed.counts.leaderEpoch,
      },
      'serving the realtime WebSocket from the stamped publications',
    );
    return { hub, feed, port: (server.address() as AddressInfo).port, stop: () => closers.closeAll() };
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * `serve --role realtime` in its process: exits 1 when the feed stops (its supervisor starts it again, and
 * it fills from the stream), 0 on SIGTERM or SIGINT once closed (clients reconnect to another node).
 */
export async function serveRealtimeRole(config: Config, log: RealtimeRoleLog): Promise<undefined> {
  let role: RealtimeRole | undefined;
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (role?.stop() ?? Promise.resolve()).catch((error: unknown) =>
      log.error({ err: error }, 'stopping failed'),
    );
    return stopping;
  };
  role = await startRealtimeRole(config, {
    log,
    onFatal: (error) => {
      log.error({ err: error }, 'the publications feed stopped');
      void stop().finally(() => process.exit(1));
    },
  });
  exitOnSignals(stop, log);
  return undefined;
}
