import { execFile } from 'node:child_process';
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
import { tickToOdds } from '@oddsbook/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, postOrders, USDC } from '../helpers/trading.js';

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
import { createExchangeClient, type SignedOrder } from '@oddsbook/client';

const client = createExchangeClient({ baseUrl: 'http://127.0.0.1:1' });
export async function typed(order: SignedOrder): Promise<string> {
  const domain = await client.getOrderDomain();
  const [result] = await client.placeOrders([order]);
  // @ts-expect-error chainId is a number
  const chainId: string = domain.chainId;
  // @ts-expect-error a result is an object
  const status: number = result;
  return \`\${chainId}\${status}\${domain.verifyingContract}\`;
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
    expect(help.stdout).toMatch(/Usage: oddsbook-client sign-order/);

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

  it('pulls in no server, SQLite or Fastify', () => {
    const modules = join(app, 'node_modules');
    for (const name of ['@oddsbook/server', 'better-sqlite3', 'fastify', 'pino'])
      expect(existsSync(join(modules, name)), name).toBe(false);
    expect(readdirSync(join(modules, '@oddsbook'))).toEqual(['client']);
    expect(existsSync(join(modules, '@oddsbook/client/node_modules/@oddsbook/protocol/dist/index.js'))).toBe(
      true,
    );
  });
});
