import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { shareCatalogChanges } from '../cluster/catalog-changes.js';
import { clusterNames } from '../cluster/cluster-names.js';
import { ensurePublicationsStream } from '../cluster/publications-stream.js';
import { remoteLeader } from '../cluster/remote-leader.js';
import type { Config } from '../config/config.js';
import { RecoveryError } from '../sequencer/recovery.js';
import { PostgresJournal } from '../store/postgres/postgres-journal.js';
import { openPostgresTradingStorage } from '../store/postgres/postgres-trading-storage.js';
import { type LeasedRoleNode, type LeasedRoleOptions, startLeasedRole } from './leased-role.js';
import { startRealtimeStamping } from './realtime-stamping.js';
import { openReplicaNode } from './replica-node.js';

/**
 * `oddsbook serve --role projector` (ADR 0018): the projections on PostgreSQL and the realtime
 * publications, written by one node at a time under the projector lease. Leading, it catches the
 * projections up from `projector_cursor` (the entries after it, handed to the projector while the replica
 * recovers), then follows the journal with a replica (`replica-node.ts`) whose pipeline projects each
 * committed batch and hands it, with its rows, to the realtime stamping: publications numbered under
 * the lease's epoch (a restarted projector never reuses an epoch's names) on the publications stream. API
 * nodes' read-your-writes read the cursor it moves. Every projection transaction is fenced by the lease's
 * epoch (`LeaseFenced`: the node is deposed), so a projector that lost its lease without noticing (a pause,
 * a partition) commits nothing beside its successor.
 */
export function startProjectorRole(config: Config, o: LeasedRoleOptions): Promise<LeasedRoleNode> {
  const names = clusterNames(config.cluster);
  return startLeasedRole(config, 'projector', o, async ({ nc, database, epoch, deposed }) => {
    await ensurePublicationsStream(await jetstreamManager(nc), names);
    const journal = await PostgresJournal.open(database.pool);
    // Fenced by the lease's epoch: once a successor holds the lease, no projection of this node commits.
    const storage = await openPostgresTradingStorage(
      database,
      { settlementSince: journal.features.chainSettlement },
      { fence: { role: 'projector', epoch, onFenced: deposed } },
    );
    const projectedSeq = storage.catchUp.cursor();
    const journalSeq = (await journal.last()).seq;
    if (projectedSeq > journalSeq) {
      await storage.close();
      throw new RecoveryError(
        `the projections are at seq ${projectedSeq}, past the journal's end (${journalSeq}): empty them to rebuild them`,
      );
    }
    // Proxy wallets are computed here; nothing of the chain node is asked.
    const chain = remoteLeader({
      nc,
      subject: names.leader,
      chain: {
        chainId: config.chainId,
        baseToken: config.baseToken,
        escrowAddress: config.verifyingContract,
      },
    }).chain;
    const replica = await openReplicaNode(config, {
      database,
      nc,
      names,
      chain,
      projections: () => storage.projector(),
      recovery: {
        after: projectedSeq,
        onEntries: async (entries) => void (await storage.catchUp.project(entries)),
      },
      log: o.log,
      onFatal: deposed,
    }).catch(async (error: unknown) => {
      await storage.close();
      throw error;
    });
    const stopCatalog = await shareCatalogChanges({
      nc,
      subject: names.catalog,
      catalog: replica.catalog,
      onError: (error) => o.log.error({ err: error }, 'a catalog change from another node was not read'),
    });
    const stamping = startRealtimeStamping(replica, {
      js: jetstream(nc),
      subject: names.publications,
      leaderEpoch: epoch,
      log: o.log,
    });
    return {
      lastSeq: () => replica.trading.pipeline.projectedSeq,
      async stop({ deposed: now }) {
        stopCatalog();
        if (now) {
          // Lost the lease: nothing more is written or published, whatever is under way.
          replica.trading.pipeline.setPublisher(null);
          await replica.follower.stop();
        }
        await replica.close();
        await stamping.stop();
        await storage.close();
      },
    };
  });
}
