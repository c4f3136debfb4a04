import type { NatsConnection } from '@nats-io/transport-node';
import type { Intent, IntentResult } from '../sequencer/intents.js';
import type { Sequencer } from '../sequencer/sequencer.js';
import type { FirstResults } from './first-results.js';
import { RequestServer } from './request-server.js';
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
  readonly #server: RequestServer<SubmitRequest>;

  constructor(private readonly o: SequencerIntakeOptions) {
    this.subject = o.subject ?? SUBMIT_SUBJECT;
    this.#server = new RequestServer({
      nc: o.nc,
      subject: this.subject,
      queue: QUEUE,
      remember: o.rememberReplies ?? 10_000,
      decode: decodeSubmitRequest,
      refuse: (error) => encodeSubmitReply({ ok: false, error: wireError(error) }),
      answer: (request) => this.#decide(request.intents).then(encodeSubmitReply),
    });
  }

  get serving(): boolean {
    return this.#server.serving;
  }

  /** Starts answering; resolves once the server has the subscription (requests from then on reach it). */
  start(): Promise<void> {
    return this.#server.start();
  }

  /** Stops taking requests; those taken are still answered (the subscription drains). */
  stop(): Promise<void> {
    return this.#server.stop();
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
