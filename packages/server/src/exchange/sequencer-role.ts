import { hostname } from 'node:os';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ladderSize } from '@oddsbook/protocol';
import { shareCatalogChanges } from '../cluster/catalog-changes.js';
import { clusterNames } from '../cluster/cluster-names.js';
import { CommittedPublisher, ensureCommittedStream } from '../cluster/committed-stream.js';
import { FirstResults } from '../cluster/first-results.js';
import { LeaderServices } from '../cluster/leader-services.js';
import { ensurePublicationsStream } from '../cluster/publications-stream.js';
import { RecentEntries } from '../cluster/recent-entries.js';
import { remoteLeader } from '../cluster/remote-leader.js';
import { SequencerIntake } from '../cluster/sequencer-intake.js';
import { type LeadingSequencer, SequencerNode, type SequencerNodeRole } from '../cluster/sequencer-node.js';
import type { Config } from '../config/config.js';
import { systemClock } from '../lib/clock.js';
import { committedBatch } from '../sequencer/committed-batch.js';
import { openPostgres, type PostgresDatabase } from '../store/postgres/postgres-database.js';
import { type ChainElsewhere, type Exchange, openExchange } from './exchange.js';
import { type RealtimeStamping, startRealtimeStamping } from './realtime-stamping.js';

export type SequencerRoleLog = {
  info(o: object, msg: string): void;
  error(o: object, msg: string): void;
};

export type SequencerRoleOptions = {
  log: SequencerRoleLog;
  /** This node stopped leading (fenced, its lease lost, a commit failed): the process must stop. */
  onDeposed: (reason: unknown) => void;
  /** It leads: `exchange` is open and the intake serves (its figures can be watched from now on). */
  onLeading?: (exchange: Exchange) => void;
};

export type SequencerRole = {
  readonly node: SequencerNode;
  /** The exchange this node runs while it leads; null while standby. */
  readonly exchange: Exchange | null;
  /** `standby`, `taking-over` (won the lease, the exchange opening), `leader` (serving), `deposed`, `stopped`. */
  readonly state: SequencerNodeRole;
  /** The epoch it leads under; null until it leads. */
  readonly epoch: number | null;
  /** The last journal seq of its state: the exchange's while it leads, the standby's before. */
  readonly lastSeq: number;
  stop(): Promise<void>;
};

/**
 * `oddsbook serve --role sequencer[,projector][,chain]` (ADR 0018): a cluster sequencer node. While standby
 * it follows the PostgreSQL journal and tries the lease. Once it leads it opens the exchange as the single
 * process does (engine and admission, due work, the pipeline), appending to the journal fenced by its
 * epoch; serves the NATS intake (`oddsbook.sequencer.submit`) and publishes every committed batch on the
 * JetStream stream. The roles it carries run with it: `projector` (the projections and the realtime
 * publications' stamping) and `chain` (the embedded chain, the settlement driver, reconciliation and the
 * leader's services on `oddsbook.leader.rpc`); those it does not carry are projector and chain nodes'
 * (`projector-role.ts`, `chain-role.ts`). Deposed, it stops for good (`onDeposed`): a supervisor starts
 * it again, as a standby.
 */
export async function startSequencerRole(config: Config, o: SequencerRoleOptions): Promise<SequencerRole> {
  const names = clusterNames(config.cluster);
  const carries = carriedRoles(config);
  // No async stack traces: each JetStream publish (one per batch) would capture two stacks for errors that rarely come.
  const nc = await connect({
    servers: config.natsUrl,
    timeout: 5_000,
    maxReconnectAttempts: -1,
    noAsyncTraces: true,
  });
  let database: PostgresDatabase;
  try {
    database = await openPostgres({ url: config.databaseUrl, poolSize: 4 });
    await ensureCommittedStream(await jetstreamManager(nc), names);
    await ensurePublicationsStream(await jetstreamManager(nc), names);
  } catch (error) {
    await nc.close();
    throw error;
  }
  // Warmed while standby (the orders its former leader answered), so that a client's retry reaching this
  // node after a failover is answered with its first result.
  const firstResults = new FirstResults();
  // What the projector and the chain driver catch up from when this node takes the lead.
  const recent = new RecentEntries();
  let exchange: Exchange | null = null;
  let intake: SequencerIntake | null = null;
  let services: LeaderServices | null = null;
  let stopCatalog = () => {};
  let publisher: CommittedPublisher | null = null;
  let realtime: RealtimeStamping | null = null;
  let stopped = false;
  let epoch: number | null = null;
  let serving = false;

  const lead = async (leader: LeadingSequencer): Promise<void> => {
    epoch = leader.epoch;
    // Trading takes over the standby's state (engine, admission, recent entries), appending to the journal
    // fenced by its epoch; the node's own sequencer object stays unused. When the projector's or the chain's
    // cursor is behind the recent entries kept, trading recovers from the newest checkpoint instead.
    const opened = await openExchange(config, {
      journal: leader.journal,
      hot: {
        ...leader.state,
        lastSeq: leader.lastSeq,
        recent: (seq) => recent.after(seq),
      },
      log: o.log,
      onFatal: (error) => deposed(error),
      elsewhere: {
        ...(carries.projector ? {} : { projector: true }),
        ...(carries.chain ? {} : { chain: chainNode(config, nc, o.log) }),
      },
    });
    if (stopped) {
      await opened.close();
      return;
    }
    exchange = opened;
    const pub = new CommittedPublisher({
      js: jetstream(nc),
      subject: names.subject,
      onDropped: (rows, error) =>
        o.log.error({ err: error, lastSeq: rows.at(-1)?.seq }, 'a committed batch was not published'),
    });
    publisher = pub;
    opened.trading.sequencer.onCommitted((batch) => {
      firstResults.follow(batch);
      pub.publish(batch);
    });
    // The realtime nodes' publications, numbered here under this leader's epoch, when the projector is here.
    if (carries.projector) {
      const stampingOptions = { js: jetstream(nc), subject: names.publications, log: o.log };
      realtime = startRealtimeStamping(opened, { ...stampingOptions, leaderEpoch: leader.epoch });
    }
    intake = new SequencerIntake({
      nc,
      sequencer: opened.trading.sequencer,
      firstResults,
      subject: names.submit,
    });
    await intake.start();
    if (carries.chain) {
      services = new LeaderServices({
        nc,
        subject: names.leader,
        chain: opened.chain,
        multisig: opened.multisig,
        resolveMarket: (marketHash, outcome) => opened.trading.resolveMarket(marketHash, outcome),
        reconciliation: opened.reconciliation,
        settlement: opened.settlement,
      });
      await services.start();
    }
    // Catalog changes made on API nodes: dropped from this node's caches and published to realtime here.
    stopCatalog = await shareCatalogChanges({
      nc,
      subject: names.catalog,
      catalog: opened.catalog,
      onError: (error) => o.log.error({ err: error }, 'a catalog change from another node was not read'),
    });
    serving = true;
    o.onLeading?.(opened);
    o.log.info(
      { role: 'sequencer', state: 'leader', epoch: leader.epoch, lastSeq: opened.trading.sequencer.lastSeq },
      carries.chain
        ? 'leading: serving the sequencer intake and the leader services'
        : 'leading: serving the sequencer intake',
    );
  };

  let gone = false;
  const deposed = (reason: unknown) => {
    if (gone || stopped) return;
    gone = true;
    o.log.error({ err: reason }, 'this sequencer no longer leads');
    void intake?.stop();
    void services?.stop();
    o.onDeposed(reason);
  };

  const node = await SequencerNode.start({
    database,
    node: `${hostname()}:${process.pid}`,
    ladderSize: ladderSize(),
    clock: systemClock,
    stream: { js: jetstream(nc), stream: names.stream },
    onLeading: (leader) =>
      void lead(leader).catch((error: unknown) => {
        o.log.error({ err: error }, 'taking the lead failed');
        deposed(error);
      }),
    onDeposed: deposed,
    onEntries: (entries) => {
      firstResults.follow(committedBatch(entries));
      recent.add(entries);
    },
    onError: (error) => o.log.error({ err: error }, 'following the journal failed (retried)'),
  });
  o.log.info(
    { role: 'sequencer', state: 'standby', lastSeq: node.lastSeq },
    'standby: following the committed stream and the journal',
  );

  return {
    node,
    get exchange() {
      return exchange;
    },
    get state() {
      if (gone) return 'deposed';
      return node.role === 'leader' && !serving ? 'taking-over' : node.role;
    },
    get epoch() {
      return epoch;
    },
    get lastSeq() {
      return exchange ? exchange.trading.sequencer.lastSeq : node.lastSeq;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await intake?.stop();
      await services?.stop();
      stopCatalog();
      await exchange?.close();
      await realtime?.stop();
      await publisher?.flushed();
      await node.stop();
      await closeQuietly(nc);
      await database.close();
    },
  };
}

/** The roles a sequencer node runs besides its own: `--role sequencer,projector,chain` is the whole leader. */
export function carriedRoles(config: Config): { projector: boolean; chain: boolean } {
  if (config.roles === 'all') return { projector: true, chain: true };
  const roles = config.roles as ReadonlySet<string>;
  return { projector: roles.has('projector'), chain: roles.has('chain') };
}

/** The chain node's parts over NATS (`<cluster>.leader.rpc`), for a sequencer that does not carry the chain. */
function chainNode(config: Config, nc: NatsConnection, log: SequencerRoleLog): ChainElsewhere {
  const leader = remoteLeader({
    nc,
    subject: clusterNames(config.cluster).leader,
    chain: { chainId: config.chainId, baseToken: config.baseToken, escrowAddress: config.verifyingContract },
    reconciliation: {
      onError: (error) => log.error({ err: error }, 'the chain node’s reconciliation failed'),
    },
  });
  return {
    chain: leader.chain,
    multisig: leader.multisig,
    settlement: leader.operations.settlement,
    reconciliation: leader.operations.reconciliation,
    resolveMarket: leader.operations.resolveMarket,
  };
}

async function closeQuietly(nc: NatsConnection): Promise<void> {
  if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
}
