import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { shareCatalogChanges } from '../cluster/catalog-changes.js';
import { clusterNames } from '../cluster/cluster-names.js';
import { PublicationsFeed } from '../cluster/publications-feed.js';
import { ensurePublicationsStream } from '../cluster/publications-stream.js';
import { remoteLeader } from '../cluster/remote-leader.js';
import type { Config } from '../config/config.js';
import { openApiExchange } from './api-exchange.js';
import type { Exchange, StampedPublications } from './exchange.js';

export type ApiRoleOptions = {
  log: { info(o: object, msg: string): void; error(o: object, msg: string): void };
  onFatal: (error: unknown) => void;
  verifyWorkers?: number;
};

/**
 * `oddsbook serve --role api` (ADR 0018): the exchange an API node serves HTTP and the realtime WebSocket
 * from. Its NATS connection carries intents to the leading sequencer, the chain's calls to the leader, and
 * the leader's stamped publications to its realtime hub; closing the exchange closes it.
 */
export async function openApiNode(config: Config, o: ApiRoleOptions): Promise<Exchange> {
  const names = clusterNames(config.cluster);
  const nc = await connect({ servers: config.natsUrl, timeout: 5_000, maxReconnectAttempts: -1 });
  try {
    const leader = remoteLeader({
      nc,
      subject: names.leader,
      chain: {
        chainId: config.chainId,
        baseToken: config.baseToken,
        escrowAddress: config.verifyingContract,
      },
      reconciliation: {
        onError: (error) => o.log.error({ err: error }, 'the leader’s reconciliation failed'),
      },
    });
    const exchange = await openApiExchange(config, {
      nc,
      names,
      leader: {
        chain: leader.chain,
        multisig: leader.multisig,
        settlement: leader.operations.settlement,
        reconciliation: leader.operations.reconciliation,
        resolveMarket: leader.operations.resolveMarket,
      },
      log: o.log,
      onFatal: o.onFatal,
      ...(o.verifyWorkers !== undefined ? { verifyWorkers: o.verifyWorkers } : {}),
    });
    const stampedPublications: StampedPublications = async (handler) => {
      const jsm = await jetstreamManager(nc);
      await ensurePublicationsStream(jsm, names);
      const feed = new PublicationsFeed({
        js: jetstream(nc),
        jsm,
        stream: names.publicationsStream,
        now: () => exchange.clock.now(),
        handler,
        onSkipped: (streamSeq, reason) => o.log.info({ streamSeq, reason }, 'a publications message skipped'),
        onFatal: o.onFatal,
      });
      await feed.start();
      return () => feed.stop();
    };
    const stopCatalog = await shareCatalogChanges({
      nc,
      subject: names.catalog,
      catalog: exchange.catalog,
      onError: (error) => o.log.error({ err: error }, 'a catalog change from another node was not read'),
    });
    return {
      ...exchange,
      stampedPublications,
      async close() {
        stopCatalog();
        await exchange.close();
        if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
      },
    };
  } catch (error) {
    await nc.close();
    throw error;
  }
}
