import { createRequire } from 'node:module';
import { type OpenLoopStats, runOpenLoop } from './open-loop.js';
import type { BenchRequest } from './order-fixtures.js';

// autocannon ships no types; the little used here is typed by hand.
type Instance = Promise<{ errors: number; timeouts: number; non2xx: number }> & {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  stop(): void;
};
type RawRequest = { body?: string; headers?: Record<string, string> };
type AutocannonOptions = {
  url: string;
  method: 'POST';
  connections: number;
  amount?: number;
  duration?: number;
  overallRate?: number;
  timeout?: number;
  headers: Record<string, string>;
  requests: {
    setupRequest: (request: RawRequest) => RawRequest;
    onResponse: (status: number, body: string) => void;
  }[];
};
const autocannon = createRequire(import.meta.url)('autocannon') as (options: AutocannonOptions) => Instance;

export type LoadResult = {
  requests: number;
  orders: number;
  seconds: number;
  requestsPerSecond: number;
  ordersPerSecond: number;
  /** Responses other than 2xx, plus connection errors and timeouts. */
  non2xx: number;
  errors: number;
  /** Orders answered FAILED inside a 200 (never expected here). */
  failedOrders: number;
  /** Latency of every 2xx answer, in ms, sorted. */
  latencies: Float64Array;
  statusCounts: Map<number, number>;
  firstError: string | null;
};

export const percentile = (sorted: Float64Array, q: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/**
 * Hands out the pre-built requests once each, in order, across every connection of every instance. When
 * they run out, `more` makes another (signing on the fly), or with `wrap` the list starts over.
 */
function cursor(requests: readonly BenchRequest[], more?: () => BenchRequest, wrap = false) {
  let next = 0;
  return {
    take(): BenchRequest {
      if (next < requests.length) return requests[next++]!;
      if (wrap && requests.length > 0) {
        next = 1;
        return requests[0]!;
      }
      if (more) return more();
      throw new Error(`out of pre-signed requests after ${requests.length}`);
    },
  };
}

type Recorder = {
  latencies: number[];
  statusCounts: Map<number, number>;
  failedOrders: number;
  firstError: string | null;
};

function startInstance(options: {
  url: string;
  take: () => BenchRequest;
  connections: number;
  amount?: number;
  duration?: number;
  overallRate?: number;
  rec: Recorder;
}): Instance {
  const { rec } = options;
  const instance = autocannon({
    url: `${options.url}/orders-v3`,
    method: 'POST',
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : {}),
    ...(options.duration ? { duration: options.duration } : {}),
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    timeout: 30,
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        setupRequest(request) {
          const r = options.take();
          request.body = r.body;
          request.headers = { ...request.headers, 'x-svc-api-key': r.apiKey };
          return request;
        },
        onResponse(status, body) {
          if (status === 200) {
            if (body.includes('"FAILED"')) {
              rec.failedOrders += body.split('"FAILED"').length - 1;
              rec.firstError ??= body.slice(0, 300);
            }
          } else rec.firstError ??= `${status} ${body.slice(0, 300)}`;
        },
      },
    ],
  });
  instance.on('response', (_client, status, _bytes, ms) => {
    rec.statusCounts.set(status, (rec.statusCounts.get(status) ?? 0) + 1);
    if (status >= 200 && status < 300) rec.latencies.push(ms);
  });
  return instance;
}

function summarize(
  rec: Recorder,
  perRequest: number,
  seconds: number,
  totals: { errors: number; timeouts: number; non2xx: number }[],
): LoadResult {
  const latencies = Float64Array.from(rec.latencies).sort();
  const requests = latencies.length;
  const errors = totals.reduce((s, t) => s + t.errors + t.timeouts, 0);
  return {
    requests,
    orders: requests * perRequest,
    seconds,
    requestsPerSecond: requests / seconds,
    ordersPerSecond: (requests * perRequest) / seconds,
    non2xx: totals.reduce((s, t) => s + t.non2xx, 0) + errors,
    errors,
    failedOrders: rec.failedOrders,
    latencies,
    statusCounts: rec.statusCounts,
    firstError: rec.firstError,
  };
}

const newRecorder = (): Recorder => ({
  latencies: [],
  statusCounts: new Map(),
  failedOrders: 0,
  firstError: null,
});

/** Closed loop for `seconds`: as fast as `connections` keep-alive connections get answers. */
export async function runPeak(options: {
  url: string;
  requests: readonly BenchRequest[];
  more?: () => BenchRequest;
  /** Reuse the requests (for a server that keeps no state). */
  wrap?: boolean;
  perRequest: number;
  connections: number;
  seconds: number;
}): Promise<LoadResult> {
  const rec = newRecorder();
  const { take } = cursor(options.requests, options.more, options.wrap);
  const started = performance.now();
  const totals = await startInstance({
    url: options.url,
    take,
    connections: options.connections,
    duration: options.seconds,
    rec,
  });
  return summarize(rec, options.perRequest, (performance.now() - started) / 1000, [totals]);
}

/**
 * Open loop at `rate` requests/s for `seconds` (bench/lib/open-loop.ts): request i is scheduled at exactly
 * start + i / rate on a pre-opened pool of keep-alive connections that grows when every connection is busy,
 * and its latency runs from that scheduled time, so a stall anywhere (server or this process) shows in
 * every request it delays. `latencies` are from the schedule; `paced` has them from the actual send, how
 * late requests went out, and the generator's own CPU cost.
 */
export async function runPaced(options: {
  url: string;
  requests: readonly BenchRequest[];
  perRequest: number;
  more?: () => BenchRequest;
  /** Reuse the requests (for a server that keeps no state). */
  wrap?: boolean;
  rate: number;
  seconds: number;
}): Promise<LoadResult & { paced: OpenLoopStats }> {
  const { take } = cursor(options.requests, options.more, options.wrap);
  const r = await runOpenLoop({ url: options.url, take, rate: options.rate, seconds: options.seconds });
  const requests = r.latencies.length;
  // Offered load is exactly `rate` for `seconds`; the wall time also holds the tail of the last answers.
  return {
    requests,
    orders: requests * options.perRequest,
    seconds: options.seconds,
    requestsPerSecond: requests / options.seconds,
    ordersPerSecond: (requests * options.perRequest) / options.seconds,
    non2xx: r.non2xx + r.errors,
    errors: r.errors,
    failedOrders: r.failedOrders,
    latencies: r.latencies,
    statusCounts: r.statusCounts,
    firstError: r.firstError,
    paced: r.stats,
  };
}

/** How many requests a paced run takes. */
export function pacedRequestCount(rate: number, seconds: number): number {
  return Math.round(rate * seconds);
}
