import { createRequire } from 'node:module';
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
 * Open loop at `rate` requests/s for `seconds`. autocannon paces by resetting a per-connection budget once a
 * second, so one instance sends its whole second's budget in a burst. To get an even arrival rate, the load
 * is split over `instances` one-connection autocannon instances whose seconds start `1000 / instances` ms
 * apart: each sends `rate / instances` (about 2) requests back to back once a second, and together they interleave.
 */
export async function runPaced(options: {
  url: string;
  requests: readonly BenchRequest[];
  perRequest: number;
  more?: () => BenchRequest;
  rate: number;
  seconds: number;
}): Promise<LoadResult & { instances: number; wallSeconds: number }> {
  const rec = newRecorder();
  const { take } = cursor(options.requests, options.more);
  const instances = pacedInstances(options.rate);
  const started = performance.now();
  const running: Promise<{ errors: number; timeouts: number; non2xx: number }>[] = [];
  for (let i = 0; i < instances; i++) {
    // Integer rates per instance that add up to `rate` exactly.
    const rate = Math.floor(options.rate / instances) + (i < options.rate % instances ? 1 : 0);
    const startAt = started + (i * 1000) / instances;
    running.push(
      new Promise<void>((r) => setTimeout(r, Math.max(0, startAt - performance.now()))).then(() =>
        startInstance({
          url: options.url,
          take,
          connections: 1,
          amount: rate * options.seconds,
          overallRate: rate,
          rec,
        }),
      ),
    );
  }
  const totals = await Promise.all(running);
  const wallSeconds = (performance.now() - started) / 1000;
  // Offered load is exactly `rate` for `seconds`; the wall time also holds the start-up spread and the tail.
  const result = summarize(rec, options.perRequest, options.seconds, totals);
  return { ...result, instances, wallSeconds };
}

const pacedInstances = (rate: number) => Math.max(1, Math.min(500, Math.ceil(rate / 2)));

/** How many requests a paced run takes (with slack for requests built ahead and never sent). */
export function pacedRequestCount(rate: number, seconds: number): number {
  return rate * seconds + 2 * pacedInstances(rate);
}
