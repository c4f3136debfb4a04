import { execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createExchangeClient } from '@oddsbook/client';
import { tickToOdds } from '@oddsbook/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, postOrders, USDC, until } from '../helpers/trading.js';

const clientDir = fileURLToPath(new URL('../../../client', import.meta.url));
const clientVersion = JSON.parse(readFileSync(join(clientDir, 'package.json'), 'utf8')).version as string;
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** The environment without npm's `npm_*` variables (set when the suite runs under `npm test`). */
function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  return { ...env, ...extra };
}

function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, env: plainEnv(env), timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr: stderr || (error && !stdout ? String(error) : stderr) });
      },
    );
  });
}

async function mustRun(command: string, args: string[], cwd: string): Promise<string> {
  const result = await run(command, args, cwd);
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.code}):\n${result.stderr}`);
  return result.stdout;
}

// A consumer of the SDK as its users write one: plain Node ESM, the package imported by name.
const CONSUMER = `
import { createExchangeClient, ExchangeApiError, signOrder } from '@oddsbook/client';
import { privateKeyToAccount } from 'viem/accounts';

const { BASE_URL, API_KEY, PRIVATE_KEY, MARKET_HASH } = process.env;
const account = privateKeyToAccount(PRIVATE_KEY);
const client = createExchangeClient({ baseUrl: BASE_URL, apiKey: API_KEY, account });
const metadata = await client.getMetadata();
const expiry = Math.floor(Date.now() / 1000) + 600;
const signed = await signOrder(
  account,
  await client.getOrderDomain(),
  {
    marketHash: MARKET_HASH,
    baseToken: metadata.activeAsset.baseToken,
    totalBetSize: 3000000n,
    tick: 420,
    isMakerBettingOutcomeOne: true,
    timeInForce: 'GTC',
    expiry,
    clientOrderId: 'packed-signed',
  },
  metadata.oddsLadderStepSize,
);
const placed = await client.placeOrders(
  [
    signed,
    { marketHash: MARKET_HASH, tick: 430, totalBetSize: 4000000n, isMakerBettingOutcomeOne: true,
      timeInForce: 'GTC', expiry, clientOrderId: 'packed-unsigned' },
  ],
  { waitForOutcome: true },
);
const read = await client.getOrderByClientId('packed-unsigned');
let refused;
try {
  await client.getOrderByClientId('no-such-order');
} catch (error) {
  refused = { isApiError: error instanceof ExchangeApiError, status: error.status };
}
console.log(JSON.stringify({ signed, placed, read, refused }));
`;

// A TypeScript consumer: each @ts-expect-error holds only while the SDK's types resolve through the
// bundled protocol (an unresolved import would make them `any`, and the directive unused).
const TYPED_CONSUMER = `
import { channels, createExchangeClient, type SignedOrder } from '@oddsbook/client';

const client = createExchangeClient({ baseUrl: 'http://127.0.0.1:1' });
export async function typed(order: SignedOrder): Promise<string> {
  const domain = await client.getOrderDomain();
  const [result] = await client.placeOrders([order]);
  // @ts-expect-error chainId is a number
  const chainId: string = domain.chainId;
  // @ts-expect-error a result is an object
  const status: number = result;
  const balance = await client.getBalance();
  // @ts-expect-error amounts are decimal strings
  const owed: number = balance.owedAmount;
  for await (const event of client.subscribe(channels.orderBookMarket(order.marketHash))) {
    // @ts-expect-error a book publication's version is a string
    if (event.type === 'publication') return event.data.version satisfies number;
  }
  for await (const fill of client.fills()) {
    // @ts-expect-error a fill's status is one of four
    if (fill.status === 'PENDING') return fill.id;
  }
  return \`\${chainId}\${status}\${domain.verifyingContract}\${owed}\`;
}
`;

describe('the packed @oddsbook/client, installed in an empty folder', () => {
  let work: string;
  let app: string;
  let t: TestExchange;
  let url: string;
  let maker: TestUser;
  let marketHash: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'oddsbook-packed-sdk-'));
    await mustRun('npm', ['pack', '--pack-destination', work], clientDir);
    const tarball = readdirSync(work).find((file) => file.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack left no tarball in ${work}`);
    app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }),
    );
    await mustRun(
      'npm',
      ['install', join(work, tarball), '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
      app,
    );
    t = await startTestExchange();
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    maker = await createTrader(t, 100n * USDC);
    ({ marketHash } = await createMarket(t));
  }, 400_000);

  afterAll(async () => {
    await t?.close();
    if (t) removeDataDir(t.dataDir);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('is imported by plain Node (ESM), signs orders the exchange accepts, reads them and raises its errors', async () => {
    writeFileSync(join(app, 'consumer.mjs'), CONSUMER);
    const result = await run(process.execPath, ['consumer.mjs'], app, {
      BASE_URL: url,
      API_KEY: maker.apiKey,
      PRIVATE_KEY: maker.privateKey,
      MARKET_HASH: marketHash,
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const { signed, placed, read, refused } = JSON.parse(result.stdout);
    expect(signed).toMatchObject({
      maker: maker.address,
      percentageOdds: tickToOdds(420).toString(),
      totalBetSize: '3000000',
      orderSignature: expect.stringMatching(/^0x[0-9a-f]{130}$/),
    });
    expect(placed).toHaveLength(2);
    for (const order of placed)
      expect(order).toMatchObject({ status: 'SUBMITTED', outcome: { state: 'RESTED' } });
    expect(read).toMatchObject({
      clientOrderId: 'packed-unsigned',
      percentageOdds: tickToOdds(430).toString(),
      totalBetSize: '4000000',
    });
    expect(refused).toEqual({ isApiError: true, status: 404 });
  }, 120_000);

  it('runs the oddsbook-client bin: --version, --help, and a sign-order the exchange accepts', async () => {
    const bin = join(app, 'node_modules', '.bin', 'oddsbook-client');
    const version = await run(bin, ['--version'], app);
    expect(version).toMatchObject({ code: 0, stdout: `oddsbook-client ${clientVersion}\n` });
    const help = await run(bin, ['--help'], app);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {2}sign-order +sign an order/m);

    const args = ['sign-order', '--url', url, '--market', marketHash, '--outcome', 'two', '--tick', '380'];
    const signed = await run(bin, [...args, '--size', '2000000'], app, {
      ODDSBOOK_PRIVATE_KEY: maker.privateKey,
    });
    expect(signed).toMatchObject({ code: 0, stderr: '' });
    const order = JSON.parse(signed.stdout);
    expect(order).toMatchObject({
      percentageOdds: tickToOdds(380).toString(),
      isMakerBettingOutcomeOne: false,
    });
    const posted = await postOrders(t, maker, [order], { waitForOutcome: true });
    expect(posted.statusCode).toBe(200);
    expect(posted.json().data.orders[0]).toMatchObject({ status: 'SUBMITTED' });
  }, 120_000);

  it('carries the protocol types: a TypeScript consumer type-checks against them', async () => {
    writeFileSync(join(app, 'typed.ts'), TYPED_CONSUMER);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          noEmit: true,
          strict: true,
          skipLibCheck: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2023', 'dom'],
          types: [],
        },
        files: ['typed.ts'],
      }),
    );
    const checked = await run(process.execPath, [tsc, '-p', '.'], app);
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);
  }, 120_000);

  it('runs its example bots and the live book as a new user would: quote, fill, watch it move, heartbeat cancel', async () => {
    const bin = join(app, 'node_modules', '.bin', 'oddsbook-client');
    const env = { ...plainEnv(), ODDSBOOK_URL: url, ODDSBOOK_ADMIN_TOKEN: ADMIN_TOKEN, ODDSBOOK_API_KEY: '' };
    const { marketHash: market } = await createMarket(t);
    const started = (args: string[], extra: Record<string, string> = {}) => {
      const child = spawn(bin, args, { cwd: app, env: { ...env, ...extra } });
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
      });
      child.stderr.on('data', (chunk) => {
        output += chunk;
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      return { child, output: () => output, exited };
    };
    const mm = started(['example', 'market-maker', '--market', market, '--heartbeat', '3']);
    try {
      await until(
        () => mm.output(),
        (out) => /\[mm\] quoting/.test(out),
        60_000,
      );
      const mmKey = /ODDSBOOK_API_KEY=([0-9a-f]+)/.exec(mm.output())![1]!;
      const book = started(['book', market], { ODDSBOOK_API_KEY: mmKey });
      await until(
        () => book.output(),
        (out) => /one: 49\.5% x 10 \(3 levels\)/.test(out),
        60_000,
      );
      const taker = started(['example', 'taker', '--market', market, '--rounds', '2', '--interval', '200']);
      expect(await taker.exited).toBe(0);
      expect(taker.output()).toMatch(/\[taker\] took [0-9.]+ USDC/);
      // The book moves live: a level taken from, then re-quoted.
      await until(
        () => book.output(),
        (out) => out.trim().split('\n').length >= 3,
        30_000,
      );
      const mmClient = createExchangeClient({ baseUrl: url, apiKey: mmKey });
      await until(
        () => mmClient.listOrders({ marketHash: market }),
        (p) => p.orders.length === 6,
        30_000,
      );
      mm.child.kill('SIGKILL');
      // The orders it left open: a requote it sent before it died (cancelling the ladder it replaced) has
      // been answered by now, and nothing but the heartbeat ends these.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const open = await mmClient.listOrders({ marketHash: market });
      expect(open.orders.length).toBeGreaterThan(0);
      const gone = await until(
        () => Promise.all(open.orders.map((o) => mmClient.getOrder(o.id))),
        (rows) => rows.every((r) => r.status === 'INACTIVE'),
        30_000,
      );
      expect(new Set(gone.map((r) => r.inactiveReason))).toEqual(new Set(['HEARTBEAT_TIMEOUT']));
      await until(
        () => book.output(),
        (out) => /one: - \(0 levels\) {2}two: - \(0 levels\)\s*$/.test(out),
        30_000,
      );
      book.child.kill('SIGINT');
      expect(await book.exited).toBe(0);
    } finally {
      mm.child.kill('SIGKILL');
    }
  }, 240_000);

  it('pulls in no server, SQLite or Fastify', () => {
    const modules = join(app, 'node_modules');
    for (const name of ['@oddsbook/server', 'better-sqlite3', 'fastify', 'pino'])
      expect(existsSync(join(modules, name)), name).toBe(false);
    expect(readdirSync(join(modules, '@oddsbook'))).toEqual(['client']);
    // The realtime connection's WebSocket for Node 20, and the examples, come with it.
    expect(existsSync(join(modules, 'ws/package.json'))).toBe(true);
    expect(existsSync(join(modules, '@oddsbook/client/dist/examples/market-maker.js'))).toBe(true);
    expect(existsSync(join(modules, '@oddsbook/client/dist/examples/market-maker.ts'))).toBe(true);
    expect(existsSync(join(modules, '@oddsbook/client/node_modules/@oddsbook/protocol/dist/index.js'))).toBe(
      true,
    );
  });
});
