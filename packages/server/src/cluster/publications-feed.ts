import type { ConsumerMessages, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { StampedPublication } from '../realtime/stamped.js';
import { decodeStampedMessage, type StampedMessage } from './publications-stream.js';

export type PublicationsFeedOptions = {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  /** How far back the stream is read at start, ms (default 5 minutes: the history a hub keeps). */
  fillMs?: number;
  /** Each message's publications, in the stream's order (a stamped hub's `publishStamped`). */
  handler: (publications: StampedPublication[], message: StampedMessage) => void;
  /** A message skipped: not a stamped message, or stamped by a leader older than one already seen. */
  onSkipped?: (streamSeq: number, reason: string) => void;
  /** The feed stopped: the handler threw, or the consumer failed. */
  onFatal?: (error: unknown) => void;
  now?: () => number;
};

/**
 * A realtime node's feed of stamped publications: an ordered consumer of the publications stream from the
 * first message of the last `fillMs` (found by a binary search on the messages' times), so that a node
 * started later holds the history a client moving to it recovers from. `start` resolves once the messages
 * the stream held at start are handed on (the node may then serve). A message of a leader older than one
 * already seen (a deposed leader's late publish) is skipped: its channels have moved on.
 */
export class PublicationsFeed {
  #messages: ConsumerMessages | null = null;
  #done: Promise<void> | null = null;
  #stopped = false;
  #leaderEpoch = 0;
  #handled = 0;
  #filledThrough = 0;
  #filled: (() => void) | null = null;

  constructor(private readonly o: PublicationsFeedOptions) {}

  /** Messages handed on so far, and the newest leader epoch seen. */
  get counts(): { handled: number; leaderEpoch: number } {
    return { handled: this.#handled, leaderEpoch: this.#leaderEpoch };
  }

  async start(): Promise<void> {
    const { state } = await this.o.jsm.streams.info(this.o.stream);
    const startSeq = await this.#startSeq(state.first_seq, state.last_seq, state.messages);
    this.#filledThrough = state.last_seq;
    const filled =
      startSeq > state.last_seq
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            this.#filled = resolve;
          });
    const consumer = await this.o.js.consumers.get(this.o.stream, { opt_start_seq: startSeq });
    this.#messages = await consumer.consume();
    this.#done = this.#follow(this.#messages);
    await Promise.race([filled, this.#done]);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#messages?.close();
    await this.#done;
  }

  async #follow(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const msg of messages) {
        if (this.#stopped) break;
        this.#take(msg.seq, msg.data);
        if (this.#filled !== null && msg.seq >= this.#filledThrough) {
          this.#filled();
          this.#filled = null;
        }
      }
    } catch (error) {
      if (this.#stopped) return;
      this.#stopped = true;
      await messages.close().catch(() => {});
      this.o.onFatal?.(error);
    }
  }

  #take(streamSeq: number, data: Uint8Array): void {
    const message = decodeStampedMessage(data);
    if (message === undefined) {
      this.o.onSkipped?.(streamSeq, 'not a stamped message');
      return;
    }
    if (message.leaderEpoch < this.#leaderEpoch) {
      this.o.onSkipped?.(streamSeq, `stamped by leader ${message.leaderEpoch} after ${this.#leaderEpoch}`);
      return;
    }
    this.#leaderEpoch = message.leaderEpoch;
    this.o.handler(message.publications, message);
    this.#handled += 1;
  }

  /** The stream sequence of the first message stored within the last `fillMs`; any doubt starts earlier. */
  async #startSeq(first: number, last: number, count: number): Promise<number> {
    if (count === 0) return last + 1;
    const since = (this.o.now ?? Date.now)() - (this.o.fillMs ?? 5 * 60_000);
    let lo = first;
    let hi = last + 1;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const msg = await this.o.jsm.streams.getMessage(this.o.stream, { seq: mid }).catch(() => null);
      if (msg === null) return first;
      if (msg.time.getTime() < since) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
