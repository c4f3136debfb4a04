import { ExchangeApiError, ExchangeNetworkError } from '../errors.js';

/**
 * When a request is sent again. Only transient failures are retried: no answer (the connection failed or
 * timed out), 408 and 429 (refused before it was processed), 502/503/504 (busy, catching up, stopping). A
 * route that is not idempotent is retried only after a 408 or 429: its other failures may have taken effect.
 */
export type RetryOptions = {
  /** Attempts in all, the first included (default 4; 1 = never retry). */
  attempts?: number;
  /** Backoff base: the n-th retry waits a random time up to base x 2^n (default 250 ms). */
  baseDelayMs?: number;
  /** Longest backoff wait (default 5 s). */
  maxDelayMs?: number;
  /** Longest Retry-After the client honours; past it the error is thrown (default 60 s). */
  maxRetryAfterMs?: number;
};

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 60_000,
};

export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  if (options === false) return { ...DEFAULT_RETRY, attempts: 1 };
  return { ...DEFAULT_RETRY, ...options };
}

const BUSY = new Set([502, 503, 504]);
/** Refused before the route ran: safe to send again whatever the route. */
const NOT_PROCESSED = new Set([408, 429]);

/** Whether `error` may be retried for a route, given whether it is idempotent. */
export function isTransient(error: unknown, idempotent: boolean): boolean {
  if (error instanceof ExchangeNetworkError) return idempotent;
  if (error instanceof ExchangeApiError)
    return NOT_PROCESSED.has(error.status) || (idempotent && BUSY.has(error.status));
  return false;
}

/** How long to wait before retry number `retry` (1 for the first), or undefined to give up. */
export function retryDelay(
  error: unknown,
  retry: number,
  policy: RetryPolicy,
  random = Math.random,
): number | undefined {
  const asked = error instanceof ExchangeApiError ? error.retryAfterMs : undefined;
  if (asked !== undefined) return asked <= policy.maxRetryAfterMs ? asked : undefined;
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(cap / 2 + (random() * cap) / 2);
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
