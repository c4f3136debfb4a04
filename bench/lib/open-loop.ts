import { connect, type Socket } from 'node:net';
import type { BenchRequest } from './order-fixtures.js';
import { startTrace, TRACE } from './trace.js';

/** What an open-loop run measured besides LoadResult's figures. */
export type OpenLoopStats = {
  /** Latency from the actual send (socket assigned, request written), ms, sorted; LoadResult's is from the schedule. */
  latenciesFromSend: Float64Array;
  /** How late each request went out after its scheduled time, ms, sorted. */
  sendDelays: Float64Array;
  /** Requests that went out more than LATE_MS after their scheduled time. */
  late: number;
  /** Requests that found every connection of the pool busy (at the cap) and waited for one to free up. */
  waitedForConnection: number;
  /** Connections opened (the warm pool, plus any opened because a slow answer held the others). */
  connections: number;
  /** Most requests in flight at once. */
  maxInFlight: number;
  /** CPU time (user + system) this process spent during the run, µs per request: the generator's own cost. */
  generatorCpuMicrosPerRequest: number;
  /** From the first scheduled send to the last answer, s. */
  wallSeconds: number;
};

const FAILED = Buffer.from('"FAILED"');
const countOf = (data: Buffer, needle: Buffer, from: number, to: number): number => {
  let n = 0;
  for (let at = data.indexOf(needle, from); at >= 0 && at < to; at = data.indexOf(needle, at + 1)) n++;
  return n;
};

/** A request that goes out later than this after its scheduled time counts as late. */
export const LATE_MS = 2;

type Result = {
  completed: number;
  statusCounts: Map<number, number>;
  errors: number;
  non2xx: number;
  failedOrders: number;
  firstError: string | null;
  latencies: Float64Array;
  stats: OpenLoopStats;
};

/**
 * Open loop: `rate` requests/s for `seconds`, request i scheduled at exactly start + i / rate, whatever the
 * answers do. A pool of keep-alive connections is opened before the clock starts;
 * when every connection is busy another is opened (up to `maxConnections`), so a slow answer never
 * holds back the next send; past the cap a request waits for a connection and is counted in
 * `waitedForConnection`. Latency is measured from the scheduled send time (no coordinated omission: a stall of
 * the server or of this process shows in every request it delays), and also from the actual send.
 */
export async function runOpenLoop(options: {
  url: string;
  take: () => BenchRequest;
  rate: number;
  seconds: number;
  /** Connections opened before the run (default: enough for 50 ms of latency at `rate`, at least 16). */
  warmConnections?: number;
  /**
   * Default 256: below the server's accept backlog (Node's 511), so that connections opened while the server
   * is stalled are not dropped (a dropped SYN is retried after 1 s, a delay of the generator's making).
   */
  maxConnections?: number;
  timeoutMs?: number;
}): Promise<Result> {
  const total = Math.round(options.rate * options.seconds);
  const interval = 1000 / options.rate;
  const warm = options.warmConnections ?? Math.max(16, Math.ceil(options.rate * 0.05));
  const maxConnections = Math.max(warm, options.maxConnections ?? 256);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const { hostname, port: portText } = new URL(options.url);
  const port = Number(portText);
  const hostHeader = `${hostname}:${port}`;

  const scheduled = new Float64Array(total);
  const sent = new Float64Array(total).fill(Number.NaN);
  const done = new Float64Array(total).fill(Number.NaN);
  const statuses = new Uint16Array(total);
  const statusCounts = new Map<number, number>();
  let errors = 0;
  let non2xx = 0;
  let failedOrders = 0;
  let firstError: string | null = null;
  let inFlight = 0;
  let maxInFlight = 0;
  let waitedForConnection = 0;
  let finished = 0;
  let next = 0;
  let timer: NodeJS.Timeout | undefined;
  let resolveAll!: () => void;
  const allDone = new Promise<void>((r) => (resolveAll = r));
  let t0 = 0;
  let trace: ReturnType<typeof startTrace> | null = null;

  // The pool: raw keep-alive HTTP/1.1 connections, one request at a time each (no pipelining). A minimal
  // client (a pre-built request buffer out, status line and content-length in) costs a fraction of
  // node:http's CPU, which matters on a machine the generator shares with the server.
  const idle: Connection[] = [];
  const waiting: number[] = [];
  let opened = 0;
  let live = 0;

  class Connection {
    socket: Socket;
    current = -1;
    private buffered: Buffer | null = null;
    private timeout: NodeJS.Timeout | undefined;
    private connected = false;
    private closed = false;
    /** Sends request `first` once connected, or (-1) joins the idle pool and calls `onReady`. */
    constructor(
      private readonly first: number,
      onReady?: () => void,
      private readonly onError?: (reason: string) => void,
    ) {
      opened++;
      live++;
      this.socket = connect({ host: hostname, port, noDelay: true });
      this.socket.once('connect', () => {
        this.connected = true;
        if (first >= 0) this.send(first, options.take());
        else {
          idle.push(this);
          onReady?.();
        }
      });
      this.socket.on('data', (chunk) => this.onData(chunk));
      this.socket.on('error', (e) => this.fail(String(e)));
      this.socket.on('close', () => this.fail('connection closed'));
    }
    send(i: number, r: BenchRequest) {
      this.current = i;
      sent[i] = performance.now();
      if (trace) {
        trace.sent(sent[i]!);
        if (sent[i]! - scheduled[i]! > LATE_MS) trace.late(sent[i]!);
      }
      this.socket.write(
        `${r.method ?? 'POST'} /orders-v3 HTTP/1.1\r\nhost: ${hostHeader}\r\ncontent-type: application/json\r\nx-svc-api-key: ${r.apiKey}\r\ncontent-length: ${Buffer.byteLength(r.body)}\r\n\r\n${r.body}`,
      );
      this.timeout = setTimeout(() => this.fail(`no answer in ${timeoutMs} ms`), timeoutMs);
    }
    private onData(chunk: Buffer) {
      const data = this.buffered ? Buffer.concat([this.buffered, chunk]) : chunk;
      const headEnd = data.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        this.buffered = data;
        return;
      }
      const head = data.toString('latin1', 0, headEnd);
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (!length) return this.fail(`answer without content-length: ${head.slice(0, 200)}`);
      const bodyEnd = headEnd + 4 + Number(length[1]);
      if (data.length < bodyEnd) {
        this.buffered = data;
        return;
      }
      this.buffered = null;
      clearTimeout(this.timeout);
      const i = this.current;
      this.current = -1;
      const status = Number(head.slice(9, 12));
      done[i] = performance.now();
      statuses[i] = status;
      statusCounts.set(status, (statusCounts.get(status) ?? 0) + 1);
      if (status === 200) {
        const failed = countOf(data, FAILED, headEnd + 4, bodyEnd);
        if (failed > 0) {
          failedOrders += failed;
          firstError ??= data.toString('utf8', headEnd + 4, Math.min(bodyEnd, headEnd + 304));
        }
      } else {
        non2xx++;
        firstError ??= `${status} ${data.toString('utf8', headEnd + 4, Math.min(bodyEnd, headEnd + 304))}`;
      }
      finish(i);
      release(this);
    }
    private fail(reason: string) {
      clearTimeout(this.timeout);
      // A request waiting for this connection to come up fails with it.
      const i = this.connected ? this.current : this.first;
      this.current = -1;
      this.connected = true;
      this.socket.destroy();
      if (!this.closed) {
        this.closed = true;
        live--;
        this.onError?.(reason);
        // Keep a request that was waiting for a connection from waiting forever.
        const w = waiting.shift();
        if (w !== undefined) new Connection(w);
      }
      const at = idle.indexOf(this);
      if (at >= 0) idle.splice(at, 1);
      if (i >= 0) {
        errors++;
        firstError ??= reason;
        finish(i);
      }
    }
  }

  const release = (c: Connection) => {
    const w = waiting.shift();
    if (w !== undefined) c.send(w, options.take());
    else idle.push(c);
  };
  const finish = (i: number) => {
    inFlight--;
    if (trace && !Number.isNaN(done[i]!)) trace.done(scheduled[i]!, done[i]!);
    if (++finished === total) resolveAll();
  };
  const send = (i: number) => {
    scheduled[i] = t0 + i * interval;
    inFlight++;
    if (inFlight > maxInFlight) maxInFlight = inFlight;
    const c = idle.pop();
    if (c) c.send(i, options.take());
    else if (live < maxConnections) new Connection(i);
    else {
      waitedForConnection++;
      waiting.push(i);
    }
  };

  // Open the warm pool before the clock starts.
  await Promise.all(
    Array.from(
      { length: warm },
      () =>
        new Promise<void>((resolve, reject) => {
          new Connection(-1, resolve, (reason) => reject(new Error(`could not open the pool: ${reason}`)));
        }),
    ),
  );
  const cpu0 = process.cpuUsage();
  t0 = performance.now() + 5; // the first send, a little ahead so that the loop below starts on time
  trace = TRACE ? startTrace(options.url, t0) : null;

  // Send every request whose time has come, then sleep until the next one is due.
  const tick = () => {
    const now = performance.now();
    const due = Math.min(total, Math.floor((now - t0) / interval) + 1);
    while (next < due) send(next++);
    if (next < total) timer = setTimeout(tick, Math.max(0, t0 + next * interval - performance.now()));
  };
  timer = setTimeout(tick, Math.max(0, t0 - performance.now()));
  await allDone;
  clearTimeout(timer);
  const cpu = process.cpuUsage(cpu0);
  const wallSeconds = (performance.now() - t0) / 1000;
  trace?.stop(`open loop ${options.rate}/s`);
  const connections = opened;
  for (const c of idle) c.socket.destroy();

  const ok: number[] = [];
  const fromSend: number[] = [];
  const delays: number[] = [];
  let late = 0;
  for (let i = 0; i < total; i++) {
    const d = sent[i]! - scheduled[i]!;
    if (!Number.isNaN(d)) {
      delays.push(d);
      if (d > LATE_MS) late++;
    }
    if (statuses[i]! >= 200 && statuses[i]! < 300) {
      ok.push(done[i]! - scheduled[i]!);
      fromSend.push(done[i]! - sent[i]!);
    }
  }
  // Only the 2xx answers count as latencies, as with autocannon.
  const completed = [...statusCounts].reduce((s, [st, n]) => s + (st >= 200 && st < 300 ? n : 0), 0);
  return {
    completed,
    statusCounts,
    errors,
    non2xx,
    failedOrders,
    firstError,
    latencies: Float64Array.from(ok).sort(),
    stats: {
      latenciesFromSend: Float64Array.from(fromSend).sort(),
      sendDelays: Float64Array.from(delays).sort(),
      late,
      waitedForConnection,
      connections,
      maxInFlight,
      generatorCpuMicrosPerRequest: (cpu.user + cpu.system) / total,
      wallSeconds,
    },
  };
}
