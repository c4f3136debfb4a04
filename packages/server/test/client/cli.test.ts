import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tickToOdds } from '@oddsbook/protocol';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, main } from '../../../client/src/cli/main.js';
import { freePort, runCli } from '../helpers/cli-process.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  testPrivateKey,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC, until } from '../helpers/trading.js';

const clientDir = fileURLToPath(new URL('../../../client', import.meta.url));

let t: TestExchange;
let url: string;
let configDir: string;
let env: Record<string, string>;
beforeAll(async () => {
  const port = await freePort();
  t = await startTestExchange({ env: { SIWE_DOMAINS: `http://127.0.0.1:${port}` } });
  url = await t.app.listen({ port, host: '127.0.0.1' });
  configDir = mkdtempSync(join(tmpdir(), 'oddsbook-cli-config-'));
  env = {
    ODDSBOOK_CONFIG: join(configDir, 'client.json'),
    ODDSBOOK_URL: url,
    ODDSBOOK_API_KEY: '',
    ODDSBOOK_PRIVATE_KEY: '',
  };
});
afterAll(async () => {
  await t.close();
  removeDataDir(t.dataDir);
  rmSync(configDir, { recursive: true, force: true });
});

/** Runs `oddsbook-client` (from sources) to its end. */
async function cli(args: string[], extra: Record<string, string> = {}) {
  const { status, stdout, stderr } = await runCli(
    args,
    { ...env, ...extra },
    { cwd: clientDir, timeoutMs: 120_000 },
  );
  return { code: status, stdout, stderr };
}

/** Starts a long-running `oddsbook-client` command; `lines` fills as it prints. */
function start(args: string[], extra: Record<string, string> = {}) {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: clientDir,
    env: { ...process.env, ...env, ...extra },
  });
  const lines: string[] = [];
  let stderr = '';
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    partial += chunk.toString();
    const parts = partial.split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    lines,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGINT');
      return exited;
    },
  };
}

describe('oddsbook-client', () => {
  it('explains every command, and refuses a wrong option with exit code 2', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    const names = COMMANDS.map((c) => c.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'login',
        'markets',
        'book',
        'place',
        'cancel',
        'cancel-all',
        'orders',
        'fills',
      ]),
    );
    expect(names).toEqual(expect.arrayContaining(['trades', 'positions', 'balance', 'watch']));
    for (const name of names) expect(help.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    // Each command's --help, in this process (the process itself is exercised by the other tests).
    for (const name of names) {
      const out: string[] = [];
      const io = {
        out: (l: string) => out.push(l),
        err: (l: string) => out.push(l),
        env,
        signal: new AbortController().signal,
      };
      expect(await main([name, '--help'], io), name).toBe(0);
      expect(out.join('\n'), name).toMatch(/^Usage: oddsbook-client /);
    }
    const wrong = await cli(['orders', '--bogus']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/Unknown option '--bogus'/);
    expect((await cli(['nope'])).code).toBe(2);
  }, 120_000);

  it('logs in with a private key (sign-in, a new API key stored 0600), then trades, reads and cancels', async () => {
    const privateKey = testPrivateKey();
    const address = privateKeyToAccount(privateKey).address;
    const keyEnv = { ODDSBOOK_PRIVATE_KEY: privateKey };
    const login = await cli(['login', '--json'], keyEnv);
    expect(login.stderr).toBe('');
    expect(JSON.parse(login.stdout)).toMatchObject({ url, address });
    expect(statSync(env.ODDSBOOK_CONFIG!).mode & 0o777).toBe(0o600);
    const stored = readFileSync(env.ODDSBOOK_CONFIG!, 'utf8');
    expect(stored).not.toContain(privateKey.slice(2));

    expect(JSON.parse((await cli(['deploy-proxy', '--json'])).stdout)).toMatchObject({ deployed: true });
    await t.app.inject({
      method: 'POST',
      url: '/admin/faucet',
      headers: t.admin,
      payload: { address, amount: (100n * USDC).toString() },
    });
    expect(JSON.parse((await cli(['balance', '--json'])).stdout)).toMatchObject({
      userAddress: address,
      availableAmount: (100n * USDC).toString(),
    });

    const { marketHash } = await createMarket(t);
    const markets = JSON.parse((await cli(['markets', '--json', '--limit', '500'])).stdout) as {
      marketHash: string;
    }[];
    expect(markets.map((m) => m.marketHash)).toContain(marketHash);

    const placed = await cli(
      ['place', '--market', marketHash, '--outcome', 'one', '--percent', '52.55', '--stake', '2.5', '--json'],
      keyEnv,
    );
    expect(placed.stderr).toBe('');
    const result = JSON.parse(placed.stdout);
    expect(result).toMatchObject({
      status: 'SUBMITTED',
      outcome: { state: 'RESTED', remainingAmount: '2500000' },
    });
    const orders = JSON.parse((await cli(['orders', '--json', '--market', marketHash])).stdout);
    expect(orders).toEqual([
      expect.objectContaining({
        id: result.orderId,
        percentageOdds: tickToOdds(420).toString(),
        totalBetSize: '2500000',
      }),
    ]);
    const text = await cli(['orders', '--market', marketHash]);
    expect(text.stdout).toMatch(/52\.5% \(1\.90\)\s+2\.5\s+2\.5\s+ACTIVE/);

    // A taker fills part of it: the maker's fills, trades and position show it.
    const taker = await createTrader(t, 100n * USDC);
    await place(t, taker, { marketHash, tick: 380, size: 1n * USDC, isOne: false, timeInForce: 'IOC' });
    const fills = JSON.parse((await cli(['fills', '--json'])).stdout);
    expect(fills).toEqual([expect.objectContaining({ orderId: result.orderId, isMaker: true })]);
    expect(JSON.parse((await cli(['trades', '--json'])).stdout)).toHaveLength(1);
    expect(JSON.parse((await cli(['positions', '--json'])).stdout)).toEqual([
      expect.objectContaining({ marketHash }),
    ]);

    const refused = await cli(
      ['place', '--market', marketHash, '--outcome', 'one', '--tick', '400', '--stake', '1000'],
      keyEnv,
    );
    expect(refused.code).toBe(3);
    expect(refused.stdout).toMatch(/^FAILED INSUFFICIENT_BALANCE/);

    const cancelled = await cli(['cancel', result.orderId, '--json']);
    expect(JSON.parse(cancelled.stdout).cancelled).toEqual([
      expect.objectContaining({ orderId: result.orderId }),
    ]);
    const again = await cli(['cancel', result.orderId]);
    expect(again.code, `${again.stdout}${again.stderr}`).toBe(3);
    expect(again.stdout).toMatch(/not cancelled: NOT_FOUND/);
    await cli(
      ['place', '--market', marketHash, '--outcome', 'two', '--tick', '300', '--size', '1000000'],
      keyEnv,
    );
    expect((await cli(['cancel-all'])).stdout).toMatch(/^1 orders to cancel submitted/);
    await until(
      async () => JSON.parse((await cli(['orders', '--json'])).stdout),
      (o) => o.length === 0,
      20_000,
    );
    // All three ended, newest first: the last cancelled, the one refused for the balance, the first cancelled
    // after part of it matched.
    const ended = JSON.parse((await cli(['orders', '--ended', '--json', '--market', marketHash])).stdout);
    expect(ended.map((o: { inactiveReason: string }) => o.inactiveReason)).toEqual([
      'USER_REQUESTED',
      'INSUFFICIENT_BALANCE',
      'USER_REQUESTED',
    ]);
    expect(ended[2]).toMatchObject({ id: result.orderId, totalBetSize: '2500000' });
    expect(BigInt(ended[2].fillAmount)).toBeGreaterThan(0n);
    expect(BigInt(ended[2].fillAmount)).toBeLessThan(2_500_000n);
    const endedText = await cli(['orders', '--ended', '--market', marketHash]);
    expect(endedText.stdout).toMatch(/^order\s+market\s+outcome\s+odds\s+stake\s+matched\s+ended/);
    expect(endedText.stdout).toMatch(/52\.5% \(1\.90\)\s+2\.5\s+\S+\s+USER_REQUESTED/);

    expect((await cli(['logout'])).stdout).toMatch(/Forgot the API key/);
    const anonymous = await cli(['orders']);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toMatch(/no API key for .*oddsbook-client login/);
  }, 180_000);

  it('shows a book move live, and prints a channel as JSON lines', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t, 100n * USDC);
    const withKey = { ODDSBOOK_API_KEY: maker.apiKey };
    const book = start(['book', marketHash], withKey);
    const fills = start(['watch', 'fills'], withKey);
    await until(
      () => book.lines.length,
      (n) => n >= 1,
      30_000,
    );
    expect(book.lines[0]).toMatch(/^version 0+ {2}one: - \(0 levels\) {2}two: - \(0 levels\)$/);
    await until(
      () => fills.lines.length,
      (n) => n >= 1,
      30_000,
    );
    expect(JSON.parse(fills.lines[0]!)).toMatchObject({ type: 'subscribed', channel: 'account:fills_v3' });

    await place(t, maker, { marketHash, tick: 440, size: 4n * USDC });
    await until(
      () => book.lines.at(-1) ?? '',
      (line) => /one: 55% x 4 \(1 levels\)/.test(line),
      20_000,
    );
    const taker = await createTrader(t, 100n * USDC);
    await place(t, taker, { marketHash, tick: 360, size: 1n * USDC, isOne: false, timeInForce: 'IOC' });
    await until(
      () => book.lines.at(-1) ?? '',
      (line) => /one: 55% x 2\.777779 \(1 levels\)/.test(line),
      20_000,
    );
    await until(
      () => fills.lines.length,
      (n) => n >= 2,
      20_000,
    );
    expect(JSON.parse(fills.lines[1]!)).toMatchObject({
      type: 'publication',
      data: { marketHash, isMaker: true, status: 'MATCHED' },
    });
    expect(await book.stop()).toBe(0);
    expect(await fills.stop()).toBe(0);
    expect(book.stderr()).toBe('');
  }, 120_000);

  it('says what to do when a live command is refused its realtime token', async () => {
    const { marketHash } = await createMarket(t);
    const refused = await cli(['book', marketHash, '--api-key', 'not-a-key']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^oddsbook-client: 401 BAD_AUTH.*\n {2}what to do: /);
  }, 120_000);
});
