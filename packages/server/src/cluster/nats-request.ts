import {
  type Msg,
  type NatsConnection,
  NoRespondersError,
  RequestError,
  TimeoutError,
} from '@nats-io/transport-node';
import { unavailable } from '../errors/app-error.js';

export type RetriedRequestOptions = {
  nc: NatsConnection;
  subject: string;
  data: string;
  /** How long one attempt waits for the reply. */
  attemptTimeoutMs: number;
  /** How long the call keeps trying while nobody answers, from its start; then 503. */
  deadlineMs: number;
  /** The pause between attempts after "no responders". */
  retryPauseMs: number;
  /**
   * Whether a timed-out attempt is sent again. Only for a request that is harmless twice (a read, an
   * idempotent write, or one the responder answers again by its id): a timeout may mean it was applied.
   */
  retryTimeouts: boolean;
  /** Who answers, as the 503's message names it: `sequencer`, `leader`. */
  responder: string;
};

/**
 * One request/reply to whoever leads, carried over a failover: "no responders" (nobody serves the subject
 * yet) is always tried again, a timeout (the responder died with the request, or its reply was lost) when
 * `retryTimeouts`, until the deadline; then the project's 503 (SERVICE_UNAVAILABLE).
 */
export async function requestWithRetries(o: RetriedRequestOptions): Promise<Msg> {
  const deadline = performance.now() + o.deadlineMs;
  for (let attempt = 1; ; attempt++) {
    const left = deadline - performance.now();
    try {
      return await o.nc.request(o.subject, o.data, {
        timeout: Math.max(1, Math.min(o.attemptTimeoutMs, left)),
      });
    } catch (error) {
      if (isTimeout(error) && !o.retryTimeouts) {
        throw unavailable(
          `The ${o.responder} did not answer within ${o.attemptTimeoutMs} ms; the request may have taken effect: read before sending it again`,
          error,
        );
      }
      if (!isNoResponders(error) && !isTimeout(error))
        throw unavailable(`The ${o.responder} could not be reached`, error);
      if (performance.now() + o.retryPauseMs >= deadline) {
        throw unavailable(
          `No ${o.responder} answered within ${o.deadlineMs} ms (${attempt} attempts); retry`,
          error,
        );
      }
      if (isNoResponders(error)) await sleep(o.retryPauseMs);
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

function isTimeout(error: unknown): boolean {
  return error instanceof TimeoutError || (error instanceof Error && error.cause instanceof TimeoutError);
}
