import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Intent, IntentResult } from '../sequencer/intents.js';
import type { Sequencer } from '../sequencer/sequencer.js';
import { requestWithRetries } from './nats-request.js';
import { SUBMIT_SUBJECT } from './sequencer-intake.js';
import { appErrorOf, decodeSubmitReply, encodeSubmitRequest, type SubmitReply } from './wire-codec.js';

export type RemoteSequencerOptions = {
  nc: NatsConnection;
  subject?: string;
  /**
   * How long one attempt waits for the reply (default 1 s: a batch is durable in milliseconds; a request in
   * flight when the leader dies waits this long before it is sent again, to the new leader).
   */
  attemptTimeoutMs?: number;
  /** How long a call keeps retrying while no sequencer answers (a failover), from its start (default 10 s). */
  deadlineMs?: number;
  /** The pause between attempts after "no responders" (default 100 ms). */
  retryPauseMs?: number;
};

/**
 * The API node's sequencer: `decideAll` as in one process, carried to the leading sequencer over NATS
 * request/reply. While no sequencer answers (no responders: none leads yet; a timeout: the leader died
 * with the request, or its reply was lost) the same request, with the same id, is sent again until the
 * deadline; then every intent fails with a 503. The leader answers a retry with the first result, so a
 * retry never places an order twice (see `SequencerIntake`).
 */
export class RemoteSequencer implements Pick<Sequencer, 'decideAll'> {
  readonly #subject: string;
  readonly #attemptTimeoutMs: number;
  readonly #deadlineMs: number;
  readonly #retryPauseMs: number;

  constructor(private readonly o: RemoteSequencerOptions) {
    this.#subject = o.subject ?? SUBMIT_SUBJECT;
    this.#attemptTimeoutMs = o.attemptTimeoutMs ?? 1_000;
    this.#deadlineMs = o.deadlineMs ?? 10_000;
    this.#retryPauseMs = o.retryPauseMs ?? 100;
  }

  decideAll(intents: readonly Intent[]): Promise<IntentResult>[] {
    const reply = this.#request(encodeSubmitRequest({ id: randomUUID(), intents }));
    return intents.map((_, i) =>
      reply.then((r) => {
        if (!r.ok) throw appErrorOf(r.error);
        const result = r.results[i]!;
        if (!result.ok) throw appErrorOf(result.error);
        return result.result;
      }),
    );
  }

  async #request(data: string): Promise<SubmitReply> {
    const msg = await requestWithRetries({
      nc: this.o.nc,
      subject: this.#subject,
      data,
      attemptTimeoutMs: this.#attemptTimeoutMs,
      deadlineMs: this.#deadlineMs,
      retryPauseMs: this.#retryPauseMs,
      // The same request id: the leader answers a retry with the first result, never places twice.
      retryTimeouts: true,
      responder: 'sequencer',
    });
    return decodeSubmitReply(msg.data);
  }
}
