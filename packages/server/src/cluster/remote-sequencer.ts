import { randomUUID } from 'node:crypto';
import { type NatsConnection, NoRespondersError, RequestError, TimeoutError } from '@nats-io/transport-node';
import { unavailable } from '../errors/app-error.js';
import type { Intent, IntentResult } from '../sequencer/intents.js';
import type { Sequencer } from '../sequencer/sequencer.js';
import { SUBMIT_SUBJECT } from './sequencer-intake.js';
import { appErrorOf, decodeSubmitReply, encodeSubmitRequest, type SubmitReply } from './wire-codec.js';

export type RemoteSequencerOptions = {
  nc: NatsConnection;
  subject?: string;
  /** How long one attempt waits for the reply (default 2 s: a batch is durable in milliseconds). */
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
    this.#attemptTimeoutMs = o.attemptTimeoutMs ?? 2_000;
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
    const deadline = performance.now() + this.#deadlineMs;
    for (let attempt = 1; ; attempt++) {
      const left = deadline - performance.now();
      try {
        const msg = await this.o.nc.request(this.#subject, data, {
          timeout: Math.max(1, Math.min(this.#attemptTimeoutMs, left)),
        });
        return decodeSubmitReply(msg.data);
      } catch (error) {
        if (!isRetryable(error)) throw unavailable('The sequencer could not be reached', error);
        if (performance.now() + this.#retryPauseMs >= deadline) {
          throw unavailable(
            `No sequencer answered within ${this.#deadlineMs} ms (${attempt} attempts); retry`,
            error,
          );
        }
        if (isNoResponders(error)) await sleep(this.#retryPauseMs);
      }
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function isNoResponders(error: unknown): boolean {
  return (
    error instanceof NoRespondersError ||
    (error instanceof RequestError && error.isNoResponders()) ||
    (error instanceof Error && error.cause instanceof NoRespondersError)
  );
}

/** No sequencer answered: nobody leads yet, or the leader died with the request (or lost its reply). */
function isRetryable(error: unknown): boolean {
  return (
    isNoResponders(error) ||
    error instanceof TimeoutError ||
    (error instanceof Error && error.cause instanceof TimeoutError)
  );
}
