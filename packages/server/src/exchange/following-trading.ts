import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { ladderSize } from '@oddsbook/protocol';
import { clusterNames } from '../cluster/cluster-names.js';
import { JournalFollower } from '../cluster/journal-follower.js';
import { RemoteSequencer } from '../cluster/remote-sequencer.js';
import type { Config } from '../config/config.js';
import type { Journal } from '../sequencer/journal.js';
import type { RecoveryOptions } from '../sequencer/recovery.js';
import type { Sequencer } from '../sequencer/sequencer.js';
import type { PostgresDatabase } from '../store/postgres/postgres-database.js';
import type { ProjectionWriter } from '../store/projection.js';
import type { TradingReads } from '../store/trading-reads.js';
import { openReplicaTrading } from '../trading/replica-trading.js';
import type { Trading, TradingParts } from '../trading/trading.js';

export type FollowingTradingOptions = Omit<TradingParts, 'ladderSize' | 'baseToken' | 'maxPendingOrders'> & {
  config: Config;
  database: Pick<PostgresDatabase, 'connect'>;
  journal: Pick<Journal, 'after' | 'latestCheckpoint' | 'features'>;
  nc: NatsConnection;
  /** The leading sequencer's intake subject. */
  submit: string;
  /** The committed stream the replica takes the leader's rows from (default the cluster's, `config.cluster`). */
  committedStream?: string;
  reads: TradingReads;
  /** Where the replica's batches are projected, made once the follower is at the journal's end (its seq). */
  projections: (startSeq: number) => ProjectionWriter;
  /** The entries replayed at the start after `after`, handed on before following (a catch-up). */
  recovery?: RecoveryOptions;
  resolveMarket: Trading['resolveMarket'];
  /** How long an intent keeps retrying while no sequencer answers (default RemoteSequencer's). */
  sequencerDeadlineMs?: number;
  /** Where what was opened is registered for closing, in order (the caller closes it in reverse). */
  closing: (() => Promise<void>)[];
};

/**
 * Trading on a replica of the journal (ADR 0018), as API, projector and chain nodes run it: a
 * `JournalFollower` taking the leader's rows from the committed stream (gaps from the journal, on a LISTEN
 * connection of its own), whose entries a forward-only sequencer hands on as
 * committed batches (`openReplicaTrading`); intents go to the leader over NATS.
 */
export async function openFollowingTrading(
  o: FollowingTradingOptions,
): Promise<{ trading: Trading; follower: JournalFollower }> {
  let replica: Sequencer | undefined;
  const listener = await o.database.connect();
  o.closing.push(() => listener.end());
  const follower = await JournalFollower.start({
    journal: o.journal,
    listener,
    ladderSize: ladderSize(),
    stream: { js: jetstream(o.nc), stream: o.committedStream ?? clusterNames(o.config.cluster).stream },
    ...(o.recovery ? { recovery: o.recovery } : {}),
    onEntries: (entries) => replica?.followed(entries),
    onError: (error) => o.log.error({ err: error }, 'following the journal failed (retried)'),
  });
  o.closing.push(() => follower.stop());
  const trading = openReplicaTrading({
    catalog: o.catalog,
    catalogRepository: o.catalogRepository,
    wallets: o.wallets,
    verifier: o.verifier,
    clock: o.clock,
    baseToken: o.config.baseToken,
    ladderSize: ladderSize(),
    maxPendingOrders: o.config.maxPendingOrders,
    onFatal: o.onFatal,
    log: o.log,
    reads: o.reads,
    follower,
    forward: new RemoteSequencer({
      nc: o.nc,
      subject: o.submit,
      ...(o.sequencerDeadlineMs ? { deadlineMs: o.sequencerDeadlineMs } : {}),
    }),
    projections: o.projections(follower.lastSeq),
    resolveMarket: o.resolveMarket,
  });
  replica = trading.sequencer;
  o.closing.push(() => trading.close());
  return { trading, follower };
}
