import { unavailable } from '../errors/app-error.js';
import type { CommittedBatch } from '../sequencer/committed-batch.js';
import type { Sequencer } from '../sequencer/sequencer.js';
import type { EntryChanges } from '../store/batch-projection.js';
import type { ProjectionWriter } from '../store/projection.js';

/**
 * A committed batch with the rows its entries changed, in entry order (undefined for an entry projected
 * before: a batch replayed at a start).
 */
export type ProjectedBatch = {
  readonly batch: CommittedBatch;
  readonly changes: readonly (EntryChanges | undefined)[];
};

/** The realtime side: publications of a projected batch. */
export type BatchPublisher = (projected: ProjectedBatch) => void;

/** The chain side: the chain requests a committed batch implies (payouts, deposits). */
export type ChainSubmitter = { submitForBatch(batch: CommittedBatch): void };

/**
 * Told of each projected batch: the rows its entries changed (orders, fills, trades, refunds; a row changed
 * by two entries counts twice) and how long it waited from being handed on to being projected, in seconds.
 */
export type ProjectionObserver = (rows: number, seconds: number) => void;

/** A batch handed to the projector: its changes once projected, and when it was handed on. */
type InFlight = { batch: CommittedBatch; changes: EntryChanges[] | null; since: number };

export type PipelineOptions = {
  sequencer: Sequencer;
  projector: ProjectionWriter;
  /** A consumer failed: the projections (or the chain) no longer follow the journal. */
  onFatal: (error: unknown) => void;
  /** How long a read waits for the projections to reach what was answered, at most (then 503). */
  readWaitMs?: number;
};

/** A read waits this long at most for the projector (default `readWaitMs`). */
export const READ_WAIT_MS = 5_000;

/**
 * Where every committed batch goes once it is durable and its submitters are answered (the sequencer
 * answers first). In this order, one batch after the other:
 * 1. the projector writes the rows reads are answered from (orders, fills, trades, balances, positions);
 * 2. the publisher maps the batch and its rows to realtime publications;
 * 3. the chain link submits the chain requests the batch implies.
 * Each step sees the batches in seq order. A projection that must wait (the WAL checkpointer holds the
 * write lock) holds the later batches behind it.
 */
export class TradingPipeline {
  private publisher: BatchPublisher | null = null;
  private chain: ChainSubmitter | null = null;
  /** Batches handed to the projector and not yet delivered, in seq order. */
  private readonly inFlight: InFlight[] = [];
  /** Batches waiting for a projection before them (a projector that is not `ordered`). */
  private readonly waiting: CommittedBatch[] = [];
  private failed = false;
  private idleWaiters: (() => void)[] = [];
  /** Seq of the last projected batch. */
  private projected: number;
  private readWaiters: { seq: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private readonly observers: ProjectionObserver[] = [];
  private passWaiters: { seq: number; resolve: () => void; reject: (e: unknown) => void }[] = [];

  constructor(private readonly o: PipelineOptions) {
    this.projected = o.sequencer.lastSeq;
    o.sequencer.onCommitted((batch) => this.consume(batch));
  }

  get projectedSeq(): number {
    return this.projected;
  }

  /**
   * Read-your-writes: null when every batch answered so far is projected (a read may go on at once), else
   * a promise that resolves once it is, or rejects with a 503 after `readWaitMs`.
   */
  caughtUp(): Promise<void> | null {
    return this.caughtUpTo(this.o.sequencer.answeredSeq);
  }

  /** As `caughtUp`, for the batches through `seq` only (an account's own last answered input). */
  caughtUpTo(seq: number): Promise<void> | null {
    if (this.projected >= seq) return null;
    if (this.failed) return Promise.reject(unavailable('The exchange is stopping'));
    return new Promise<void>((resolve, reject) => {
      const waiter = { seq, resolve, reject };
      const timer = setTimeout(() => {
        this.readWaiters = this.readWaiters.filter((w) => w !== waiter);
        reject(unavailable('The exchange is catching up; retry'));
      }, this.o.readWaitMs ?? READ_WAIT_MS);
      timer.unref();
      waiter.resolve = () => {
        clearTimeout(timer);
        resolve();
      };
      this.readWaiters.push(waiter);
    });
  }

  /**
   * Resolves once every batch through `seq` has gone through every step (projected, published, handed to the
   * chain link); rejects if the pipeline fails first. Never settles for a seq no batch reaches.
   */
  passed(seq: number): Promise<void> {
    if (this.failed) return Promise.reject(unavailable('The exchange is stopping'));
    // `projected` moves with each batch delivered, in order, and its steps run in the same call.
    if (this.projected >= seq) return Promise.resolve();
    return new Promise((resolve, reject) => this.passWaiters.push({ seq, resolve, reject }));
  }

  /** Tells `observer` of every batch projected from now on (the projector's rows and delay, for metrics). */
  observeProjections(observer: ProjectionObserver): void {
    this.observers.push(observer);
  }

  setPublisher(publisher: BatchPublisher | null): void {
    this.publisher = publisher;
  }

  setChain(chain: ChainSubmitter | null): void {
    this.chain = chain;
  }

  /** Every batch committed so far has gone through every step. */
  get isIdle(): boolean {
    return this.inFlight.length === 0 && this.waiting.length === 0;
  }

  /** How long the oldest batch not yet projected has waited, in seconds (0: none waits). */
  get lagSeconds(): number {
    const oldest = this.inFlight[0];
    return oldest ? (performance.now() - oldest.since) / 1000 : 0;
  }

  /** Resolves once the sequencer and the pipeline are both idle. */
  async idle(): Promise<void> {
    await this.o.sequencer.idle();
    if (this.isIdle || this.failed) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private consume(batch: CommittedBatch): void {
    if (this.failed) return;
    if (this.inFlight.length > 0 && !this.o.projector.ordered) {
      this.waiting.push(batch);
      return;
    }
    let result: Promise<EntryChanges[]>;
    try {
      result = this.o.projector.project(batch.entries);
    } catch (error) {
      this.fail(error);
      return;
    }
    const slot: InFlight = { batch, changes: null, since: performance.now() };
    this.inFlight.push(slot);
    result.then(
      (changes) => {
        slot.changes = changes;
        this.deliverInOrder();
      },
      (error: unknown) => this.fail(error),
    );
  }

  /** Delivers the projected batches at the head, in order; then hands on the batches that waited. */
  private deliverInOrder(): void {
    for (let head = this.inFlight[0]; !this.failed && head?.changes; head = this.inFlight[0]) {
      this.inFlight.shift();
      if (this.observers.length > 0) this.observe(head);
      this.deliver(head.batch, head.changes);
    }
    if (this.inFlight.length === 0 && this.waiting.length > 0) {
      for (const batch of this.waiting.splice(0)) this.consume(batch);
    }
    if (this.isIdle) this.releaseIdleWaiters();
  }

  private observe(projected: InFlight): void {
    let rows = 0;
    for (const c of projected.changes ?? [])
      rows += c.orders.length + c.fills.length + c.trades.length + c.refunds.length;
    const seconds = (performance.now() - projected.since) / 1000;
    for (const observer of this.observers) observer(rows, seconds);
  }

  private deliver(batch: CommittedBatch, projected: readonly EntryChanges[]): void {
    // The projector skips entries it has projected before: the first ones.
    const skipped = batch.entries.length - projected.length;
    const changes = skipped === 0 ? projected : batch.entries.map((_, i) => projected[i - skipped]);
    this.projected = batch.lastSeq;
    if (this.readWaiters.length > 0) this.releaseReaders();
    // The publisher never throws (it reports its own failures); the chain link's failure is fatal.
    this.publisher?.({ batch, changes });
    try {
      this.chain?.submitForBatch(batch);
    } catch (error) {
      this.fail(error);
      return;
    }
    if (this.passWaiters.length > 0) this.releasePassed(batch.lastSeq);
  }

  private releasePassed(seq: number): void {
    const waiting: typeof this.passWaiters = [];
    for (const waiter of this.passWaiters) {
      if (waiter.seq <= seq) waiter.resolve();
      else waiting.push(waiter);
    }
    this.passWaiters = waiting;
  }

  private releaseReaders(): void {
    const waiting: typeof this.readWaiters = [];
    for (const waiter of this.readWaiters) {
      if (waiter.seq <= this.projected) waiter.resolve();
      else waiting.push(waiter);
    }
    this.readWaiters = waiting;
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    for (const waiter of this.readWaiters.splice(0)) waiter.reject(unavailable('The exchange is stopping'));
    for (const waiter of this.passWaiters.splice(0)) waiter.reject(unavailable('The exchange is stopping'));
    this.inFlight.length = 0;
    this.waiting.length = 0;
    this.releaseIdleWaiters();
    this.o.onFatal(error);
  }

  private releaseIdleWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
