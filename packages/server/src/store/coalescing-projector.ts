import type { AppliedEntry } from '../sequencer/inputs.js';
import type { EntryChanges } from './batch-projection.js';
import type { ProjectionWriter } from './projection.js';

/** Entries of one projection at most: the journal's page at a start (recovery hands on no more at once). */
export const COALESCED_ENTRIES = 2_000;

type Waiting = {
  entries: readonly AppliedEntry[];
  resolve: (changes: EntryChanges[]) => void;
  reject: (error: unknown) => void;
};

/**
 * Batches handed on while the last projection is being written wait, and go together in the next one: a
 * projector that falls behind under load catches up in fewer, larger transactions (on PostgreSQL each costs
 * its round trips and a commit's fsync, whatever its size). An idle projector gets each batch at once.
 * Each batch's promise gets its own entries' changes, in order; if a projection fails, every batch in it and
 * every batch waiting fails with it (the projections no longer follow the journal).
 */
export class CoalescingProjector implements ProjectionWriter {
  readonly ordered = true;
  private waiting: Waiting[] = [];
  private running: Promise<void> | null = null;
  private failure: { error: unknown } | null = null;

  constructor(
    private readonly projector: ProjectionWriter,
    private readonly maxEntries = COALESCED_ENTRIES,
  ) {}

  cursor(): number {
    return this.projector.cursor();
  }

  project(entries: readonly AppliedEntry[]): Promise<EntryChanges[]> {
    if (this.failure) return Promise.reject(this.failure.error);
    return new Promise<EntryChanges[]>((resolve, reject) => {
      this.waiting.push({ entries, resolve, reject });
      this.running ??= this.drain();
    });
  }

  /** Resolves once every batch handed on so far is projected (or has failed). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0 && !this.failure) {
      const batches = this.take();
      const cursor = this.projector.cursor();
      // The projector skips entries at or below its cursor: each batch's changes are those of its others.
      const fresh = batches.map((b) => b.entries.filter((e) => e.seq > cursor).length);
      try {
        const changes = await this.projector.project(batches.flatMap((b) => b.entries));
        let at = 0;
        batches.forEach((b, i) => {
          b.resolve(changes.slice(at, at + fresh[i]!));
          at += fresh[i]!;
        });
      } catch (error) {
        this.failure = { error };
        for (const b of [...batches, ...this.waiting.splice(0)]) b.reject(error);
      }
    }
    this.running = null;
  }

  /** The waiting batches, in order, up to `maxEntries` entries (always at least one batch). */
  private take(): Waiting[] {
    let count = this.waiting[0]!.entries.length;
    let n = 1;
    while (n < this.waiting.length && count + this.waiting[n]!.entries.length <= this.maxEntries) {
      count += this.waiting[n]!.entries.length;
      n++;
    }
    return this.waiting.splice(0, n);
  }
}
