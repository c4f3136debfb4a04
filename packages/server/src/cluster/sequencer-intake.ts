import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Intent, IntentResult } from '../sequencer/intents.js';
import type { Sequencer } from '../sequencer/sequencer.js';
import type { FirstResults } from './first-results.js';
import {
  decodeSubmitRequest,
  encodeSubmitReply,
  type SubmitReply,
  type SubmitRequest,
  wireError,
} from './wire-codec.js';

/** Where API nodes send intents to the leading sequencer (request/reply). */
export const SUBMIT_SUBJECT = 'oddsbook.sequencer.submit';
/** One queue group: were two sequencers ever subscribed at once, each request still goes to one. */
const QUEUE = 'oddsbook-sequencer';

export type SequencerIntakeOptions = {
  nc: NatsConnection;
  sequencer: Pick<Sequencer, 'decideAll'>;
  /** The committed orders' first results (fed with the committed batches), to answer a retried order. */
  firstResults: FirstResults;
  subject?: string;
  /** How many answered requests are remembered by id, for retries that reach the same leader. */
  rememberReplies?: number;
};

/**
 * The leader's side of the intake over NATS: serves `oddsbook.sequencer.submit` while started (a sequencer
 * starts it once it leads, and stops it when it stops leading). Each request is one `decideAll`; the reply
 * is sent once the sequencer answers, that is once its batch is durable in the journal.
 *
 * A retry never places twice and is answered as the first attempt was: a retry of a request still being
 * decided, or answered by this process, gets the same reply (by request id); a retry reaching a new leader
 * has its orders refused by the sequencer's admission (ORDER_ALREADY_EXISTS) and answered with their first
 * results from `firstResults`.
 */
export class SequencerIntake {
  readonly subject: string;
  #subscription: Subscription | null = null;
  readonly #replies = new Map<string, Promise<string>>();
  readonly #remember: number;

  constructor(private readonly o: SequencerIntakeOptions) {
    this.subject = o.subject ?? SUBMIT_SUBJECT;
    this.#remember = o.rememberReplies ?? 10_000;
  }

  get serving(): boolean {
    return this.#subscription !== null;
  }

  /** Starts answering; resolves once the server has the subscription (requests from then on reach it). */
  async start(): Promise<void> {
    if (this.#subscription) return;
    this.#subscription = this.o.nc.subscribe(this.subject, {
      queue: QUEUE,
      callback: (error, msg) => {
        if (!error) this.#serve(msg);
      },
    });
    await this.o.nc.flush();
  }

  /** Stops taking requests; those taken are still answered (the subscription drains). */
  async stop(): Promise<void> {
    const subscription = this.#subscription;
    this.#subscription = null;
    if (subscription && !subscription.isClosed()) await subscription.drain();
  }

  #serve(msg: Msg): void {
    let request: SubmitRequest;
    try {
      request = decodeSubmitRequest(msg.data);
    } catch (error) {
      msg.respond(encodeSubmitReply({ ok: false, error: wireError(error) }));
      return;
    }
    let reply = this.#replies.get(request.id);
    if (!reply) {
      reply = this.#decide(request.intents).then(encodeSubmitReply);
      this.#replies.set(request.id, reply);
      if (this.#replies.size > this.#remember) this.#replies.delete(this.#replies.keys().next().value!);
    }
    reply.then((data) => {
      // A requester gone meanwhile (it timed out and retries) drops the reply: nothing to do.
      if (!this.o.nc.isClosed()) msg.respond(data);
    });
  }

  async #decide(intents: readonly Intent[]): Promise<SubmitReply> {
    let pending: Promise<IntentResult>[];
    try {
      pending = this.o.sequencer.decideAll(intents);
    } catch (error) {
      return { ok: false, error: wireError(error) };
    }
    const settled = await Promise.allSettled(pending);
    return {
      ok: true,
      results: settled.map((s, i) => {
        if (s.status === 'rejected') return { ok: false, error: wireError(s.reason) };
        const intent = intents[i]!;
        return {
          ok: true,
          result: intent.kind === 'order' ? this.o.firstResults.answer(intent, s.value) : s.value,
        };
      }),
    };
  }
}
