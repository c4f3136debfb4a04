import type { AppliedEntry } from '../sequencer/inputs.js';
import type { EntryChanges } from '../store/batch-projection.js';
import type { ProjectionWriter } from '../store/projection.js';

type Waiter = { seq: number; resolve: (changes: EntryChanges[]) => void };

/** How often the leader's projector cursor is read while a batch waits for it. */
export const PROJECTED_POLL_MS = 5;

export type ProjectedElsewhereOptions = {
  /** The leader's projector cursor (`SELECT seq FROM projector_cursor`). */
  readCursor: () => Promise<number>;
  /** The cursor when this node started following. */
  startSeq: number;
  pollMs?: number;
  /** A read that failed (retried at the next poll). */
  onError?: (error: unknown) => void;
};

/**
 * A replica's projector (an API node, ADR 0018): the leader's projector writes the rows; here a batch is
 * "projected" once the leader's cursor has reached it, so that the pipeline's read-your-writes waits for the
 * rows an account will read. It reports no changed rows (this node publishes nothing from them). The
 * cursor is read only while some batch waits.
 */
export class ProjectedElsewhere implements ProjectionWriter {
  readonly ordered = true;
  #seq: number;
  #waiters: Waiter[] = [];
  #timer: NodeJS.Timeout | null = null;
  #reading = false;
  #stopped = false;

  constructor(private readonly o: ProjectedElsewhereOptions) {
    this.#seq = o.startSeq;
  }

  cursor(): number {
    return this.#seq;
  }

  project(entries: readonly AppliedEntry[]): Promise<EntryChanges[]> {
    const last = entries.at(-1)?.seq ?? 0;
    if (last <= this.#seq) return Promise.resolve([]);
    return new Promise((resolve) => {
      this.#waiters.push({ seq: last, resolve });
      this.#schedule(0);
    });
  }

  /** Stops reading the cursor; batches still waiting are let go (the node is stopping: nothing reads them). */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    for (const waiter of this.#waiters.splice(0)) waiter.resolve([]);
  }

  #schedule(ms: number): void {
    if (this.#timer || this.#reading || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#read();
    }, ms);
  }

  async #read(): Promise<void> {
    this.#reading = true;
    try {
      this.#seq = Math.max(this.#seq, await this.o.readCursor());
    } catch (error) {
      this.o.onError?.(error);
    } finally {
      this.#reading = false;
    }
    const waiting: Waiter[] = [];
    for (const waiter of this.#waiters) {
      if (waiter.seq <= this.#seq) waiter.resolve([]);
      else waiting.push(waiter);
    }
    this.#waiters = waiting;
    if (waiting.length > 0) this.#schedule(this.o.pollMs ?? PROJECTED_POLL_MS);
  }
}
