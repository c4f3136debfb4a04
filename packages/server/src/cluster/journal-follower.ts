import { type ConsumerMessages, DeliverPolicy, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import type pg from 'pg';
import type { Engine } from '../engine/index.js';
import type { Admission } from '../sequencer/admission.js';
import type { AppliedEntry } from '../sequencer/inputs.js';
import type { Journal, JournalRow } from '../sequencer/journal.js';
import {
  type RecoveryOptions,
  type RecoveryReport,
  recoverEngine,
  replayJournal,
} from '../sequencer/recovery.js';
import { JOURNAL_CHANNEL } from '../store/postgres/postgres-journal.js';
import { decodeRows, seqsOf } from './committed-stream.js';

/** The poll that catches up even when a notification was missed (the LISTEN connection down, say). */
export const FOLLOW_POLL_MS = 1_000;
/** How long an append notified by the journal may take to arrive on the stream before it is read from the journal. */
export const STREAM_GRACE_MS = 250;
/** The wait before consuming the stream again after the consumer ended (NATS away, the stream deleted). */
export const STREAM_RETRY_MS = 1_000;

/** The committed stream (`CommittedPublisher`): where a follower takes the leader's rows first. */
export type CommittedStreamSource = {
  js: JetStreamClient;
  stream: string;
  graceMs?: number;
  retryMs?: number;
};

export type JournalFollowerOptions = {
  journal: Pick<Journal, 'after' | 'latestCheckpoint' | 'features'>;
  /** A connection of the follower's own, for LISTEN (`PostgresDatabase.connect()`). */
  listener: pg.Client;
  /** The fast path: rows from the stream by seq, gaps read from the journal. Without it, the journal alone. */
  stream?: CommittedStreamSource;
  ladderSize: number;
  pollMs?: number;
  /** A read that failed (retried at the next notification or poll), or the stream's consumer that ended. */
  onError?: (error: unknown) => void;
  /** Told of each page of entries once applied (a replica hands them on: `Sequencer.followed`). */
  onEntries?: (entries: readonly AppliedEntry[]) => void;
  /**
   * Hands the entries after `after` replayed at the start to `onEntries` (awaited) before following: a
   * projector node's projections or a chain node's settlement outbox caught up with the journal, as a
   * start catches them up (`recoverEngine`).
   */
  recovery?: RecoveryOptions;
};

/** Where a follower's entries came from: how many rows from the stream and from the journal, gaps repaired. */
export type FollowerCounts = { fromStream: number; fromJournal: number; repairs: number };

/** Reading the journal failed: nothing of the page was applied, so the next read starts where this one did. */
class JournalReadFailed extends Error {
  override name = 'JournalReadFailed';
}

/**
 * A replica of the trading state: the engine and admission restored as a start restores them
 * (`recoverEngine`: the newest checkpoint, then the journal after it), then kept at the journal's end by
 * applying each new entry as recovery does (`replayJournal`). Hot standby sequencers, API, projector and
 * chain nodes follow with it.
 *
 * With a stream, the rows come from the leader's committed stream (the journal's own rows, published once
 * they are durable): each message is applied when it begins at the next seq, what is older is dropped (a
 * republish, rows the journal gave first), and a message beginning later reveals a gap (the stream begun
 * later, a publish dropped, a leader dead between the journal and the stream), read from the journal to its
 * end first. The journal stays the floor: an append it notifies (`oddsbook_journal`, at its commit) that the
 * stream has not brought within `graceMs` is read from it, and so is everything when the follower has not
 * moved for a poll (`pollMs`), so a follower never stalls while NATS is away. Without a stream, each
 * notification and each poll read the journal.
 *
 * One step at a time (a message, a read); wake-ups during a read coalesce into one more. Each seq is applied
 * once, in order.
 */
export class JournalFollower {
  readonly engine: Engine;
  readonly admission: Admission;
  /** How the state was restored at the start (the checkpoint, the journal after it). */
  readonly recovery: RecoveryReport;
  private seq: number;
  private readonly journal: JournalFollowerOptions['journal'];
  private readonly listener: pg.Client;
  private readonly stream: CommittedStreamSource | undefined;
  private readonly onError: (error: unknown) => void;
  private readonly onEntries: ((entries: readonly AppliedEntry[]) => void) | undefined;
  private steps: Promise<void> = Promise.resolve();
  private readQueued = false;
  private pollTimer: NodeJS.Timeout | null = null;
  private seqAtPoll = -1;
  private graceTimer: NodeJS.Timeout | null = null;
  private notified = 0;
  private listening = false;
  private messages: ConsumerMessages | null = null;
  private wakeRetry: (() => void) | null = null;
  /** A catch-up asked for and not started yet: later callers share it (it reads what they need too). */
  private catchUpQueued: Promise<void> | null = null;
  private streamAway = false;
  private onStream = false;
  private readonly tally: FollowerCounts = { fromStream: 0, fromJournal: 0, repairs: 0 };
  /** Applying an entry threw: the state is no longer known to match any seq, and is never handed on. */
  private broken: unknown = null;

  private constructor(options: JournalFollowerOptions, state: RecoveryReport) {
    this.recovery = state;
    this.journal = options.journal;
    this.listener = options.listener;
    this.stream = options.stream;
    this.onError = options.onError ?? (() => {});
    this.onEntries = options.onEntries;
    this.engine = state.engine;
    this.admission = state.admission;
    this.seq = state.lastSeq;
  }

  /** Listens first (so that no append goes unnoticed), then recovers, then follows. */
  static async start(options: JournalFollowerOptions): Promise<JournalFollower> {
    await options.listener.query(`LISTEN ${JOURNAL_CHANNEL}`);
    const recovered = await recoverEngine(options.journal, options.ladderSize, options.recovery);
    const follower = new JournalFollower(options, recovered);
    follower.listening = true;
    options.listener.on('notification', (message) => {
      if (follower.listening && message.channel === JOURNAL_CHANNEL) follower.notice(Number(message.payload));
    });
    follower.pollTimer = setInterval(() => follower.poll(), options.pollMs ?? FOLLOW_POLL_MS);
    follower.pollTimer.unref();
    if (options.stream) void follower.consume(options.stream);
    follower.wake();
    return follower;
  }

  /** Why the state cannot be used (applying an entry threw), or null. */
  get failure(): unknown {
    return this.broken;
  }

  /** Seq of the last journal entry the state includes. */
  get lastSeq(): number {
    return this.seq;
  }

  /** Consuming the stream: every message published from now on reaches this follower (unless NATS fails). */
  get streaming(): boolean {
    return this.onStream;
  }

  /** Rows applied from the stream and from the journal (the start's recovery not counted), gaps repaired. */
  get counts(): FollowerCounts {
    return { ...this.tally };
  }

  /** Resolves once the state includes every entry committed before the call; rejects if it cannot. */
  catchUp(): Promise<void> {
    this.catchUpQueued ??= this.step(() => {
      this.catchUpQueued = null;
      return this.readToEnd();
    });
    return this.catchUpQueued;
  }

  /** Stops following (the stream, notifications and polls); steps under way finish. The state stays as it is. */
  async stop(): Promise<void> {
    this.listening = false;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.pollTimer = null;
    this.graceTimer = null;
    this.wakeRetry?.();
    // The consumer is not awaited (its set-up may wait for a NATS that is away): nothing it brings from now
    // on is applied (`take`), since a sequencer taking over appends to this state.
    await this.messages?.close().catch(() => {});
    await this.listener.query(`UNLISTEN ${JOURNAL_CHANNEL}`).catch(() => {});
    await this.steps;
  }

  /** Runs `task` after the steps before it; the next step waits for it, failed or not. */
  private step(task: () => Promise<void>): Promise<void> {
    const run = this.steps.then(task);
    this.steps = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  /** The journal committed through `seq`: read now without a stream, else if the stream has not brought it in time. */
  private notice(seq: number): void {
    if (!(seq > this.seq)) return;
    if (!this.stream) {
      this.wake();
      return;
    }
    this.notified = Math.max(this.notified, seq);
    if (this.graceTimer) return;
    const due = this.notified;
    this.graceTimer = setTimeout(() => {
      this.graceTimer = null;
      if (this.seq < due) this.wake();
      else if (this.notified > this.seq) this.notice(this.notified);
    }, this.stream.graceMs ?? STREAM_GRACE_MS);
    this.graceTimer.unref();
  }

  /** The floor: the journal read when nothing moved since the last poll (with a stream), or at every poll. */
  private poll(): void {
    if (!this.stream || this.seq === this.seqAtPoll) this.wake();
    this.seqAtPoll = this.seq;
  }

  private wake(): void {
    if (this.readQueued || this.broken !== null) return;
    this.readQueued = true;
    void this.step(() => {
      this.readQueued = false;
      return this.readToEnd().catch((error: unknown) => this.onError(error));
    });
  }

  /** Follows the stream from its new messages on; started again after it ends (NATS away, the stream deleted). */
  private async consume(source: CommittedStreamSource): Promise<void> {
    while (this.listening) {
      try {
        const consumer = await source.js.consumers.get(source.stream, { deliver_policy: DeliverPolicy.New });
        const messages = await consumer.consume({ abort_on_missing_resource: true });
        this.messages = messages;
        if (!this.listening) await messages.close();
        this.onStream = true;
        for await (const msg of messages) {
          this.streamAway = false;
          await this.step(() => this.take(msg)).catch((error: unknown) => this.onError(error));
        }
      } catch (error) {
        // Once per outage (it is tried again every `retryMs`), until a message comes.
        if (this.listening && !this.streamAway) this.onError(error);
        this.streamAway = true;
      }
      this.messages = null;
      this.onStream = false;
      if (!this.listening) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, source.retryMs ?? STREAM_RETRY_MS);
        this.wakeRetry = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeRetry = null;
    }
  }

  /** A message of the stream: applied if it begins at the next seq, after reading the journal if it begins later. */
  private async take(msg: JsMsg): Promise<void> {
    if (this.broken !== null || !this.listening) return;
    const seqs = seqsOf(msg.headers);
    if (!seqs || seqs.lastSeq <= this.seq) return;
    let rows: JournalRow[];
    try {
      rows = decodeRows(msg.data, seqs.firstSeq, seqs.lastSeq);
    } catch (error) {
      // Not rows this follower can read: what it held comes from the journal.
      this.onError(error);
      return;
    }
    if (seqs.firstSeq > this.seq + 1) {
      this.tally.repairs += 1;
      try {
        await this.readToEnd();
      } catch (error) {
        this.onError(error);
        return;
      }
    }
    const fresh = rows.filter((row) => row.seq > this.seq);
    // Published once journaled, so the journal read to its end holds them; otherwise the floor will.
    if (fresh.length === 0 || fresh[0]!.seq !== this.seq + 1) return;
    await this.apply({ after: () => once(fresh) }, 'fromStream');
  }

  private readToEnd(): Promise<void> {
    if (this.broken !== null) return Promise.reject(this.broken);
    return this.apply({ after: (seq) => readFailuresTagged(this.journal.after(seq)) }, 'fromJournal');
  }

  private async apply(rows: Pick<Journal, 'after'>, source: 'fromStream' | 'fromJournal'): Promise<void> {
    try {
      await replayJournal(
        this.engine,
        rows,
        this.seq,
        (entries) => {
          this.seq = entries.at(-1)?.seq ?? this.seq;
          this.tally[source] += entries.length;
          this.onEntries?.(entries);
        },
        this.admission,
      );
    } catch (error) {
      if (!(error instanceof JournalReadFailed)) this.broken = error;
      throw error;
    }
  }
}

async function* once(rows: readonly JournalRow[]): AsyncIterable<readonly JournalRow[]> {
  yield rows;
}

async function* readFailuresTagged(
  pages: AsyncIterable<readonly JournalRow[]>,
): AsyncIterable<readonly JournalRow[]> {
  const iterator = pages[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<readonly JournalRow[]>;
    try {
      next = await iterator.next();
    } catch (error) {
      throw new JournalReadFailed('reading the journal failed', { cause: error });
    }
    if (next.done) return;
    yield next.value;
  }
}
