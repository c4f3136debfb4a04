/**
 * HTTP under load and abuse: `npm run bench:abuse` (node --import tsx bench/abuse.ts).
 *
 * Starts the real exchange as a child process on a random loopback port (defaults as `npm start`, DEMO=0,
 * a fresh data dir), sets up one market and traders through the HTTP API, then runs, each bounded in count
 * and time:
 * - nested: 16 connections send 1 MB bodies of nested arrays to `POST /orders-v3` (with a valid key) for
 *   ABUSE_SECONDS, while another trader (another process) places one order at a time; its latency, the
 *   attack's statuses and the server's CPU;
 * - burst: ABUSE_BURST (default 8,000) ten-order requests at once, spread over the traders, each on its own
 *   connection, while another process probes /health every 100 ms: statuses, latency, the slowest /health;
 * - idle: ABUSE_IDLE (default 21,000) idle sockets opened by two helper processes, then /health.
 * ABUSE_PHASES picks some (default nested,burst,idle). Extra server settings pass through the environment
 * (e.g. MAX_CONNECTIONS_PER_ADDRESS=20000 to let one address send the whole burst); ABUSE_PROFILE=<dir>
 * writes the server's CPU profile there.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OrderDomain } from '@oddsbook/protocol';
import { call } from './lib/exchange-call.js';
import { type BenchTrader, createOrderSigner, newTrader } from './lib/order-fixtures.js';

const ADMIN = 'bench-abuse-admin-token-0123456789';
const SECONDS = Number(process.env.ABUSE_SECONDS ?? 8);
const BURST = Number(process.env.ABUSE_BURST ?? 8_000);
const IDLE = Number(process.env.ABUSE_IDLE ?? 21_000);
const PHASES = new Set((process.env.ABUSE_PHASES ?? 'nested,burst,idle').split(','));
const TRADERS = 16;
const root = fileURLToPath(new URL('..', import.meta.url));
/** /health probes come from another loopback address: another client than the attack's 127.0.0.1. */
const OTHER_CLIENT = '127.0.0.2';

type Result = { status: number; ms: number };

function request(
  port: number,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
  timeoutMs = 60_000,
  localAddress?: string,
): Promise<Result> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        ...(localAddress ? { localAddress } : {}),
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end(body);
  });
}

const pct = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : Number.NaN;
};
const counts = (results: Result[]) => {
  const byStatus = new Map<number, number>();
  for (const r of results) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
  return [...byStatus].map(([s, n]) => `${s === 0 ? 'reset/error' : s}: ${n}`).join(', ');
};
const ms = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`;

async function startServer(port: number, dataDir: string): Promise<ChildProcess> {
  const profile = process.env.ABUSE_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.ABUSE_PROFILE}`]
    : [];
  const args = [...profile, '--import', 'tsx', 'packages/server/src/cli.ts', 'serve'];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      DEMO: '0',
      LOG_LEVEL: 'warn',
      ADMIN_TOKEN: ADMIN,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if ((await request(port, 'GET', '/health', undefined, {}, 2_000)).status === 200) return child;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not start');
}

async function setUp(port: number, traders: BenchTrader[]) {
  const base = `http://127.0.0.1:${port}`;
  const admin = { 'x-admin-token': ADMIN };
  const { leagueId } = await call(base, 'POST', '/admin/leagues', { sportId: 5, label: 'Abuse' }, admin);
  const { eventId } = await call(
    base,
    'POST',
    '/admin/fixtures',
    { leagueId, teamOneName: 'A', teamTwoName: 'B', gameTime: Math.floor(Date.now() / 1000) + 86_400 },
    admin,
  );
  const market = await call(
    base,
    'POST',
    '/admin/markets',
    { eventId, type: 52, outcomeOneName: 'A', outcomeTwoName: 'B' },
    admin,
  );
  const metadata = await call(base, 'GET', '/metadata/obv3');
  for (const t of traders) {
    t.apiKey = (await call(base, 'POST', '/admin/api-keys', { address: t.address }, admin)).apiKey as string;
    await call(base, 'POST', '/user/deploy-proxy', undefined, {
      'x-svc-api-key': t.apiKey,
    });
  }
  for (const t of traders) {
    while (!(await call(base, 'GET', '/user/proxy', undefined, { 'x-svc-api-key': t.apiKey })).deployed) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await call(
      `http://127.0.0.1:${port}`,
      'POST',
      '/admin/faucet',
      { address: t.address, amount: (10n ** 15n).toString() },
      admin,
    );
  }
  return createOrderSigner({
    domain: metadata.domain as OrderDomain,
    marketHashes: [market.marketHash as string],
    baseToken: (metadata.activeAsset as { baseToken: string }).baseToken,
    expiry: Math.floor(Date.now() / 1000) + 3_600,
  });
}

/** CPU seconds the process has used (/proc/<pid>/stat utime + stime). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function nested(
  port: number,
  traders: BenchTrader[],
  signer: ReturnType<typeof createOrderSigner>,
  serverPid: number,
) {
  const cpuBefore = cpuSeconds(serverPid);
  const depth = 512 * 1024 - 1;
  const body = Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`);
  const [victim, attacker] = [traders[0]!, traders[1]!];
  const attack: Result[] = [];
  const until = Date.now() + SECONDS * 1000;
  const attackers = Array.from({ length: Number(process.env.ABUSE_NESTED_CLIENTS ?? 16) }, async () => {
    while (Date.now() < until) {
      attack.push(
        await request(port, 'POST', '/orders-v3', body, { 'x-svc-api-key': attacker.apiKey }, 30_000),
      );
    }
  });
  // The victim, in another process (this one is busy sending the attack): one order at a time.
  const victimProcess = fork(fileURLToPath(import.meta.url), ['victim-child', String(port), victim.apiKey], {
    execArgv: ['--import', 'tsx'],
  });
  victimProcess.send(signer.requests([victim], Math.ceil(SECONDS * 50), 1).map((r) => r.body));
  const orders = await new Promise<Result[]>((resolve) =>
    victimProcess.once('message', (m) => resolve(m as Result[])),
  );
  await Promise.all(attackers);
  const serverCpu = (cpuSeconds(serverPid) - cpuBefore) / SECONDS;
  const ok = orders.filter((r) => r.status === 200).map((r) => r.ms);
  console.log(
    `nested: 16 x 1 MB nested-array bodies for ${SECONDS} s: attack ${attack.length} requests (${counts(attack)}), ` +
      `attack p50 ${ms(
        pct(
          attack.map((r) => r.ms),
          0.5,
        ),
      )}; victim ${orders.length} orders (${counts(orders)}), ` +
      `latency p50 ${ms(pct(ok, 0.5))}, p99 ${ms(pct(ok, 0.99))}, max ${ms(Math.max(...ok))}; ` +
      `server CPU ${(serverCpu * 100).toFixed(0)} % of a core`,
  );
}

/** The server's own view of `POST /orders-v3` (its latency histogram) and its event-loop lag, from /metrics. */
async function serverView(port: number): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const bucket = (le: string) => {
    const line = text
      .split('\n')
      .find(
        (l) =>
          l.startsWith('oddsbook_http_request_duration_seconds_bucket{') &&
          l.includes('method="POST"') &&
          l.includes('route="/orders-v3"') &&
          l.includes(`le="${le}"`),
      );
    return Number(line?.split(' ').pop() ?? Number.NaN);
  };
  const gauge = (name: string) => Number(text.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1] ?? Number.NaN);
  const total = bucket('+Inf');
  const share = (le: string) => `${((100 * bucket(le)) / total).toFixed(0)} % within ${Number(le) * 1000} ms`;
  return (
    `POST /orders-v3 ${share('0.01')}, ${share('0.1')}, ${share('1')}; event-loop lag p99 ` +
    `${(gauge('oddsbook_nodejs_eventloop_lag_p99_seconds') * 1000).toFixed(0)} ms, max ` +
    `${(gauge('oddsbook_nodejs_eventloop_lag_max_seconds') * 1000).toFixed(0)} ms`
  );
}

async function burst(port: number, traders: BenchTrader[], signer: ReturnType<typeof createOrderSigner>) {
  const bodies = signer.requests(traders.slice(2), BURST, 10);
  // /health is probed from another process: this one's event loop is busy with the burst.
  const prober = fork(fileURLToPath(import.meta.url), ['probe-child', String(port)], {
    execArgv: ['--import', 'tsx'],
  });
  const probed = new Promise<Result[]>((resolve) => prober.once('message', (m) => resolve(m as Result[])));
  const started = performance.now();
  const results = await Promise.all(
    bodies.map((b) => request(port, 'POST', '/orders-v3', b.body, { 'x-svc-api-key': b.apiKey }, 60_000)),
  );
  const seconds = (performance.now() - started) / 1000;
  prober.send('stop');
  const health = await probed;
  const server = await serverView(port);
  const all = results.map((r) => r.ms);
  const shed = results.filter((r) => r.status === 503).map((r) => r.ms);
  console.log(
    `burst: ${BURST} ten-order requests at once, over in ${seconds.toFixed(1)} s: ${counts(results)}; ` +
      `latency p50 ${ms(pct(all, 0.5))}, p99 ${ms(pct(all, 0.99))}` +
      (shed.length ? `, 503 p50 ${ms(pct(shed, 0.5))}` : '') +
      `; server side: ${server}` +
      `; /health ${health.length} probes (${counts(health)}), max ${ms(Math.max(...health.map((r) => r.ms)))}`,
  );
}

async function idle(port: number) {
  const helpers = [0, 1].map(() =>
    fork(fileURLToPath(import.meta.url), ['idle-child', String(port), String(Math.ceil(IDLE / 2))], {
      execArgv: ['--import', 'tsx'],
    }),
  );
  const reports = await Promise.all(
    helpers.map(
      (h) =>
        new Promise<{ opened: number; refused: number; open: number }>((resolve) =>
          h.once('message', (m) => resolve(m as { opened: number; refused: number; open: number })),
        ),
    ),
  );
  const health = await request(port, 'GET', '/health', undefined, {}, 10_000, OTHER_CLIENT);
  for (const h of helpers) h.send('stop');
  const sum = (k: 'opened' | 'refused' | 'open') => reports.reduce((n, r) => n + r[k], 0);
  console.log(
    `idle: ${IDLE} sockets: ${sum('opened')} connected, ${sum('refused')} refused, ${sum('open')} still open after 1 s; ` +
      `/health then: ${health.status === 0 ? 'no answer' : health.status} in ${ms(health.ms)}`,
  );
  await Promise.all(helpers.map((h) => new Promise((r) => h.once('exit', r))));
}

async function main() {
  const port = 10_000 + Math.floor(Math.random() * 20_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-abuse-'));
  const server = await startServer(port, dataDir);
  try {
    const traders = Array.from({ length: TRADERS }, (_, i) => newTrader(i));
    const signer = await setUp(port, traders);
    if (PHASES.has('nested')) await nested(port, traders, signer, server.pid!);
    if (PHASES.has('burst')) await burst(port, traders, signer);
    if (PHASES.has('idle')) await idle(port);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// The victim: `abuse.ts victim-child <port> <apiKey>` posts the bodies it is sent one at a time, 20 ms
// apart, for ABUSE_SECONDS, and sends back the results.
async function victimChild() {
  const [port, apiKey] = [Number(process.argv[3]), process.argv[4]!];
  const bodies = await new Promise<string[]>((resolve) =>
    process.once('message', (m) => resolve(m as string[])),
  );
  const results: Result[] = [];
  const until = Date.now() + SECONDS * 1000;
  for (const body of bodies) {
    if (Date.now() >= until) break;
    results.push(await request(port, 'POST', '/orders-v3', body, { 'x-svc-api-key': apiKey }));
    await new Promise((r) => setTimeout(r, 20));
  }
  process.send?.(results, () => process.exit(0));
}

// The /health prober: `abuse.ts probe-child <port>` probes every 100 ms until told to stop.
async function probeChild() {
  const port = Number(process.argv[3]);
  const results: Result[] = [];
  let stop = false;
  process.once('message', () => {
    stop = true;
  });
  const deadline = Date.now() + 300_000;
  while (!stop && Date.now() < deadline) {
    results.push(await request(port, 'GET', '/health', undefined, {}, 60_000, OTHER_CLIENT));
    await new Promise((r) => setTimeout(r, 100));
  }
  process.send?.(results, () => process.exit(0));
}

// The idle-socket helper: `abuse.ts idle-child <port> <count>` holds that many sockets open.
async function idleChild() {
  const [port, count] = [Number(process.argv[3]), Number(process.argv[4])];
  const sockets: net.Socket[] = [];
  let opened = 0;
  let refused = 0;
  const deadline = Date.now() + 45_000;
  const openOne = () =>
    new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        opened++;
        resolve();
      });
      socket.once('error', () => {
        refused++;
        resolve();
      });
      socket.on('close', () => socket.destroy());
      sockets.push(socket);
    });
  for (let i = 0; i < count && Date.now() < deadline; i += 500) {
    await Promise.all(Array.from({ length: Math.min(500, count - i) }, openOne));
  }
  // Still open after a moment: the server did not close them at once.
  await new Promise((r) => setTimeout(r, 1_000));
  const open = sockets.filter((s) => !s.destroyed).length;
  process.send?.({ opened, refused, open });
  process.on('message', () => process.exit(0));
  setTimeout(() => process.exit(0), 60_000).unref();
}

if (process.argv[2] === 'idle-child') await idleChild();
else if (process.argv[2] === 'probe-child') await probeChild();
else if (process.argv[2] === 'victim-child') await victimChild();
else await main();
