/**
 * A value now, or later. A port that a local store answers at once and a remote one later returns it, so
 * that the local store's callers stay synchronous (no turn of the event loop between a write and what it
 * makes visible) and the remote one's are awaited.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next(value)`: at once when `value` is there, else once it resolves. */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * Runs work one piece at a time, in the order given: a piece starts once the one before has settled. When
 * nothing is under way a piece runs at once, so that synchronous work stays synchronous.
 */
export class SerialQueue {
  private tail: Promise<unknown> | null = null;

  run<T>(work: () => MaybePromise<T>): MaybePromise<T> {
    if (this.tail === null) {
      const result = work();
      if (result instanceof Promise) this.follow(result);
      return result;
    }
    const result = this.tail.then(work);
    this.follow(result);
    return result;
  }

  /** Resolves once everything given so far has settled. */
  async idle(): Promise<void> {
    while (this.tail !== null) await this.tail;
  }

  private follow(result: Promise<unknown>): void {
    const settled = result.then(
      () => {},
      () => {},
    );
    this.tail = settled;
    void settled.then(() => {
      if (this.tail === settled) this.tail = null;
    });
  }
}
