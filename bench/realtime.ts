/**
 * Realtime fan-out benchmark: node --import tsx bench/realtime.ts
 *
 * N connections (1k, 5k) subscribed to one order-book channel. The hub (Centrifugo protocol: connect,
 * positioned+recoverable subscribe, history, per-turn coalescing) is compared in the same run with a bare
 * `ws` broadcast of the same frames (the same push lines, encoded once per round, one send per client).
 * Server in this process, clients in child processes (plain TCP sockets that count push lines), loopback.
 * Phases alternate between hub and bare ws and run three times; the best run of each is reported, and
 * messages per server CPU-second are printed as well, since the machine may be shared.
 *
 * - saturate: rounds of K publications, as fast as the clients take them (at most WINDOW rounds in flight);
 *   delivered messages/s, server CPU, latency under that load.
 * - paced: 10 rounds/s of 5 publications; delivery latency p50/p99 at a moderate load.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type * as Ws from 'ws';
import { createRealtimeHub, type RealtimeHub } from '../packages/server/src/realtime/hub.js';
import { createRealtimeToken, createRealtimeTokenVerifier } from '../packages/server/src/realtime/token.js';

// `ws` is a dependency of the server package, not of the repository root.
const { WebSocketServer } = createRequire(new URL('../packages/server/package.json', import.meta.url))(
  'ws',
) as typeof Ws;

const SECRET = 'bench-secret-bench-secret-bench!';
const USER = '0x52908400098527886E0F7030069857D2E4169EE7';
const CHANNEL = `order_book:market_0x${'ab'.repeat(32)}`;
const SIZES = [1000, 5000];
const SATURATE_MS = 2500;
const PACED_MS = 2000;
const WARMUP_MS = 700;
const REPEATS = 3;
const WINDOW_ROUNDS = 8;
const SAMPLE_EVERY = 50;

const nowMs = () => performance.timeOrigin + performance.now();

type ToChild =
  | { type: 'open'; url: string; n: number; handshake: string | null }
  | { type: 'reset' }
  | { type: 'collect' }
  | { type: 'close' };
type FromChild =
  | { type: 'ready' }
  | { type: 'progress'; received: number }
  | { type: 'stats'; received: number; latencies: number[] }
  | { type: 'closed' };

// ---------------------------------------------------------------- client process

/** A masked client text frame (RFC 6455 5.3): enough for the one handshake message a bench client sends. */
function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const header =
    payload.length < 126
      ? Buffer.from([0x81, 0x80 | payload.length])
      : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
  return Buffer.concat([header, mask, payload]);
}

const PUSH = Buffer.from('{"push"');

/**
 * The clients are plain TCP sockets that do the WebSocket upgrade by hand and then only count push lines
 * in the bytes they read (no frame parsing), so that one client process can keep up with one server
 * process and the server is what gets measured. Every 50th client also reads the send time in each push.
 */
function runClients(): void {
  let sockets: Socket[] = [];
  let received = 0;
  let latencies: number[] = [];
  let progress: NodeJS.Timeout | undefined;
  const send = (message: FromChild) => process.send!(message);

  const sampleLatencies = (text: string) => {
    const now = nowMs();
    let at = text.indexOf('"t":');
    while (at !== -1) {
      const end = text.indexOf(',', at);
      if (end === -1) break;
      latencies.push(now - Number(text.slice(at + 4, end)));
      at = text.indexOf('"t":', end);
    }
  };

  const open = (url: URL, index: number, handshake: string | null) =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      socket.setNoDelay(true);
      const sampled = index % SAMPLE_EVERY === 0;
      let upgraded = false;
      let ready = false;
      // The end of the previous chunk, so that a marker split across two reads is counted once.
      let carry: Buffer = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        if (!upgraded) {
          const end = chunk.indexOf('\r\n\r\n');
          if (end === -1) return;
          upgraded = true;
          chunk = chunk.subarray(end + 4);
          if (handshake !== null) socket.write(clientFrame(handshake));
          else {
            ready = true;
            resolve(socket);
          }
        }
        if (!ready) {
          // The replies to connect (id 1) and subscribe (id 2).
          if (chunk.includes('"id":2')) {
            ready = true;
            resolve(socket);
          }
          return;
        }
        const data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
        for (let i = data.indexOf(PUSH); i !== -1; i = data.indexOf(PUSH, i + PUSH.length)) received++;
        carry = data.subarray(Math.max(0, data.length - PUSH.length + 1));
        if (sampled) sampleLatencies(chunk.toString('latin1'));
      });
      socket.on('connect', () => {
        const key = randomBytes(16).toString('base64');
        socket.write(
          `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        );
      });
      socket.on('error', reject);
    });

  process.on('message', async (message: ToChild) => {
    if (message.type === 'open') {
      sockets = [];
      const url = new URL(message.url);
      for (let i = 0; i < message.n; i += 250) {
        const batch = Array.from({ length: Math.min(250, message.n - i) }, (_, j) =>
          open(url, i + j, message.handshake),
        );
        sockets.push(...(await Promise.all(batch)));
      }
      send({ type: 'ready' });
    } else if (message.type === 'reset') {
      received = 0;
      latencies = [];
      clearInterval(progress);
      progress = setInterval(() => send({ type: 'progress', received }), 10);
    } else if (message.type === 'collect') {
      clearInterval(progress);
      send({ type: 'stats', received, latencies });
    } else if (message.type === 'close') {
      for (const socket of sockets) socket.destroy();
      sockets = [];
      send({ type: 'closed' });
    }
  });
}

// ---------------------------------------------------------------- server process

type Target = {
  name: string;
  url: string;
  handshake: string | null;
  /** Publishes one round of k publications to every client; returns nothing, delivery is observed by the clients. */
  publishRound(k: number): void;
  close(): Promise<void>;
};

let seq = 0;
const levels = [
  ['50125000000000000000', '1250000000'],
  ['49875000000000000000', '800000000'],
  ['49750000000000000000', '3000000000'],
];
const bookUpdate = () => ({ t: nowMs(), marketHash: CHANNEL.slice(18), version: ++seq, outcomeOne: levels });

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/connection/websocket`;
}

async function hubTarget(): Promise<Target> {
  const server = createServer();
  const hub: RealtimeHub = createRealtimeHub({
    verifyToken: createRealtimeTokenVerifier(SECRET),
    pingIntervalMs: 0,
  });
  hub.attach(server);
  const url = await listen(server);
  const token = createRealtimeToken({ secret: SECRET, sub: USER, ttlSeconds: 3600 });
  const handshake = [
    { id: 1, connect: { token, name: 'bench' } },
    { id: 2, subscribe: { channel: CHANNEL, positioned: true, recoverable: true, flag: 1 } },
  ]
    .map((c) => JSON.stringify(c))
    .join('\n');
  return {
    name: 'hub',
    url,
    handshake,
    publishRound(k) {
      hub.publishMany(Array.from({ length: k }, () => ({ channel: CHANNEL, data: bookUpdate() })));
    },
    async close() {
      hub.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The same push lines the hub writes, encoded once per round and sent to every client: the floor of any fan-out on `ws`. */
async function bareTarget(): Promise<Target> {
  const server = createServer();
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  const clients = new Set<Ws.WebSocket>();
  wss.on('connection', (ws) => {
    clients.add(ws);
    ws.on('close', () => clients.delete(ws));
  });
  const url = await listen(server);
  const prefix = `{"push":{"channel":${JSON.stringify(CHANNEL)},"pub":`;
  let offset = 0;
  const options = { binary: false };
  return {
    name: 'bare ws',
    url,
    handshake: null,
    publishRound(k) {
      const lines: string[] = [];
      for (let i = 0; i < k; i++) {
        // Byte for byte what the hub writes: a random messageId in the data and in the tags.
        const messageId = randomUUID();
        const data = JSON.stringify({ messageId, ...bookUpdate() });
        lines.push(`${prefix}{"data":${data},"offset":${++offset},"tags":{"messageId":"${messageId}"}}}}`);
      }
      const frame = Buffer.from(lines.join('\n'));
      for (const ws of clients) ws.send(frame, options);
    },
    async close() {
      for (const ws of clients) ws.terminate();
      wss.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

class ClientProcess {
  private readonly child: ChildProcess;
  private waiters: ((message: FromChild) => boolean)[] = [];
  received = 0;

  constructor() {
    this.child = fork(fileURLToPath(import.meta.url), ['clients'], { stdio: 'inherit' });
    this.child.on('message', (message: FromChild) => {
      if (message.type === 'progress') this.received = message.received;
      this.waiters = this.waiters.filter((waiter) => !waiter(message));
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  request<T extends FromChild['type']>(message: ToChild, reply: T): Promise<Extract<FromChild, { type: T }>> {
    return new Promise((resolve) => {
      this.waiters.push((m) => {
        if (m.type !== reply) return false;
        resolve(m as Extract<FromChild, { type: T }>);
        return true;
      });
      this.child.send(message);
    });
  }

  reset(): void {
    this.received = 0;
    this.child.send({ type: 'reset' } satisfies ToChild);
  }

  kill(): void {
    this.child.kill();
  }
}

type Result = { delivered: number; seconds: number; cpu: number; p50: number; p99: number };

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Publishes rounds of k as fast as the clients take them, at most WINDOW_ROUNDS in flight. */
async function saturate(
  target: Target,
  clients: ClientProcess,
  n: number,
  k: number,
  ms: number,
): Promise<Result> {
  clients.reset();
  let rounds = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    if ((rounds - WINDOW_ROUNDS) * k * n < clients.received) {
      target.publishRound(k);
      rounds++;
    }
    await tick();
  }
  return finish(clients, cpu0, t0);
}

/** 10 rounds/s of k publications. */
async function paced(target: Target, clients: ClientProcess, k: number, ms: number): Promise<Result> {
  clients.reset();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let round = 0; performance.now() - t0 < ms; round++) {
    target.publishRound(k);
    await sleep(Math.max(0, t0 + (round + 1) * 100 - performance.now()));
  }
  await sleep(200);
  return finish(clients, cpu0, t0);
}

async function finish(clients: ClientProcess, cpu0: NodeJS.CpuUsage, t0: number): Promise<Result> {
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const stats = await clients.request({ type: 'collect' }, 'stats');
  const sorted = stats.latencies.sort((a, b) => a - b);
  return {
    delivered: stats.received / seconds,
    seconds,
    cpu: (cpu.user + cpu.system) / 1e6 / seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
  };
}

const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
const ms1 = (x: number) => x.toFixed(1);
const pct = (x: number) => `${Math.round(x * 100)}%`;

type Load = { label: string; run(target: Target, clients: ClientProcess, n: number): Promise<Result> };
const LOADS: Load[] = [
  { label: 'saturate, 1 pub/turn', run: (t, c, n) => saturate(t, c, n, 1, SATURATE_MS) },
  { label: 'saturate, 10 pubs/turn', run: (t, c, n) => saturate(t, c, n, 10, SATURATE_MS) },
  { label: 'paced, 10 Hz x 5 pubs', run: (t, c) => paced(t, c, 5, PACED_MS) },
];

/** The better of the repeats: the machine is shared, so the slower one is the one that was disturbed more. */
const best = (results: Result[]) => results.reduce((a, b) => (b.delivered > a.delivered ? b : a));

async function runServer(): Promise<void> {
  const started = performance.now();
  const load0 = loadavg()[0]!;
  const clientSets = [new ClientProcess(), new ClientProcess()];
  const rows: string[] = [];
  const ratios: string[] = [];
  for (const n of SIZES) {
    const hub = await hubTarget();
    const bare = await bareTarget();
    const targets = [hub, bare];
    // Each target has its own client process holding its N sockets; phases alternate between the two
    // targets and repeat, so that both see the same conditions on a shared machine.
    for (const [i, target] of targets.entries()) {
      await clientSets[i]!.request(
        { type: 'open', url: target.url, n, handshake: target.handshake },
        'ready',
      );
      await saturate(target, clientSets[i]!, n, 10, WARMUP_MS);
    }
    const results = targets.map(() => LOADS.map(() => [] as Result[]));
    for (let rep = 0; rep < REPEATS; rep++) {
      for (const [l, load] of LOADS.entries()) {
        for (const [i, target] of targets.entries())
          results[i]![l]!.push(await load.run(target, clientSets[i]!, n));
      }
    }
    for (const [i, target] of targets.entries()) {
      for (const [l, load] of LOADS.entries()) {
        const r = best(results[i]![l]!);
        rows.push(
          `| ${fmt(n)} | ${target.name} | ${load.label} | ${fmt(r.delivered)} | ${pct(r.cpu)} | ${fmt(r.delivered / r.cpu)} | ${ms1(r.p50)} / ${ms1(r.p99)} ms |`,
        );
      }
    }
    for (const [l, load] of LOADS.entries()) {
      const h = best(results[0]![l]!);
      const b = best(results[1]![l]!);
      ratios.push(
        `| ${fmt(n)} | ${load.label} | ${pct(h.delivered / b.delivered)} | ${pct(h.delivered / h.cpu / (b.delivered / b.cpu))} |`,
      );
    }
    for (const [i, target] of targets.entries()) {
      await clientSets[i]!.request({ type: 'close' }, 'closed');
      await target.close();
    }
  }
  for (const clients of clientSets) clients.kill();
  const sample = JSON.stringify({ messageId: randomUUID(), ...bookUpdate() });
  console.log(
    `\nRealtime fan-out to N clients of one book channel (push line ~${sample.length + 110} bytes)`,
  );
  console.log(
    `Load average ${load0.toFixed(1)} at start, ${loadavg()[0]!.toFixed(1)} at end, ${cpus().length} CPUs`,
  );
  console.log(
    '\n| Clients | Server | Load | Delivered msg/s | Server CPU | msg per CPU-second | Latency p50 / p99 |',
  );
  console.log('|---:|---|---|---:|---:|---:|---|');
  for (const row of rows) console.log(row);
  console.log('\n| Clients | Load | Hub / bare ws, msg/s | Hub / bare ws, msg per CPU-second |');
  console.log('|---:|---|---:|---:|');
  for (const row of ratios) console.log(row);
  console.log(`\nTotal ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

if (process.argv[2] === 'clients') runClients();
else await runServer();
