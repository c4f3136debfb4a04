/** A set of listeners, and an async iterator over what they are told (bounded: the oldest unread go). */
export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();
  private readonly readers = new Set<{ queue: T[]; wake: (() => void) | null }>();
  private ended = false;

  constructor(private readonly maxUnread = 10_000) {}

  on(listener: (value: T) => void): () => void {
    this.set.add(listener);
    return () => this.set.delete(listener);
  }

  emit(value: T): void {
    for (const listener of this.set) {
      try {
        listener(value);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    for (const reader of this.readers) {
      if (reader.queue.length >= this.maxUnread) reader.queue.shift();
      reader.queue.push(value);
      reader.wake?.();
    }
  }

  end(): void {
    this.ended = true;
    this.set.clear();
    for (const reader of this.readers) reader.wake?.();
  }

  iterate(): AsyncIterableIterator<T> {
    const reader = { queue: [] as T[], wake: null as (() => void) | null };
    this.readers.add(reader);
    const done = (): IteratorReturnResult<undefined> => {
      this.readers.delete(reader);
      return { done: true, value: undefined };
    };
    const iterator: AsyncIterableIterator<T> = {
      next: async () => {
        for (;;) {
          if (reader.queue.length > 0) return { done: false, value: reader.queue.shift()! };
          if (this.ended) return done();
          await new Promise<void>((resolve) => {
            reader.wake = resolve;
          });
          reader.wake = null;
        }
      },
      return: async () => done(),
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }
}
