import type { AppliedEntry } from '../sequencer/inputs.js';

/** Entries a standby keeps by default: some tens of MB, seconds to minutes of trading. */
export const RECENT_ENTRIES = 50_000;

/**
 * The last entries a standby applied, with their events (ADR 0018): what a new leader hands its projector
 * and chain driver when their cursors are this close to the journal's end, instead of rebuilding the
 * state from a checkpoint to get them.
 */
export class RecentEntries {
  #entries: AppliedEntry[] = [];
  #start = 0;

  constructor(private readonly max = RECENT_ENTRIES) {}

  add(entries: readonly AppliedEntry[]): void {
    for (const entry of entries) this.#entries.push(entry);
    const extra = this.#entries.length - this.#start - this.max;
    if (extra > 0) this.#start += extra;
    // Compacted now and then rather than shifted at every add.
    if (this.#start > this.max) {
      this.#entries = this.#entries.slice(this.#start);
      this.#start = 0;
    }
  }

  /** The entries after `seq`, or null when some of them are no longer kept. */
  after(seq: number): readonly AppliedEntry[] | null {
    const first = this.#entries[this.#start];
    if (first === undefined) return null;
    if (first.seq > seq + 1) return null;
    const from = this.#start + Math.max(0, seq + 1 - first.seq);
    return this.#entries.slice(from);
  }
}
