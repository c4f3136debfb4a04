import type { Engine } from '../engine/index.js';
import { AppError, unavailable } from '../errors/app-error.js';
import type { Clock } from '../lib/clock.js';
import type { AppliedEntry, SequencerInput } from './inputs.js';

/** Where a batch becomes durable: journal, projections, in one transaction. */
export interface BatchCommitter {
  commitBatch(entries: readonly AppliedEntry[], engine: Engine): Promise<void>;
}

export type SequencerOptions = {
  engine: Engine;
  committer: BatchCommitter;
  clock: Clock;
  /** Seq of the last journaled input. */
  lastSeq: number;
  /** Time of the last journaled input, so time never goes backwards across a restart. */
  lastTs: number;
  /** Inputs waiting beyond this answer 503 instead of queueing without bound. */
  maxQueue?: number;
  /** At most this many inputs per transaction. */
  maxBatch?: number;
  /** Called once if a commit fails: the engine is then ahead of the database and must not go on. */
  onFatal?: (error: unknown) => void;
};

type Pending = {
  input: SequencerInput;
  resolve: (entry: AppliedEntry) => void;
  reject: (e: unknown) => void;
};

export type CommitListener = (entries: readonly AppliedEntry[]) => void;

/**
 * The single writer. Inputs queue; once per event-loop turn the queue is drained: each input gets the
 * next seq and the time, is applied to the engine, and the whole batch is committed in one transaction
 * (group commit). Only after the commit do submitters get their results and listeners (realtime, chain)
 * see the batch, so nothing is acknowledged or published that is not durable.
 */
export class Sequencer {
  readonly engine: Engine;
  private readonly committer: BatchCommitter;
  private readonly clock: Clock;
  private readonly maxQueue: number;
  private readonly maxBatch: number;
  private readonly onFatal: (error: unknown) => void;
  private readonly listeners: CommitListener[] = [];
  private queue: Pending[] = [];
  private seq: number;
  private ts: number;
  private scheduled = false;
  private running = false;
  private failure: unknown = null;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  /** Statistics for metrics and benchmarks. */
  readonly stats = { batches: 0, inputs: 0, maxBatchSize: 0 };

  constructor(options: SequencerOptions) {
    this.engine = options.engine;
    this.committer = options.committer;
    this.clock = options.clock;
    this.seq = options.lastSeq;
    this.ts = options.lastTs;
    this.maxQueue = options.maxQueue ?? 50_000;
    this.maxBatch = options.maxBatch ?? 4_096;
    this.onFatal = options.onFatal ?? (() => {});
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Nothing queued and no batch between apply and commit: the engine equals the committed state. */
  get isIdle(): boolean {
    return !this.running && this.queue.length === 0;
  }

  get queueLength(): number {
    return this.queue.length;
  }

  onCommitted(listener: CommitListener): void {
    this.listeners.push(listener);
  }

  submit(input: SequencerInput): Promise<AppliedEntry> {
    return this.submitAll([input])[0]!;
  }

  /**
   * Queues several inputs together: they are admitted all or none (503 when the queue is full) and
   * land consecutively, in the given order.
   */
  submitAll(inputs: readonly SequencerInput[]): Promise<AppliedEntry>[] {
    if (this.failure !== null || this.closed) throw unavailable('The sequencer is stopped');
    if (this.queue.length + inputs.length > this.maxQueue)
      throw unavailable('Too many commands in flight; retry');
    const promises = inputs.map(
      (input) =>
        new Promise<AppliedEntry>((resolve, reject) => {
          this.queue.push({ input, resolve, reject });
        }),
    );
    this.schedule();
    return promises;
  }

  /** Resolves once every input queued so far is committed. */
  async idle(): Promise<void> {
    if (!this.running && this.queue.length === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking inputs and waits for those already queued. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0 && this.failure === null) {
        const batch = this.queue.length <= this.maxBatch ? this.queue : this.queue.slice(0, this.maxBatch);
        this.queue = this.queue.length <= this.maxBatch ? [] : this.queue.slice(this.maxBatch);
        const entries = this.apply(batch);
        try {
          await this.committer.commitBatch(entries, this.engine);
        } catch (error) {
          this.fail(error, batch);
          return;
        }
        this.stats.batches += 1;
        this.stats.inputs += entries.length;
        if (entries.length > this.stats.maxBatchSize) this.stats.maxBatchSize = entries.length;
        for (let i = 0; i < batch.length; i++) batch[i]!.resolve(entries[i]!);
        for (const listener of this.listeners) listener(entries);
      }
    } finally {
      this.running = false;
      if (this.queue.length > 0 && this.failure === null) this.schedule();
      else if (this.queue.length === 0) this.releaseIdleWaiters();
    }
  }

  private apply(batch: readonly Pending[]): AppliedEntry[] {
    // Time never goes backwards, even if the wall clock does.
    const now = Math.max(this.clock.now(), this.ts);
    this.ts = now;
    return batch.map(({ input }) => {
      const seq = ++this.seq;
      const events = input.kind === 'engine' ? this.engine.apply({ ...input.command, seq, ts: now }) : [];
      return { seq, ts: now, input, events };
    });
  }

  private fail(error: unknown, batch: readonly Pending[]): void {
    this.failure = error;
    const rejection =
      error instanceof AppError
        ? error
        : unavailable('The exchange could not record the command; it is stopping');
    for (const pending of [...batch, ...this.queue]) pending.reject(rejection);
    this.queue = [];
    this.releaseIdleWaiters();
    this.onFatal(error);
  }

  private releaseIdleWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
