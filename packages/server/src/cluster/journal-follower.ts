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

/** The poll that catches up even when a notification was missed (the LISTEN connection down, say). */
export const FOLLOW_POLL_MS = 1_000;

export type JournalFollowerOptions = {
  journal: Pick<Journal, 'after' | 'latestCheckpoint' | 'features'>;
  /** A connection of the follower's own, for LISTEN (`PostgresDatabase.connect()`). */
  listener: pg.Client;
  ladderSize: number;
  pollMs?: number;
  /** A read that failed (retried at the next notification or poll). */
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

/** Reading the journal failed: nothing of the page was applied, so the next read starts where this one did. */
class JournalReadFailed extends Error {
  override name = 'JournalReadFailed';
}

/**
 * A hot standby's trading state: the engine and admission state restored as a start restores them
 * (`recoverEngine`: the newest checkpoint, then the journal after it), then kept at the journal's end by
 * applying each new entry as recovery does (`replayJournal`). It reads on each NOTIFY of an append
 * (`oddsbook_journal`, sent at its commit) and, as a floor, every `pollMs`. One read at a time; wake-ups
 * during a read coalesce into one more.
 */
export class JournalFollower {
  readonly engine: Engine;
  readonly admission: Admission;
  /** How the state was restored at the start (the checkpoint, the journal after it). */
  readonly recovery: RecoveryReport;
  private seq: number;
  private readonly journal: JournalFollowerOptions['journal'];
  private readonly listener: pg.Client;
  private readonly onError: (error: unknown) => void;
  private readonly onEntries: ((entries: readonly AppliedEntry[]) => void) | undefined;
  private reads: Promise<void> = Promise.resolve();
  private readQueued = false;
  private pollTimer: NodeJS.Timeout | null = null;
  private listening = false;
  /** Applying an entry threw: the state is no longer known to match any seq, and is never handed on. */
  private broken: unknown = null;

  private constructor(options: JournalFollowerOptions, state: RecoveryReport) {
    this.recovery = state;
    this.journal = options.journal;
    this.listener = options.listener;
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
      if (follower.listening && message.channel === JOURNAL_CHANNEL && Number(message.payload) > follower.seq)
        follower.wake();
    });
    follower.pollTimer = setInterval(() => follower.wake(), options.pollMs ?? FOLLOW_POLL_MS);
    follower.pollTimer.unref();
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

  /** Resolves once the state includes every entry committed before the call; rejects if it cannot. */
  catchUp(): Promise<void> {
    const read = this.reads.then(() => this.readToEnd());
    this.reads = read.then(
      () => {},
      () => {},
    );
    return read;
  }

  /** Stops following (notifications and polls); reads already under way finish. The state stays as it is. */
  async stop(): Promise<void> {
    this.listening = false;
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = null;
    await this.listener.query(`UNLISTEN ${JOURNAL_CHANNEL}`).catch(() => {});
    await this.reads;
  }

  private wake(): void {
    if (this.readQueued || this.broken !== null) return;
    this.readQueued = true;
    this.reads = this.reads.then(() => {
      this.readQueued = false;
      return this.readToEnd().catch((error: unknown) => this.onError(error));
    });
  }

  private async readToEnd(): Promise<void> {
    if (this.broken !== null) throw this.broken;
    const reading = { after: (seq: number) => readFailuresTagged(this.journal.after(seq)) };
    try {
      await replayJournal(
        this.engine,
        reading,
        this.seq,
        (entries) => {
          this.seq = entries.at(-1)?.seq ?? this.seq;
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
