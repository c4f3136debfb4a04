import type { JetStreamClient } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/transport-node';

/** One item as it goes on the stream. */
export type StreamMessage = { data: string | Uint8Array; msgID: string; headers?: MsgHdrs };

export type WindowedPublisherOptions<T> = {
  js: JetStreamClient;
  subject: string;
  encode: (item: T) => StreamMessage;
  /** Publishes awaiting their acknowledgement at most. */
  window: number;
  /** Items waiting for the window at most; beyond, the oldest are dropped. */
  maxQueued: number;
  /** Attempts per item before it is dropped (default 3). */
  attempts?: number;
  onDropped?: (item: T, error: unknown) => void;
};

/**
 * A leader's publisher onto a JetStream stream: `publish` queues and returns at once (nothing waits for the
 * stream), at most `window` publishes in flight, in order (only a retried one can land after a later one).
 * An item that cannot be published (NATS down, the queue full) is dropped and reported; a retried publish
 * carries the same message id, so the stream stores it once.
 */
export class WindowedPublisher<T> {
  readonly #attempts: number;
  #queue: T[] = [];
  #inFlight = 0;
  #published = 0;
  #dropped = 0;
  #idleWaiters: (() => void)[] = [];

  constructor(private readonly o: WindowedPublisherOptions<T>) {
    this.#attempts = o.attempts ?? 3;
  }

  /** Items acknowledged by the stream (duplicates included), dropped, and still to go. */
  get counts(): { published: number; dropped: number; pending: number } {
    return {
      published: this.#published,
      dropped: this.#dropped,
      pending: this.#queue.length + this.#inFlight,
    };
  }

  publish(item: T): void {
    this.#queue.push(item);
    if (this.#queue.length > this.o.maxQueued)
      this.#drop(this.#queue.shift()!, new Error('the publish queue is full'));
    this.#pump();
  }

  /** Resolves once every item queued so far is published or dropped. */
  async flushed(): Promise<void> {
    if (this.#queue.length === 0 && this.#inFlight === 0) return;
    await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  #pump(): void {
    while (this.#inFlight < this.o.window && this.#queue.length > 0) {
      const item = this.#queue.shift()!;
      this.#inFlight += 1;
      this.#send(item).finally(() => {
        this.#inFlight -= 1;
        this.#pump();
        if (this.#queue.length === 0 && this.#inFlight === 0)
          for (const resolve of this.#idleWaiters.splice(0)) resolve();
      });
    }
  }

  async #send(item: T): Promise<void> {
    const { data, msgID, headers } = this.o.encode(item);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.o.js.publish(this.o.subject, data, { msgID, ...(headers ? { headers } : {}) });
        this.#published += 1;
        return;
      } catch (error) {
        if (attempt >= this.#attempts) {
          this.#drop(item, error);
          return;
        }
      }
    }
  }

  #drop(item: T, error: unknown): void {
    this.#dropped += 1;
    this.o.onDropped?.(item, error);
  }
}
