import { Agent, request } from 'node:http';
import type { BenchRequest } from './order-fixtures.js';

/** One answered request: when it went out and came back (performance.now() ms), and what it said. */
export type Answer = {
  target: number;
  sentAt: number;
  answeredAt: number;
  status: number;
  /** A 200 whose orders were all accepted (no item FAILED). */
  accepted: boolean;
  orderIds: readonly string[];
  /** The body of an answer that was not accepted (the first 300 characters). */
  error?: string;
};

/** A request of the bench with the ids of the orders it places (the EIP-712 digests). */
export type IdentifiedRequest = BenchRequest & { orderIds: readonly string[] };

export type Writers = {
  /** Every answer so far, in the order they came. */
  readonly answers: Answer[];
  /** Stops the writers and waits for the requests in flight. */
  stop(): Promise<void>;
};

/**
 * Closed-loop writers: `writers` loops, spread evenly over `targets` (base URLs of API nodes or a single
 * process), each posting the next request to `/orders-v3` as soon as its last one is answered, on
 * keep-alive connections. Every answer is kept with its send and answer times, so a phase can take its
 * throughput and latency from a window of them, and a failover its first order acknowledged after a kill.
 */
export function startWriters(options: {
  targets: readonly string[];
  writers: number;
  next: () => IdentifiedRequest;
  /** Each request's timeout, ms (default 30 s: longer than the API node's 10 s retry of the sequencer). */
  timeoutMs?: number;
}): Writers {
  const answers: Answer[] = [];
  let stopped = false;
  const agents = options.targets.map(
    () => new Agent({ keepAlive: true, maxSockets: Math.ceil(options.writers / options.targets.length) }),
  );
  const post = (target: number, r: IdentifiedRequest) =>
    postOrder(options.targets[target]!, target, r, agents[target], options.timeoutMs);
  const loops = Array.from({ length: options.writers }, async (_, w) => {
    const target = w % options.targets.length;
    while (!stopped) {
      const answer = await post(target, options.next());
      answers.push(answer);
      // A refused connection answers at once: do not spin on it.
      if (answer.status === 0) await new Promise((r) => setTimeout(r, 20));
    }
  });
  return {
    answers,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      for (const agent of agents) agent.destroy();
    },
  };
}

/**
 * Posts one request to `<base>/orders-v3` (on `agent`'s connections, or a connection of its own) and
 * resolves with its answer; never rejects (a connection error is status 0).
 */
export function postOrder(
  base: string,
  target: number,
  r: IdentifiedRequest,
  agent?: Agent,
  timeoutMs = 30_000,
): Promise<Answer> {
  return new Promise((resolve) => {
    const url = new URL('/orders-v3', base);
    const sentAt = performance.now();
    const done = (status: number, body: string) => {
      const accepted = status === 200 && !body.includes('"FAILED"');
      resolve({
        target,
        sentAt,
        answeredAt: performance.now(),
        status,
        accepted,
        orderIds: r.orderIds,
        ...(accepted ? {} : { error: body.slice(0, 300) }),
      });
    };
    const req = request(
      url,
      {
        method: r.method ?? 'POST',
        ...(agent ? { agent } : {}),
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(r.body),
          'x-svc-api-key': r.apiKey,
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')));
        res.on('error', (e) => done(0, `response error: ${e.message}`));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => done(0, `request error: ${e.message}`));
    req.end(r.body);
  });
}

export const percentileOf = (sorted: readonly number[], q: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** Throughput and latency of the answers that came within [from, to) (performance.now() ms). */
export function windowFigures(answers: readonly Answer[], from: number, to: number) {
  const inWindow = answers.filter((a) => a.answeredAt >= from && a.answeredAt < to);
  const accepted = inWindow.filter((a) => a.accepted);
  const orders = accepted.reduce((n, a) => n + a.orderIds.length, 0);
  const latencies = accepted.map((a) => a.answeredAt - a.sentAt).sort((a, b) => a - b);
  const refused = inWindow.filter((a) => !a.accepted);
  const seconds = (to - from) / 1000;
  const byTarget = new Map<number, number>();
  for (const a of accepted) byTarget.set(a.target, (byTarget.get(a.target) ?? 0) + a.orderIds.length);
  return {
    seconds,
    orders,
    ordersPerSecond: orders / seconds,
    byTarget,
    p50: percentileOf(latencies, 0.5),
    p99: percentileOf(latencies, 0.99),
    refused: refused.length,
    firstRefusal: refused[0] ? `${refused[0].status} ${refused[0].error}` : null,
  };
}
