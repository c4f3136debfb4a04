import type { BookLevels, Engine, MarketStatus, OrderView } from '../engine/index.js';
import { AppError, unavailable } from '../errors/app-error.js';
import type { Clock } from '../lib/clock.js';
import { Admission } from './admission.js';
import { applyEntry } from './apply-entry.js';
import { checkpointBytes } from './checkpoint.js';
import { type CommittedBatch, committedBatch } from './committed-batch.js';
import { decide } from './decide.js';
import type { AppliedEntry, SequencerInput } from './inputs.js';
import type { Intent, IntentResult } from './intents.js';
import type { Journal } from './journal.js';

export type SequencerOptions = {
  engine: Engine;
  /** The admission state restored with the engine (default: empty, a new journal's). */
  admission?: Admission;
  /** Where batches become durable (only `append` is used). */
  journal: Pick<Journal, 'append'>;
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
  /**
   * A batch still not durable this long after it was written lets the next one be written meanwhile
   * (default 1 ms; Infinity: one batch at a time). See `writeNext`.
   */
  overlapAfterMs?: number;
  /**
   * A replica's sequencer (an API node, ADR 0018): intents go to the leading sequencer, whose answers are
   * passed on as they come; the state changes only by `followed` (the leader's journal, applied by a
   * follower). Such a sequencer never appends.
   */
  forward?: Pick<Sequencer, 'decideAll'>;
};

/** A batch taken off the queue and not yet answered. */
type Flight = {
  batch: readonly Pending[];
  /** Each intent's result, in the batch's order. */
  results: IntentResult[];
  entries: AppliedEntry[];
  /** When it was taken off the queue (performance.now()). */
  taken: number;
  /** When its transaction was written; null while it is being written. */
  writtenAt: number | null;
  durable: boolean;
};

type Pending = {
  intent: Intent;
  resolve: (result: IntentResult) => void;
  reject: (e: unknown) => void;
};

export type CommitListener = (batch: CommittedBatch) => void;
/** A batch became durable: its inputs, and the seconds from taking it off the queue (write and sync). */
export type BatchObserver = (inputs: number, seconds: number) => void;

/**
 * The single writer. Inputs queue; once per event-loop turn the queue is taken as one batch: each input
 * gets the next seq and the time, is applied to the engine, and the batch is written in one transaction
 * (group commit). Only once the batch is durable do submitters get their results, and only after that
 * (their answers on their way) do listeners (realtime) see it: nothing is acknowledged or published that
 * is not durable. Inputs arriving while a batch is made durable gather into the next batch, which is
 * written once that one is durable, or, if its sync is slow (a disk's tail: milliseconds), once it has
 * waited `overlapAfterMs`: the next batch's write and sync then overlap the slow one, instead of adding
 * to it. Batches are still written in order (the next waits while one is being written) and answered in
 * order. (Overlapping every batch was tried: on a 2-core VM at 1,000 orders/s it cost 6 % more CPU per
 * order, from more, smaller commits, and lowered no median latency.)
 */
export class Sequencer {
  readonly engine: Engine;
  /** What admission decides with besides the engine (issue 35): part of checkpoints. */
  readonly admission: Admission;
  private readonly journal: Pick<Journal, 'append'>;
  private readonly clock: Clock;
  private readonly maxQueue: number;
  private readonly maxBatch: number;
  private readonly overlapAfterMs: number;
  private readonly onFatal: (error: unknown) => void;
  private readonly forward: Pick<Sequencer, 'decideAll'> | undefined;
  /** Forwarded calls not yet answered (a replica's). */
  private forwarding = 0;
  private readonly listeners: CommitListener[] = [];
  private readonly batchObservers: BatchObserver[] = [];
  private readonly answerListeners: ((intent: Intent, result: IntentResult) => void)[] = [];
  private queue: Pending[] = [];
  /** Batches taken and not yet answered, in order (at most two: one written, the next overlapping it). */
  private inFlight: Flight[] = [];
  /** Answered batches whose listeners have not run yet. */
  private unpublished = 0;
  private seq: number;
  /** Seq of the last entry whose submitter has been answered. */
  private answered: number;
  private ts: number;
  private scheduled = false;
  private overlapTimer: NodeJS.Timeout | null = null;
  private failure: unknown = null;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(options: SequencerOptions) {
    this.engine = options.engine;
    this.admission = options.admission ?? new Admission();
    this.journal = options.journal;
    this.clock = options.clock;
    this.seq = options.lastSeq;
    this.answered = options.lastSeq;
    this.ts = options.lastTs;
    this.maxQueue = options.maxQueue ?? 50_000;
    this.maxBatch = options.maxBatch ?? 4_096;
    this.overlapAfterMs = options.overlapAfterMs ?? 1;
    this.onFatal = options.onFatal ?? (() => {});
    this.forward = options.forward;
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** The checkpoint of the state at `lastSeq` (engine and admission); taken between batches. */
  checkpoint(): Uint8Array {
    return checkpointBytes(this.engine, this.admission);
  }

  /**
   * The checkpoint's bytes of the state at `lastSeq`, with that seq: from any event-loop task, busy or not,
   * the state is at a batch boundary. A batch is taken off the queue, decided and applied in one synchronous
   * call (`writeNext`; `decide` and `applyEntry` never wait), so between two tasks the engine and admission
   * hold every batch taken so far and nothing of the next. The batches through `seq` may not be durable
   * yet (a commit in flight, which may still fail): the bytes are to be stored only once they are.
   */
  checkpointNow(): { seq: number; bytes: Uint8Array } {
    return { seq: this.seq, bytes: checkpointBytes(this.engine, this.admission) };
  }

  // ---------------------------------------------------------------- typed queries (issue 35)
  // What intake and the routes may know of trading state besides the projections: answered from the
  // committed state between batches (a cluster asks the leading sequencer the same).

  /** A market's status in the engine, or undefined when no order opened it yet. */
  marketStatus(marketHash: string): MarketStatus | undefined {
    return this.engine.market(marketHash)?.status;
  }

  /** A market's aggregated levels (best first, maker frame), or undefined for a market the engine has not opened. */
  book(marketHash: string, depth?: number): BookLevels | undefined {
    return this.engine.levels(marketHash, depth);
  }

  /** A market as the engine holds it (its status, its parlay's rules), or undefined. */
  market(marketHash: string): ReturnType<Engine['market']> {
    return this.engine.market(marketHash);
  }

  /**
   * A market's book as anyone but its own makers may see it at `nowMs`: empty while its offers are sealed
   * (a parlay market in its quote window, docs/parlays.md).
   */
  publicBook(marketHash: string, nowMs: number, depth?: number): BookLevels | undefined {
    const levels = this.engine.levels(marketHash, depth);
    return levels && this.engine.offersSealed(marketHash, nowMs)
      ? { ...levels, outcomeOne: [], outcomeTwo: [] }
      : levels;
  }

  /** Whether a market's resting orders are hidden from the public at `nowMs` (`Engine.offersSealed`). */
  offersSealed(marketHash: string, nowMs: number): boolean {
    return this.engine.offersSealed(marketHash, nowMs);
  }

  /** A resting order, or undefined once it has left the book (or never rested). */
  restingOrder(orderId: string): OrderView | undefined {
    return this.engine.order(orderId);
  }

  /** An account's resting orders, oldest first (the legacy `GET /orders`). */
  accountOrders(account: string): OrderView[] {
    return this.engine.openOrders(account);
  }

  /** A market's resting orders, oldest first (the legacy `GET /orders`). */
  restingOrders(marketHash: string): OrderView[] {
    return this.engine.marketOrders(marketHash);
  }

  /** Every opened market's book (for a publisher starting to follow them: call it while idle). */
  books(): BookLevels[] {
    return [...this.engine.marketHashes()].map((marketHash) => this.engine.levels(marketHash)!);
  }

  /** An account's money: available, escrowed, what its resting orders promise (exposure) and what it owes. */
  money(account: string): { available: bigint; escrowed: bigint; exposure: bigint; owed: bigint } {
    return {
      ...this.engine.balance(account),
      exposure: this.engine.exposure(account),
      owed: this.engine.owed(account),
    };
  }

  /** The ladder's size (ticks per unit of probability). */
  get ladderSize(): number {
    return this.engine.ladder.size;
  }

  /** Seq of the last entry answered to its submitter: what a read must see (read-your-writes). */
  get answeredSeq(): number {
    return this.answered;
  }

  /** Nothing queued, written or unpublished: the engine equals the committed, published state. */
  get isIdle(): boolean {
    return (
      this.queue.length === 0 && this.inFlight.length === 0 && this.unpublished === 0 && this.forwarding === 0
    );
  }

  get queueLength(): number {
    return this.queue.length;
  }

  onCommitted(listener: CommitListener): void {
    this.listeners.push(listener);
  }

  /** For metrics: called with each batch's size and commit time once it is durable. */
  observeBatches(observer: BatchObserver): void {
    this.batchObservers.push(observer);
  }

  submit(input: SequencerInput): Promise<AppliedEntry> {
    return this.submitAll([input])[0]!;
  }

  /**
   * Queues several inputs together: they are admitted all or none (503 when the queue is full) and
   * land consecutively, in the given order.
   */
  submitAll(inputs: readonly SequencerInput[]): Promise<AppliedEntry>[] {
    return this.decideAll(inputs.map((input) => ({ kind: 'input', input }))).map((result) =>
      result.then((r) => r.entries[0]!),
    );
  }

  /**
   * Queues intents (`intents.ts`) together, all or none (503 when the queue is full): each is decided against
   * the trading state when the batch that takes it is applied, in order, and answered once that batch is
   * durable with what it did.
   */
  decideAll(intents: readonly Intent[]): Promise<IntentResult>[] {
    if (this.failure !== null || this.closed) throw unavailable('The sequencer is stopped');
    if (this.forward) return this.forwardAll(this.forward, intents);
    if (this.queue.length + intents.length > this.maxQueue)
      throw unavailable('Too many commands in flight; retry');
    const promises = intents.map(
      (intent) =>
        new Promise<IntentResult>((resolve, reject) => {
          this.queue.push({ intent, resolve, reject });
        }),
    );
    this.schedule();
    return promises;
  }

  private forwardAll(
    forward: Pick<Sequencer, 'decideAll'>,
    intents: readonly Intent[],
  ): Promise<IntentResult>[] {
    const results = forward.decideAll(intents);
    this.forwarding += 1;
    for (const [i, result] of results.entries()) {
      result.then(
        (r) => {
          for (const listener of this.answerListeners) listener(intents[i]!, r);
        },
        () => {},
      );
    }
    void Promise.allSettled(results).then(() => {
      this.forwarding -= 1;
      if (this.isIdle) this.releaseIdleWaiters();
    });
    return results;
  }

  /**
   * A replica's state has taken `entries`, committed by the leader (a `JournalFollower` applied them to this
   * sequencer's engine and admission): they are handed on as committed batches, one per leader batch time.
   */
  followed(entries: readonly AppliedEntry[]): void {
    if (!this.forward) throw new Error('followed() is for a replica sequencer (options.forward)');
    for (let start = 0; start < entries.length; ) {
      let end = start + 1;
      while (end < entries.length && entries[end]!.ts === entries[start]!.ts) end++;
      const batch = committedBatch(entries.slice(start, end));
      this.seq = batch.lastSeq;
      this.answered = batch.lastSeq;
      this.ts = Math.max(this.ts, batch.ts);
      this.unpublished += 1;
      this.publish(batch);
      start = end;
    }
  }

  /** Resolves once every input queued so far is committed, answered and published. */
  async idle(): Promise<void> {
    if (this.isIdle || this.failure !== null) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking inputs and waits for those already queued. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }

  /** The next batch is taken at the end of this event-loop turn, so a turn's inputs share a commit. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.writeNext();
    });
  }

  /**
   * Takes the queue as one batch, applies it and writes it: when no batch is in flight, or when the one in
   * flight is written and has waited `overlapAfterMs` to be durable (then a timer comes back for it).
   */
  private writeNext(): void {
    if (this.failure !== null || this.queue.length === 0) return;
    const last = this.inFlight[this.inFlight.length - 1];
    if (last) {
      // Being written (perhaps behind the checkpointer's gate), or already overlapped: its turn comes.
      if (last.writtenAt === null || this.inFlight.length > 1) return;
      const wait = last.writtenAt + this.overlapAfterMs - performance.now();
      if (wait > 0) {
        if (Number.isFinite(wait)) this.overlapTimer ??= setTimeout(() => this.overlapDue(), wait);
        return;
      }
    }
    const batch = this.queue.length <= this.maxBatch ? this.queue : this.queue.slice(0, this.maxBatch);
    this.queue = this.queue.length <= this.maxBatch ? [] : this.queue.slice(this.maxBatch);
    const taken = performance.now();
    const results = this.apply(batch);
    const entries = results.flatMap((r) => r.entries);
    const flight: Flight = { batch, results, entries, taken, writtenAt: null, durable: false };
    if (entries.length === 0) {
      // Nothing to journal (refusals only): answered once the batches before it are.
      flight.writtenAt = taken;
      flight.durable = true;
      this.inFlight.push(flight);
      this.answerDurable();
      return;
    }
    this.inFlight.push(flight);
    let durable: Promise<void>;
    try {
      durable = this.journal.append(flight.entries, () => {
        flight.writtenAt = performance.now();
        if (this.queue.length > 0) this.schedule();
      });
    } catch (error) {
      this.fail(error);
      return;
    }
    durable.then(
      () => {
        flight.durable = true;
        this.answerDurable();
      },
      (error: unknown) => this.fail(error),
    );
  }

  private overlapDue(): void {
    this.overlapTimer = null;
    this.writeNext();
  }

  /** Answers the durable batches at the head of the flight, in order; then the next batch may go. */
  private answerDurable(): void {
    if (this.failure !== null) return;
    while (this.inFlight[0]?.durable) this.answer(this.inFlight.shift()!);
    if (this.queue.length > 0) this.schedule();
  }

  /** Called for every intent answered, with what it did (read-your-writes keeps each account's last seq). */
  onAnswered(listener: (intent: Intent, result: IntentResult) => void): void {
    this.answerListeners.push(listener);
  }

  private answer({ batch, results, entries, taken }: Flight): void {
    for (let i = 0; i < batch.length; i++) {
      for (const listener of this.answerListeners) listener(batch[i]!.intent, results[i]!);
      batch[i]!.resolve(results[i]!);
    }
    if (entries.length === 0) return;
    const seconds = (performance.now() - taken) / 1000;
    for (const observe of this.batchObservers) observe(entries.length, seconds);
    this.answered = entries[entries.length - 1]!.seq;
    // The answers are sent in this turn's microtasks; publishing and the next batch come after them.
    this.unpublished += 1;
    const committed = committedBatch(entries);
    setImmediate(() => this.publish(committed));
  }

  private publish(batch: CommittedBatch): void {
    this.unpublished -= 1;
    if (this.failure === null) for (const listener of this.listeners) listener(batch);
    if (this.isIdle) this.releaseIdleWaiters();
  }

  private apply(batch: readonly Pending[]): IntentResult[] {
    // Time never goes backwards, even if the wall clock does.
    const now = Math.max(this.clock.now(), this.ts);
    this.ts = now;
    const state = { engine: this.engine, admission: this.admission, ts: now };
    const applyInput = (input: SequencerInput): AppliedEntry => applyEntry(state, input, ++this.seq, now);
    return batch.map(({ intent }) => decide(intent, state, applyInput));
  }

  /** A failed write or flush: everything not yet answered is refused and the sequencer stops for good. */
  private fail(error: unknown): void {
    if (this.failure !== null) return;
    this.failure = error;
    const rejection =
      error instanceof AppError
        ? error
        : unavailable('The exchange could not record the command; it is stopping');
    for (const flight of this.inFlight) for (const pending of flight.batch) pending.reject(rejection);
    for (const pending of this.queue) pending.reject(rejection);
    this.inFlight = [];
    this.queue = [];
    if (this.overlapTimer) clearTimeout(this.overlapTimer);
    this.overlapTimer = null;
    this.releaseIdleWaiters();
    this.onFatal(error);
  }

  private releaseIdleWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
