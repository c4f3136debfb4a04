/** Salts a bounded memory keeps at most: past it the oldest go first. */
const MAX_SALTS = 100_000;

/**
 * The salts of v2 cancels seen recently, so that a replayed cancel answers CANCEL_REQUEST_ALREADY_PROCESSED.
 * A cancel's signed timestamp must be within a window of the clock, so a salt needs keeping only that long
 * (`keepMs`); memory is bounded by `MAX_SALTS`. Kept in memory: a replay after a restart, within the
 * window, cancels again what it names (cancelling is idempotent; docs/legacy.md).
 */
export class CancelSalts {
  private readonly seen = new Map<string, number>();

  constructor(private readonly keepMs: number) {}

  /** True the first time `key` is claimed within the window, false for a replay. */
  claim(key: string, now: number): boolean {
    this.forget(now);
    if (this.seen.has(key)) return false;
    if (this.seen.size >= MAX_SALTS) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(key, now);
    return true;
  }

  private forget(now: number): void {
    // Insertion order is time order: the oldest are first.
    for (const [key, at] of this.seen) {
      if (at > now - this.keepMs) break;
      this.seen.delete(key);
    }
  }
}
