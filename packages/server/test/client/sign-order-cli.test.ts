import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tickToOdds } from '@oddsbook/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-process.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, postOrders, USDC } from '../helpers/trading.js';

const clientDir = fileURLToPath(new URL('../../../client', import.meta.url));

/** Runs `oddsbook-client` (from sources) as a process; the exchange answers it meanwhile. */
async function cli(
  args: string[],
  privateKey?: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { status, stdout, stderr } = await runCli(
    args,
    { ODDSBOOK_URL: '', ODDSBOOK_PRIVATE_KEY: privateKey ?? '', ...env },
    { cwd: clientDir, timeoutMs: 170_000 },
  );
  return { code: status, stdout, stderr };
}

describe('oddsbook-client sign-order', () => {
  let t: TestExchange;
  let url: string;
  let maker: TestUser;
  let marketHash: string;
  beforeAll(async () => {
    t = await startTestExchange();
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    maker = await createTrader(t, 100n * USDC);
    ({ marketHash } = await createMarket(t));
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('signs an order the exchange accepts, at the tick asked for', async () => {
    const args = ['sign-order', '--url', url, '--market', marketHash, '--outcome', 'one', '--tick', '440'];
    const signed = await cli([...args, '--size', '5000000', '--client-order-id', 'cli-1'], maker.privateKey);
    expect(signed).toMatchObject({ code: 0, stderr: '' });
    const order = JSON.parse(signed.stdout);
    expect(order).toMatchObject({
      maker: maker.address,
      percentageOdds: tickToOdds(440).toString(),
      totalBetSize: '5000000',
      timeInForce: 'GTC',
      clientOrderId: 'cli-1',
    });
    const posted = await postOrders(t, maker, [order], { waitForOutcome: true });
    expect(posted.statusCode).toBe(200);
    expect(posted.json().data.orders[0]).toMatchObject({ status: 'SUBMITTED', outcome: { state: 'RESTED' } });
  }, 30_000);

  it('explains its options, and refuses what the exchange would refuse before signing', async () => {
    const help = await cli(['sign-order', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--url <base url>/);

    const base = ['sign-order', '--url', url, '--market', marketHash, '--outcome', 'two'];
    for (const [args, message] of [
      [['--tick', '800', '--size', '1000000'], /--tick is a whole number from 1 to 799/],
      [['--tick', '0', '--size', '1000000'], /--tick is a whole number from 1 to 799/],
      [['--tick', '400', '--size', '1.5'], /--size is a whole number/],
      [['--odds', '5.5e19', '--size', '1000000'], /--odds is a whole number/],
    ] as const) {
      const refused = await cli([...base, ...args], maker.privateKey);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr).toMatch(message);
      expect(refused.stdout).toBe('');
    }
    const unreachable = await cli(
      [
        'sign-order',
        '--url',
        'http://127.0.0.1:1',
        '--market',
        marketHash,
        '--outcome',
        'one',
        '--tick',
        '400',
        '--size',
        '1',
      ],
      maker.privateKey,
    );
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/cannot read the exchange's metadata at http:\/\/127\.0\.0\.1:1/);
  }, 180_000);

  it('reads the exchange URL from ODDSBOOK_URL, --url winning over it, and prints its version', async () => {
    const order = ['sign-order', '--market', marketHash, '--outcome', 'one', '--tick', '400', '--size', '1'];
    const fromEnv = await cli(order, maker.privateKey, { ODDSBOOK_URL: url });
    expect(fromEnv.stderr).toBe('');
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ maker: maker.address, totalBetSize: '1' });
    const flagWins = await cli([...order, '--url', 'http://127.0.0.1:1'], maker.privateKey, {
      ODDSBOOK_URL: url,
    });
    expect(flagWins.code).toBe(1);
    expect(flagWins.stderr).toMatch(/cannot read the exchange's metadata at http:\/\/127\.0\.0\.1:1/);
    const { version } = JSON.parse(readFileSync(new URL('package.json', `file://${clientDir}/`), 'utf8'));
    expect(await cli(['--version'])).toEqual({ code: 0, stdout: `oddsbook-client ${version}\n`, stderr: '' });
  }, 120_000);
});
