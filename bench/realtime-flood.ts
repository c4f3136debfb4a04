/**
 * Realtime memory under a flood of book changes: `npm run bench:flood` (node --import tsx bench/realtime-flood.ts).
 *
 * The outside test of issue 32, against a real exchange process (defaults as `npm start`, rate limits ON,
 * DEMO=0, a fresh data dir): one account (an API key, a deployed proxy, FLOOD_FUNDS base units from the faucet,
 * 1,000 USDC by default), FLOOD_MARKETS markets (8) whose minimum bet is FLOOD_MIN_BET (0.01 USDC), and:
 * 1. followers: FLOOD_FOLLOWERS raw WebSocket connections of that account (1; the soak mode 10), each subscribed
 *    (positioned, recoverable) to every market's `order_book:market_` channel and its `order_book:event_` channel
 *    (the soak's also to the account's `account:orders_v3_#` and `active_orders:` channels).
 *    They read everything (counting bytes, answering pings) and reconnect 1 s after a close;
 * 2. the ladder: one order of the minimum size resting on every tick of both sides of every market (1,598 a
 *    market: the account's own orders never match each other), sent 10 to a request;
 * 3. the flood: 10-order requests at FLOOD_RATE a minute (5,400, inside the 5,500 order-write limit) for
 *    FLOOD_SECONDS (180; soak 600), each order the minimum at a random tick, side and market; every 11th
 *    request cancels the 100 oldest flood orders instead, so the resting orders (and the funds they hold)
 *    stay about level.
 * Every FLOOD_SAMPLE_SECONDS (10) it prints the server's RSS (/proc/<pid>/status), its heap used and the
 * realtime history figures from /metrics (publications and bytes kept, evicted), the answers so far, and what
 * the followers got; if the server dies, the end of its output. At the end: RSS at the start, highest and
 * last, alive or not.
 *
 * FLOOD_MODE=soak: 10 followers, of the account's order channels too, and 600 s by default (deep books with
 * followers: memory bounded by the settings). FLOOD_SERVER_ROOT=<dir>: run the server of another checkout (from sources through its tsx), e.g.
 * the code before a change. Server settings pass through the environment (REALTIME_HISTORY_BYTES=...,
 * BENCH_NODE_FLAGS for its Node flags, e.g. --max-old-space-size=2048).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountOrdersChannel, activeOrdersChannel, ladderSize, type OrderDomain } from '@oddsbook/protocol';
import { getAddress } from 'viem';
import { WebSocket } from 'ws';
import { call } from './lib/exchange-call.js';
import { type Child, exchangeArgs, randomPort, startChild, stopChild } from './lib/exchange-process.js';
import { type BenchTrader, createOrderSigner, newTrader } from './lib/order-fixtures.js';
import { prng } from './lib/workload.js';

const SOAK = process.env.FLOOD_MODE === 'soak';
const MARKETS = Number(process.env.FLOOD_MARKETS ?? 8);
const SECONDS = Number(process.env.FLOOD_SECONDS ?? (SOAK ? 600 : 180));
const RATE = Number(process.env.FLOOD_RATE ?? 5_400); // requests a minute
const SAMPLE_SECONDS = Number(process.env.FLOOD_SAMPLE_SECONDS ?? 10);
const FOLLOWERS = Number(process.env.FLOOD_FOLLOWERS ?? (SOAK ? 10 : 1));
const MIN_BET = BigInt(process.env.FLOOD_MIN_BET ?? 10_000); // 0.01 USDC
const FUNDS = BigInt(process.env.FLOOD_FUNDS ?? 1_000_000_000); // 1,000 USDC
const SERVER_ROOT = process.env.FLOOD_SERVER_ROOT;
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const ADMIN = 'bench-flood-admin-token-0123456789';
const PER_REQUEST = 10;
const CANCEL_EVERY = 11;
const MAX_IN_FLIGHT = 64;

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1));

const log = (line: string) => console.log(line);
const mb = (bytes: number) => (Number.isFinite(bytes) ? (bytes / 2 ** 20).toFixed(0) : '-');
const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server's figures from /metrics (NaN for one it does not have, or when it does not answer in 5 s). */
async function serverMetrics(base: string) {
  let body = '';
  try {
    body = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  } catch {
    // busy or gone
  }
  const metric = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(body)?.[1] ?? Number.NaN);
  return {
    heap: metric('oddsbook_nodejs_heap_size_used_bytes'),
    kept: metric('oddsbook_realtime_history_publications'),
    keptBytes: metric('oddsbook_realtime_history_bytes'),
    evicted: metric('oddsbook_realtime_history_evicted_total'),
    publications: metric('oddsbook_realtime_publications_total'),
  };
}

/** Whether a frame holds a server ping: an empty object on a line of its own (JSON lines hold no raw newline). */
function isPing(frame: Buffer): boolean {
  if (frame.length === 2) return frame.toString() === '{}';
  return (
    frame.includes('\n{}\n') ||
    frame.subarray(0, 3).toString() === '{}\n' ||
    frame.subarray(frame.length - 3).toString() === '\n{}'
  );
}

/** A follower speaking the client protocol by hand: it reads every frame, counts it, answers pings. */
class Follower {
  bytes = 0;
  frames = 0;
  closes: number[] = [];
  #ws: WebSocket | undefined;
  #stopped = false;

  constructor(
    private readonly url: string,
    private readonly token: () => Promise<string>,
    private readonly channels: readonly string[],
  ) {}

  async start(): Promise<void> {
    const token = await this.token();
    const ws = new WebSocket(this.url);
    this.#ws = ws;
    ws.on('message', (data: Buffer) => {
      this.bytes += data.length;
      this.frames++;
      if (isPing(data)) ws.send('{}');
    });
    ws.on('close', (code) => {
      this.closes.push(code);
      if (!this.#stopped) setTimeout(() => void this.start().catch(() => {}), 1_000);
    });
    ws.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const commands = [
      { id: 1, connect: { token, name: 'bench-flood' } },
      ...this.channels.map((channel, i) => ({
        id: 2 + i,
        subscribe: { channel, positioned: true, recoverable: true },
      })),
    ];
    ws.send(commands.map((c) => JSON.stringify(c)).join('\n'));
  }

  get open(): boolean {
    return this.#ws?.readyState === WebSocket.OPEN;
  }

  stop(): void {
    this.#stopped = true;
    this.#ws?.close();
  }
}

/** Answers by status, 'error' for a connection error or time-out. */
class Answers {
  readonly byStatus = new Map<string, number>();
  inFlight = 0;
  skipped = 0;
  count(status: string): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }
  text(): string {
    return [...this.byStatus].map(([s, n]) => `${s}:${n}`).join(' ') || '-';
  }
}

async function send(
  base: string,
  apiKey: string,
  method: 'POST' | 'DELETE',
  body: unknown,
  answers: Answers,
) {
  answers.inFlight++;
  try {
    const res = await fetch(`${base}/orders-v3`, {
      method,
      headers: { 'content-type': 'application/json', 'x-svc-api-key': apiKey },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const json = (await res.json()) as { data?: { orders?: { status?: string }[] } };
    answers.count(String(res.status));
    return json;
  } catch {
    answers.count('error');
    return undefined;
  } finally {
    answers.inFlight--;
  }
}

async function setUp(base: string, trader: BenchTrader) {
  const admin = { 'x-admin-token': ADMIN };
  const { leagueId } = await call(base, 'POST', '/admin/leagues', { sportId: 5, label: 'Flood' }, admin);
  const markets: { marketHash: string; eventId: string }[] = [];
  for (let m = 0; m < MARKETS; m++) {
    const { eventId } = await call(
      base,
      'POST',
      '/admin/fixtures',
      {
        leagueId,
        teamOneName: `Alpha ${m}`,
        teamTwoName: `Beta ${m}`,
        gameTime: Math.floor(Date.now() / 1000) + 86_400,
      },
      admin,
    );
    const market = await call(
      base,
      'POST',
      '/admin/markets',
      {
        eventId,
        type: 52,
        outcomeOneName: `Alpha ${m}`,
        outcomeTwoName: `Beta ${m}`,
        minBetSize: MIN_BET.toString(),
      },
      admin,
    );
    markets.push({ marketHash: market.marketHash as string, eventId: eventId as string });
  }
  const metadata = await call(base, 'GET', '/metadata/obv3');
  const key = await call(base, 'POST', '/admin/api-keys', { address: trader.address }, admin);
  trader.apiKey = key.apiKey as string;
  const headers = { 'x-svc-api-key': trader.apiKey };
  await call(base, 'POST', '/user/deploy-proxy', undefined, headers);
  while (!(await call(base, 'GET', '/user/proxy', undefined, headers)).deployed) await sleep(50);
  await call(base, 'POST', '/admin/faucet', { address: trader.address, amount: FUNDS.toString() }, admin);
  return {
    markets,
    domain: metadata.domain as OrderDomain,
    baseToken: (metadata.activeAsset as { baseToken: string }).baseToken,
  };
}

type Sample = { t: number; rss: number; alive: boolean };

async function main() {
  const started = performance.now();
  log(
    `oddsbook bench:flood${SOAK ? ' (soak)' : ''} - node ${process.version}, ${cpus().length} x ${cpus()[0]?.model.trim()}, load avg ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-bench-flood-'));
  const port = randomPort();
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(port),
    ADMIN_TOKEN: ADMIN,
    DEMO: '0',
    LOG_LEVEL: 'warn',
  };
  const exchange: Child = await startChild(exchangeArgs(NODE_FLAGS, false), env, port, SERVER_ROOT);
  const pid = exchange.child.pid!;
  let exit: string | undefined;
  exchange.child.once('exit', (code, signal) => {
    exit = `exit code ${code}${signal ? `, signal ${signal}` : ''}`;
  });
  log(
    `exchange: pid ${pid}, sources of ${SERVER_ROOT ?? 'this checkout'}, rate limits on, data dir ${dataDir}`,
  );
  const followers: Follower[] = [];
  try {
    const trader = newTrader(0);
    const { markets, domain, baseToken } = await setUp(exchange.base, trader);
    const N = ladderSize();
    const signer = createOrderSigner({
      domain,
      marketHashes: markets.map((m) => m.marketHash),
      baseToken,
      expiry: Math.floor(Date.now() / 1000) + SECONDS + 3_600,
    });
    const channels = markets.flatMap((m) => [
      `order_book:market_${m.marketHash}`,
      `order_book:event_${m.eventId}`,
    ]);
    // The soak's followers also follow the account's orders (a row per order and per cancel).
    if (SOAK)
      channels.push(
        accountOrdersChannel(getAddress(trader.address)),
        activeOrdersChannel(getAddress(trader.address)),
      );
    const token = async () =>
      (
        (await call(exchange.base, 'GET', '/user/realtime-token-v3/api-key', undefined, {
          'x-svc-api-key': trader.apiKey,
        })) as { token: string }
      ).token;
    const wsUrl = `${exchange.base.replace('http://', 'ws://')}/connection/websocket`;
    for (let f = 0; f < FOLLOWERS; f++) {
      const follower = new Follower(wsUrl, token, channels);
      followers.push(follower);
      await follower.start();
    }
    log(
      `set-up: 1 account (${fmt(Number(FUNDS) / 1e6)} USDC), ${MARKETS} markets (minimum bet ${Number(MIN_BET) / 1e6} USDC), ${FOLLOWERS} follower(s) of ${channels.length} channels each`,
    );

    // The ladder: every tick of both sides of every market, 10 orders a request.
    const answers = new Answers();
    const ladder: object[] = [];
    for (const { marketHash } of markets)
      for (const isOne of [true, false])
        for (let tick = 1; tick < N; tick++) {
          const { orderId: _, ...order } = signer.signTerms(trader, {
            marketHash,
            isMakerBettingOutcomeOne: isOne,
            tick,
            totalBetSize: MIN_BET,
            timeInForce: 'GTC',
          });
          ladder.push(order);
        }
    const ladderStart = performance.now();
    let rested = 0;
    let refused = 0;
    const statuses = new Map<string, number>();
    for (let i = 0; i < ladder.length; i += PER_REQUEST * 8) {
      const chunk = [];
      for (let j = i; j < Math.min(ladder.length, i + PER_REQUEST * 8); j += PER_REQUEST)
        chunk.push(
          send(exchange.base, trader.apiKey, 'POST', { orders: ladder.slice(j, j + PER_REQUEST) }, answers),
        );
      for (const json of await Promise.all(chunk))
        for (const o of json?.data?.orders ?? []) {
          const status = o.status ?? '?';
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status === 'FAILED') refused++;
          else rested++;
        }
    }
    log(
      `ladder: ${fmt(ladder.length)} orders in ${((performance.now() - ladderStart) / 1000).toFixed(1)} s (${fmt(rested)} accepted, ${fmt(refused)} refused; answers ${answers.text()}; statuses ${[...statuses].map(([s, n]) => `${s}:${n}`).join(' ')})`,
    );

    // The flood.
    const rand = prng(32);
    const flood: string[] = [];
    let cancelFrom = 0;
    let requests = 0;
    const rssStart = exchange.rssBytes();
    const samples: Sample[] = [];
    const received = () => followers.reduce((sum, f) => sum + f.bytes, 0);
    const header = [
      's'.padStart(5),
      'RSS MB'.padStart(7),
      'heap MB'.padStart(8),
      'kept'.padStart(8),
      'kept MB'.padStart(8),
      'evicted'.padStart(9),
      'published'.padStart(10),
      'requests'.padStart(9),
      'followers MB'.padStart(13),
      'closes'.padStart(7),
      '  answers',
    ].join(' ');
    log(
      `flood: ${PER_REQUEST}-order requests at ${fmt(RATE)}/min for ${SECONDS} s (every ${CANCEL_EVERY}th cancels the 100 oldest)`,
    );
    log('');
    log(header);
    log('-'.repeat(header.length + 20));
    const sample = async (t: number) => {
      const alive = exit === undefined;
      const rss = alive ? exchange.rssBytes() : Number.NaN;
      const m = alive ? await serverMetrics(exchange.base) : await Promise.resolve(undefined);
      samples.push({ t, rss, alive });
      log(
        [
          String(Math.round(t)).padStart(5),
          mb(rss).padStart(7),
          mb(m?.heap ?? Number.NaN).padStart(8),
          fmt(m?.kept ?? Number.NaN).padStart(8),
          mb(m?.keptBytes ?? Number.NaN).padStart(8),
          fmt(m?.evicted ?? Number.NaN).padStart(9),
          fmt(m?.publications ?? Number.NaN).padStart(10),
          fmt(requests).padStart(9),
          mb(received()).padStart(13),
          String(followers.reduce((s, f) => s + f.closes.length, 0)).padStart(7),
          `  ${answers.text()}${answers.skipped ? ` skipped:${answers.skipped}` : ''}`,
        ].join(' '),
      );
    };
    answers.byStatus.clear();
    await sample(0);
    const floodStart = performance.now();
    let flooding = true;
    // Sampled on the side, so that a slow /metrics never holds the requests back.
    const sampler = (async () => {
      for (let k = 1; flooding; k++) {
        await sleep(Math.max(0, floodStart + k * SAMPLE_SECONDS * 1000 - performance.now()));
        if (flooding) await sample((performance.now() - floodStart) / 1000);
      }
    })();
    const interval = 60_000 / RATE;
    let due = floodStart;
    for (let n = 0; ; n++) {
      due += interval;
      const now = performance.now();
      if (due > now) await sleep(due - now);
      // Behind by more than a second (this process was starved): no catching up in a burst.
      else if (now - due > 1_000) due = now;
      const elapsed = (performance.now() - floodStart) / 1000;
      if (exit !== undefined || elapsed >= SECONDS) break;
      if (answers.inFlight >= MAX_IN_FLIGHT) {
        answers.skipped++;
        continue;
      }
      requests++;
      if (n % CANCEL_EVERY === CANCEL_EVERY - 1 && flood.length - cancelFrom >= 100) {
        const orders = flood.slice(cancelFrom, cancelFrom + 100).map((orderId) => ({ orderId }));
        cancelFrom += 100;
        if (cancelFrom > 100_000) {
          flood.splice(0, cancelFrom);
          cancelFrom = 0;
        }
        void send(exchange.base, trader.apiKey, 'DELETE', { orders }, answers);
        continue;
      }
      const orders = Array.from({ length: PER_REQUEST }, () => {
        const { orderId, ...order } = signer.signTerms(trader, {
          marketHash: markets[Math.floor(rand() * markets.length)]!.marketHash,
          isMakerBettingOutcomeOne: rand() < 0.5,
          tick: 1 + Math.floor(rand() * (N - 1)),
          totalBetSize: MIN_BET,
          timeInForce: 'GTC',
        });
        flood.push(orderId);
        return order;
      });
      void send(exchange.base, trader.apiKey, 'POST', { orders }, answers);
    }
    flooding = false;
    await sampler;
    if (exit === undefined) await sample((performance.now() - floodStart) / 1000);

    const alive = samples.filter((s) => s.alive);
    const highest = Math.max(...alive.map((s) => s.rss));
    const last = alive.at(-1)!;
    log('');
    log(
      `RSS: ${mb(rssStart)} MB at the start of the flood, highest ${mb(highest)} MB, last ${mb(last.rss)} MB at ${Math.round(last.t)} s; followers got ${mb(received())} MB`,
    );
    if (exit !== undefined) {
      log(`SERVER DIED after ${Math.round(samples.at(-1)!.t)} s of flood (${exit}); the end of its output:`);
      log(exchange.output().slice(-2_500));
      process.exitCode = 1;
    } else
      log(`server alive after ${SECONDS} s; run took ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    for (const f of followers) f.stop();
    await stopChild(exchange);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
