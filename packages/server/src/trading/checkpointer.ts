import type { Clock } from '../lib/clock.js';
import type { Journal } from '../sequencer/journal.js';
import type { Sequencer } from '../sequencer/sequencer.js';
import { digestOfAsync } from '../sequencer/state-hash.js';
import type { TradingPipeline } from './pipeline.js';

/** A checkpoint stored: its seq, its size, what it held the event loop for (the snapshot) and its save. */
export type CheckpointTaken = { seq: number; bytes: number; pauseMs: number; saveMs: number };

export type CheckpointerOptions = {
  sequencer: Pick<Sequencer, 'checkpointNow' | 'lastSeq'>;
  pipeline: Pick<TradingPipeline, 'passed' | 'projectedSeq'>;
  journal: Pick<Journal, 'saveCheckpoint'>;
  /** The settlement driver, whose cursor a stored checkpoint lets move (none when a chain node settles). */
  chain: { submittedThrough(seq: number): void } | null;
  clock: Clock;
  /** The checkpoint the state was restored from (0: none): nothing is stored again at its seq. */
  restoredSeq: number;
  intervalMs: number;
  log: { info(o: object, msg: string): void; error(o: object, msg: string): void };
};

/**
 * Engine checkpoints on schedule, whatever the load (ADR 0020), and one at a clean stop. The snapshot is taken
 * in the timer's own task, which is always at a batch boundary (`Sequencer.checkpointNow`): the only pause
 * the sequencer sees. It is stored once the pipeline has passed its seq, off the sequencer's path:
 * - the batches through it are then durable (the pipeline sees a batch only once it is), so no checkpoint
 *   ever holds an input the journal lacks;
 * - the projections have them, and the settlement driver has been handed them. A start uses a checkpoint
 *   only at or before every consumer's cursor (projections, chain outbox: `recoverTrading`) and hands each
 *   consumer the entries after its own cursor, so a checkpoint can neither skip nor repeat a projection or
 *   a settlement submission; storing it after the pipeline only makes it usable sooner.
 * Once stored, the driver is told (`submittedThrough`), so that its cursor, which moves only with a
 * transaction, reaches the checkpoint even when no money moves.
 */
export class Checkpointer {
  #savedSeq: number;
  #timer: NodeJS.Timeout | null = null;
  #taking: Promise<CheckpointTaken | null> | null = null;
  /** Gives up the checkpoint waiting for the pipeline (a stop after a failed commit: it never passes). */
  #abandon: ((reason: Error) => void) | null = null;
  #waitingFor = 0;
  #lastPauseMs = 0;

  constructor(private readonly o: CheckpointerOptions) {
    this.#savedSeq = o.restoredSeq;
  }

  /** Seq of the newest checkpoint stored (or restored from). */
  get savedSeq(): number {
    return this.#savedSeq;
  }

  /** How long the last snapshot held the event loop (and so the sequencer), ms. */
  get lastPauseMs(): number {
    return this.#lastPauseMs;
  }

  start(): this {
    this.#timer = setInterval(() => {
      this.take().catch((error) => this.o.log.error({ err: error }, 'a checkpoint was not saved'));
    }, this.o.intervalMs);
    this.#timer.unref();
    return this;
  }

  /**
   * A checkpoint of the state now, stored once the pipeline has passed it; null when nothing changed since the
   * last one. One at a time: while one is under way, that one.
   */
  take(): Promise<CheckpointTaken | null> {
    this.#taking ??= this.#take().finally(() => {
      this.#taking = null;
    });
    return this.#taking;
  }

  /**
   * At a clean stop, once the sequencer is closed and the pipeline idle: the last checkpoint, unless the state
   * holds inputs that never became durable (a failed commit: the sequencer stopped, the pipeline never passes them).
   */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    if (this.#taking && this.#waitingFor > this.o.pipeline.projectedSeq)
      this.#abandon?.(new Error('the state holds inputs that were never committed'));
    await this.#taking?.catch(() => null);
    if (this.o.sequencer.lastSeq > this.o.pipeline.projectedSeq) {
      this.o.log.error(
        { lastSeq: this.o.sequencer.lastSeq, committedSeq: this.o.pipeline.projectedSeq },
        'no checkpoint at this stop: the state holds inputs that were never committed',
      );
      return;
    }
    await this.take();
  }

  async #take(): Promise<CheckpointTaken | null> {
    // Read in the same task as the snapshot: no batch comes between.
    if (this.o.sequencer.lastSeq <= this.#savedSeq) return null;
    const started = performance.now();
    const { seq, bytes } = this.o.sequencer.checkpointNow();
    const pauseMs = performance.now() - started;
    this.#lastPauseMs = pauseMs;
    this.#waitingFor = seq;
    try {
      await new Promise<void>((resolve, reject) => {
        this.#abandon = reject;
        this.o.pipeline.passed(seq).then(resolve, reject);
      });
    } finally {
      this.#abandon = null;
      this.#waitingFor = 0;
    }
    const saving = performance.now();
    await this.o.journal.saveCheckpoint(seq, await digestOfAsync(bytes), bytes, this.o.clock.now());
    const saveMs = performance.now() - saving;
    this.#savedSeq = seq;
    this.o.chain?.submittedThrough(seq);
    const taken = { seq, bytes: bytes.length, pauseMs, saveMs };
    this.o.log.info(
      { checkpointSeq: seq, bytes: bytes.length, pauseMs: Math.round(pauseMs), saveMs: Math.round(saveMs) },
      'checkpoint saved',
    );
    return taken;
  }
}
