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
  amount: number;
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

/** Hands out the pre-built requests once each, in order, across every connection of every instance. */
function cursor(requests: readonly BenchRequest[]) {
  let next = 0;
  return {
    take(): BenchRequest {
      const r = requests[next++];
      if (!r) throw new Error(`out of pre-signed requests after ${requests.length}`);
      return r;
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
  amount: number;
  overallRate?: number;
  rec: Recorder;
}): Instance {
  const { rec } = options;
  const instance = autocannon({
    url: `${options.url}/orders-v3`,
    method: 'POST',
    connections: options.connections,
    amount: options.amount,
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

/** Closed loop: `amount` requests as fast as `connections` keep-alive connections get answers. */
export async function runPeak(options: {
  url: string;
  requests: readonly BenchRequest[];
  perRequest: number;
  connections: number;
}): Promise<LoadResult> {
  const rec = newRecorder();
  const { take } = cursor(options.requests);
  // Each connection builds one request ahead that it may never send: keep that many in reserve.
  const amount = options.requests.length - 2 * options.connections;
  const started = performance.now();
  const totals = await startInstance({
    url: options.url,
    take,
    connections: options.connections,
    amount,
    rec,
  });
  return summarize(rec, options.perRequest, (performance.now() - started) / 1000, [totals]);
}

/**
 * Open loop at `rate` requests/s for `seconds`. autocannon paces by resetting a per-connection budget once a
 * second, so one instance sends its whole second's budget in a burst. To get an even arrival rate, the load
 * is split over `instances` one-connection autocannon instances whose seconds start `1000 / instances` ms
 * apart: each sends `rate / instances` requests back to back once a second, and together they interleave.
 */
export async function runPaced(options: {
  url: string;
  requests: readonly BenchRequest[];
  perRequest: number;
  rate: number;
  seconds: number;
}): Promise<LoadResult & { instances: number }> {
  const rec = newRecorder();
  const { take } = cursor(options.requests);
  const instances = Math.max(1, Math.min(200, Math.round(options.rate / 5)));
  const perInstance = Math.floor(options.rate / instances);
  const started = performance.now();
  const running: Instance[] = [];
  for (let i = 0; i < instances; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 1000 / instances));
    running.push(
      startInstance({
        url: options.url,
        take,
        connections: 1,
        amount: perInstance * options.seconds,
        overallRate: perInstance,
        rec,
      }),
    );
  }
  const totals = await Promise.all(running);
  const result = summarize(rec, options.perRequest, (performance.now() - started) / 1000, totals);
  return { ...result, instances };
}

/** How many requests a paced run takes (with slack for requests built ahead and never sent). */
export function pacedRequestCount(rate: number, seconds: number): number {
  const instances = Math.max(1, Math.min(200, Math.round(rate / 5)));
  return Math.floor(rate / instances) * instances * seconds + 4 * instances;
}
