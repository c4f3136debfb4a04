import { nodeStatusOf, type RoleStatus } from './cluster/node-status.js';
import { checkDataDir } from './commands/check-data-dir.js';
import { clusterRolesOf } from './config/cluster-roles.js';
import type { ClusterRole, Config } from './config/config.js';
import { listenRefusal } from './config/listen-refusal.js';
import { startChainRole } from './exchange/chain-role.js';
import type { LeasedRoleNode } from './exchange/leased-role.js';
import { startProjectorRole } from './exchange/projector-role.js';
import { openRealtimeFeed, type RealtimeFeed, serveRealtimeRole } from './exchange/realtime-role.js';
import { type SequencerRole, startSequencerRole } from './exchange/sequencer-role.js';
import { type ServedNode, serveNode } from './http/serve-node.js';
import { exitOnSignals } from './lib/exit-on-signals.js';
import { jsonLog } from './lib/json-log.js';
import { type ServedApi, serveApiNode } from './serve-api-node.js';

/**
 * `oddsbook serve --role <roles>`: a cluster node running any mix of the roles in one process (ADR 0018),
 * each by its own starter, behind one HTTP server on PORT/HOST.
 * - The HTTP server: with `api`, the API app (`serveApiNode`: the whole API, its WebSocket, /health,
 *   /metrics and /admin/cluster for every role of the process); its realtime hub already serves the
 *   stamped publications, so `realtime` beside `api` adds nothing. Without `api`, the node's status server
 *   (`serveNode`: /health, /metrics, /admin/cluster), with the realtime hub (`openRealtimeFeed`) on its
 *   WebSocket when `realtime` is named. `realtime` alone keeps its own server (`serveRealtimeRole`).
 * - The leading roles: `sequencer` (carrying the projector and the chain when they are named,
 *   `startSequencerRole`), else `projector` and `chain`, each under its lease. An API beside a sequencer
 *   sends its intents to the leader over NATS, as any API node: wherever the leader is.
 * - One row in `cluster_nodes` with every role and one status (`nodeStatusOf`).
 * It listens and registers before a role can take a lease (a port in use: exit 2, nothing taken). A role
 * deposed or broken stops the process (exit 1: its supervisor starts it again, as a standby); SIGTERM or
 * SIGINT stops every role (exit 0): out of the registry first, then the API drained (its requests may
 * still need the leader here), the realtime hub, the leading roles, the status server last.
 */
export async function serveClusterNode(config: Config): Promise<undefined> {
  const roles = clusterRolesOf(config);
  const has = (role: ClusterRole) => roles.includes(role);
  const log = jsonLog();
  if (roles.length === 1 && has('realtime')) return serveRealtimeRole(config, log);
  checkDataDir(config);

  let sequencer: SequencerRole | null = null;
  const leased: LeasedRoleNode[] = [];
  let api: ServedApi | null = null;
  let realtime: RealtimeFeed | null = null;
  let served: ServedNode | null = null;

  const roleStatus = (role: ClusterRole): RoleStatus => {
    const starting = { role, state: 'starting', epoch: null, lastSeq: 0 };
    if (role === 'api')
      return { ...starting, state: 'serving', lastSeq: api?.exchange.trading.sequencer.lastSeq ?? 0 };
    if (role === 'realtime') return { ...starting, state: 'serving' };
    // The projector and the chain a sequencer carries run with it: its state is theirs.
    const leading =
      role === 'sequencer' || has('sequencer') ? sequencer : leased.find((n) => n.role === role);
    return leading
      ? { role, state: leading.state, epoch: leading.epoch, lastSeq: leading.lastSeq }
      : starting;
  };
  const status = () => nodeStatusOf(roles.map(roleStatus));

  let stopping: Promise<void> | null = null;
  function stop(): Promise<void> {
    stopping ??= (async () => {
      // Out of cluster_nodes first, so that nobody takes a stopping node for a live one.
      await (api ?? served)?.leave();
      await api?.stop();
      await realtime?.stop();
      await sequencer?.stop();
      for (const node of leased) await node.stop();
      await served?.stop();
    })().catch((error: unknown) => log.error({ err: error }, 'stopping failed'));
    return stopping;
  }
  const fail = () => void stop().finally(() => process.exit(1));

  try {
    if (has('api')) {
      api = await serveApiNode(config, { roles, status, onFatal: fail });
    } else {
      if (has('realtime'))
        realtime = await openRealtimeFeed(config, {
          log,
          onFatal: (error) => {
            log.error({ err: error }, 'the publications feed stopped');
            fail();
          },
        });
      const hub = realtime?.hub;
      served = await serveNode(config, {
        roles,
        status,
        log,
        ...(hub ? { attach: (server) => hub.attach(server) } : {}),
      }).catch((error: unknown) => {
        throw listenRefusal(error, config) ?? error;
      });
      log.info(
        { roles, address: served.address, ...(has('sequencer') ? { role: 'sequencer' } : {}) },
        hub
          ? 'serving /health, /metrics, /admin/cluster and the realtime WebSocket'
          : 'serving /health, /metrics and /admin/cluster',
      );
    }
    const options = { log, onDeposed: fail };
    if (has('sequencer')) {
      const node = served;
      sequencer = await startSequencerRole(config, {
        ...options,
        // The API's /metrics has its own exchange's figures: the leader's go to the status server only.
        ...(node ? { onLeading: (exchange) => node.leading(exchange) } : {}),
      });
    } else {
      if (has('projector')) leased.push(await startProjectorRole(config, options));
      if (has('chain')) leased.push(await startChainRole(config, options));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  exitOnSignals(stop, log);
  return undefined;
}
