import type { Engine } from '../engine/index.js';
import type { Clock } from '../lib/clock.js';
import type { Admission } from '../sequencer/admission.js';
import { Sequencer, type SequencerOptions } from '../sequencer/sequencer.js';
import type { PostgresDatabase } from '../store/postgres/postgres-database.js';
import { PostgresJournal } from '../store/postgres/postgres-journal.js';
import {
  type CommittedStreamSource,
  JournalFollower,
  type JournalFollowerOptions,
} from './journal-follower.js';
import { SequencerLease } from './sequencer-lease.js';

/** What a node that has just taken the lead hands to whoever runs trading. */
export type LeadingSequencer = {
  epoch: number;
  /** Ready at the journal's end (engine and admission as a fresh start would have them), appending under `epoch`. */
  sequencer: Sequencer;
  /** The standby's trading state it was built on, for trading to take over as it is (`HotState`). */
  state: { engine: Engine; admission: Admission };
  /** The journal fenced by `epoch` (for checkpoints; the sequencer appends through it). */
  journal: PostgresJournal;
  lastSeq: number;
  /** Milliseconds from winning the lease to the sequencer being ready (epoch bump and reading to the end). */
  takeoverMs: number;
};

export type SequencerNodeRole = 'standby' | 'taking-over' | 'leader' | 'deposed' | 'stopped';

export type SequencerNodeOptions = {
  database: Pick<PostgresDatabase, 'pool' | 'connect'>;
  /** This node's name (`sequencer_leader.node`). */
  node: string;
  ladderSize: number;
  clock: Clock;
  /** Called once, when this node leads. */
  onLeading: (leader: LeadingSequencer) => void;
  /**
   * Called once, when this node stops leading (its journal fenced by a successor, its lease session lost,
   * its sequencer failed) or fails to take over. It never appends again; to serve again the process starts
   * a new node, which begins as a standby.
   */
  onDeposed: (reason: unknown) => void;
  /** The committed stream the standby takes the leader's rows from (else the journal alone). */
  stream?: CommittedStreamSource;
  /** A standby's read of the journal that failed (retried). */
  onError?: (error: unknown) => void;
  /** Told of the entries the standby follows, with their events (warming what the leader will need). */
  onEntries?: JournalFollowerOptions['onEntries'];
  /** Sequencer settings besides its state and journal. */
  sequencer?: Pick<SequencerOptions, 'maxQueue' | 'maxBatch' | 'overlapAfterMs'>;
  leaseKey?: string;
  tryEveryMs?: number;
  pollMs?: number;
};

/**
 * A sequencer of the cluster (ADR 0018, points 2 and 3): a hot standby that follows the journal while it
 * tries the lease; on winning it bumps the leader epoch, stops following, reads the journal to its end and
 * hands on a sequencer at that seq whose journal appends under the new epoch. Losing the lease's session or
 * being fenced deposes it at once: its journal refuses every later append.
 */
export class SequencerNode {
  private state: SequencerNodeRole = 'standby';
  private leader: LeadingSequencer | null = null;
  private journal: PostgresJournal | null = null;

  private constructor(
    private readonly options: SequencerNodeOptions,
    private readonly lease: SequencerLease,
    readonly follower: JournalFollower,
    private readonly base: PostgresJournal,
  ) {}

  /** Recovers the state from the journal, follows it, and begins trying the lease. */
  static async start(options: SequencerNodeOptions): Promise<SequencerNode> {
    const base = await PostgresJournal.open(options.database.pool);
    const listener = await options.database.connect();
    let follower: JournalFollower;
    try {
      follower = await JournalFollower.start({
        journal: base,
        listener,
        ladderSize: options.ladderSize,
        ...(options.pollMs ? { pollMs: options.pollMs } : {}),
        ...(options.stream ? { stream: options.stream } : {}),
        ...(options.onError ? { onError: options.onError } : {}),
        ...(options.onEntries ? { onEntries: options.onEntries } : {}),
      });
    } catch (error) {
      await listener.end().catch(() => {});
      throw error;
    }
    const lease = new SequencerLease({
      client: await options.database.connect(),
      node: options.node,
      clock: options.clock,
      ...(options.leaseKey ? { key: options.leaseKey } : {}),
      ...(options.tryEveryMs ? { tryEveryMs: options.tryEveryMs } : {}),
    });
    const node = new SequencerNode(options, lease, follower, base);
    node.campaign(listener);
    return node;
  }

  get role(): SequencerNodeRole {
    return this.state;
  }

  /** The seq this node's state is at: the follower's while standby, the sequencer's while leading. */
  get lastSeq(): number {
    return this.leader ? this.leader.sequencer.lastSeq : this.follower.lastSeq;
  }

  /** The lease's backend pid (tests terminate it to simulate a dead leader). */
  leaseBackendPid(): Promise<number> {
    return this.lease.backendPid();
  }

  /** Stops: a standby stops following; a leader stops taking inputs, lets the queued ones commit, and gives up the lease. */
  async stop(): Promise<void> {
    const was = this.state;
    this.state = 'stopped';
    await this.follower.stop();
    if (was === 'leader') await this.leader!.sequencer.close();
    this.journal?.depose();
    await this.lease.release();
  }

  private campaign(listener: { end(): Promise<void> }): void {
    this.lease.onLost((error) => this.depose(error));
    void this.takeOver()
      .catch((error: unknown) => {
        if (this.state === 'stopped') return;
        this.depose(error);
      })
      .finally(() => listener.end().catch(() => {}));
  }

  private async takeOver(): Promise<void> {
    // A standby whose state is broken must not take the lead (nor bump the epoch and fence the leader).
    const epoch = await this.lease.acquire(() => this.follower.failure);
    const won = performance.now();
    if (this.state !== 'standby') return;
    this.state = 'taking-over';
    // From the bump on nobody else appends: the journal's end is now fixed until this node appends.
    const journal = this.base.fencedBy(epoch);
    this.journal = journal;
    await this.follower.stop();
    await this.follower.catchUp();
    const last = await journal.last();
    if (last.seq !== this.follower.lastSeq) {
      throw new Error(
        `the journal ends at seq ${last.seq} but the standby's state is at ${this.follower.lastSeq}`,
      );
    }
    if (this.state !== 'taking-over') return;
    const sequencer = new Sequencer({
      engine: this.follower.engine,
      admission: this.follower.admission,
      journal,
      clock: this.options.clock,
      lastSeq: last.seq,
      lastTs: last.ts,
      onFatal: (error) => this.depose(error),
      ...this.options.sequencer,
    });
    this.leader = {
      epoch,
      sequencer,
      state: { engine: this.follower.engine, admission: this.follower.admission },
      journal,
      lastSeq: last.seq,
      takeoverMs: performance.now() - won,
    };
    this.state = 'leader';
    this.options.onLeading(this.leader);
  }

  /** Stops leading (or taking over) for good: nothing is appended after this. */
  private depose(reason: unknown): void {
    if (this.state === 'deposed' || this.state === 'stopped') return;
    this.state = 'deposed';
    this.journal?.depose();
    void this.follower.stop();
    // A successor may take the lease at once (a session still alive holds it until released).
    void this.lease.release();
    this.options.onDeposed(reason);
  }
}
