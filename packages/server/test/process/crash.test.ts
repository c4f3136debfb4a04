import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type OrderMessage, tickToOdds } from '@oddsbook/protocol';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { NETWORKS } from '../../src/config/config.js';
import { EIP712_DOMAIN_NAME } from '../../src/exchange/exchange.js';
import { freePort } from '../helpers/cli-process.js';
import { removeDataDir, testPrivateKey } from '../helpers/test-exchange.js';
import { withTestStore } from '../helpers/test-store.js';
import { viemOrderTypedData } from '../helpers/trading.js';

const serverDir = fileURLToPath(new URL('../..', import.meta.url));
const ADMIN = 'crash-test-admin-token-0123';
const USDC = 1_000_000n;
const TRADERS = 6;
const ORDERS_PER_TRADER = 80;
const FUNDS = 10_000n * USDC;

type Server = { child: ChildProcess; base: string; exited: Promise<number | null> };

async function startServer(dataDir: string, port: number): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    cwd: serverDir,
    env: {
      ...process.env,
      ...(await withTestStore({ DATA_DIR: dataDir })),
      PORT: String(port),
      ADMIN_TOKEN: ADMIN,
      DEMO: '0',
      RATE_LIMITS: '0',
      BLOCK_TIME_MS: '50',
      LOG_LEVEL: 'warn',
    },
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/health`)).ok) return { child, base, exited };
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes
  return { status: response.status, body: (await response.json()) as { data: any } };
}

describe('crash safety', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-crash-'));
  afterAll(() => removeDataDir(dataDir));

  it('keeps every acknowledged order and conserves funds across a SIGKILL under load', async () => {
    const port = await freePort();
    let server = await startServer(dataDir, port);
    const admin = { 'x-admin-token': ADMIN };

    const league = await call(
      server.base,
      'POST',
      '/admin/leagues',
      { sportId: 5, label: 'Crash League' },
      admin,
    );
    const fixture = await call(
      server.base,
      'POST',
      '/admin/fixtures',
      {
        leagueId: league.body.data.leagueId,
        teamOneName: 'Alpha',
        teamTwoName: 'Beta',
        gameTime: Math.floor(Date.now() / 1000) + 86_400,
      },
      admin,
    );
    const market = await call(
      server.base,
      'POST',
      '/admin/markets',
      { eventId: fixture.body.data.eventId, type: 52, outcomeOneName: 'Alpha', outcomeTwoName: 'Beta' },
      admin,
    );
    const marketHash = market.body.data.marketHash as `0x${string}`;
    const metadata = await call(server.base, 'GET', '/metadata/obv3');
    const domain = metadata.body.data.domain;
    expect(domain).toMatchObject({
      name: EIP712_DOMAIN_NAME,
      verifyingContract: NETWORKS.mainnet.verifyingContract,
    });

    const traders = [];
    for (let i = 0; i < TRADERS; i++) {
      const account = privateKeyToAccount(testPrivateKey());
      const key = await call(server.base, 'POST', '/admin/api-keys', { address: account.address }, admin);
      const headers = { 'x-svc-api-key': key.body.data.apiKey as string };
      await call(server.base, 'POST', '/user/deploy-proxy', undefined, headers);
      traders.push({ account, headers });
    }
    for (const trader of traders) {
      for (;;) {
        if ((await call(server.base, 'GET', '/user/proxy', undefined, trader.headers)).body.data.deployed)
          break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const funded = await call(
        server.base,
        'POST',
        '/admin/faucet',
        { address: trader.account.address, amount: FUNDS.toString() },
        admin,
      );
      expect(funded.status).toBe(200);
    }

    // Pre-signed orders: half the traders make on outcome one, half take on outcome two, crossing often.
    const expiry = Math.floor(Date.now() / 1000) + 3600;
    const batches = await Promise.all(
      traders.map(async (trader, t) =>
        Promise.all(
          Array.from({ length: ORDERS_PER_TRADER }, async (_, i) => {
            const isOne = t % 2 === 0;
            const tick = isOne ? 380 + (i % 40) : 390 + (i % 40);
            const message: OrderMessage = {
              marketHash,
              baseToken: metadata.body.data.activeAsset.baseToken,
              totalBetSize: BigInt(5 + (i % 7)) * USDC,
              percentageOdds: tickToOdds(tick),
              salt: BigInt(t * 1_000_000 + i + 1),
              expiry,
              maker: trader.account.address,
              isMakerBettingOutcomeOne: isOne,
            };
            const orderSignature = await trader.account.signTypedData(viemOrderTypedData(domain, message));
            return {
              marketHash,
              maker: message.maker,
              baseToken: message.baseToken,
              totalBetSize: message.totalBetSize.toString(),
              percentageOdds: message.percentageOdds.toString(),
              salt: `0x${BigInt(message.salt).toString(16)}`,
              expiry,
              isMakerBettingOutcomeOne: isOne,
              timeInForce: i % 3 === 0 ? 'IOC' : 'GTC',
              orderSignature,
            };
          }),
        ),
      ),
    );

    // Load: every trader posts its orders one request at a time, concurrently; kill mid-stream.
    const acknowledged: { orderId: string; trader: number }[] = [];
    let killed = false;
    const load = traders.map(async (trader, t) => {
      for (const order of batches[t]!) {
        if (killed) return;
        try {
          const response = await call(server.base, 'POST', '/orders-v3', { orders: [order] }, trader.headers);
          if (response.status === 200 && response.body.data.orders[0].status === 'SUBMITTED') {
            acknowledged.push({ orderId: response.body.data.orders[0].orderId, trader: t });
          }
        } catch {
          return; // the connection died with the server
        }
      }
    });
    while (acknowledged.length < (TRADERS * ORDERS_PER_TRADER) / 3)
      await new Promise((r) => setTimeout(r, 5));
    server.child.kill('SIGKILL');
    killed = true;
    expect(await server.exited).toBeNull();
    await Promise.all(load);
    expect(acknowledged.length).toBeGreaterThan(100);

    server = await startServer(dataDir, port);
    // Every acknowledged order is there, in whatever state matching left it.
    for (const { orderId, trader } of acknowledged) {
      const row = await call(
        server.base,
        'GET',
        `/orders-v3/${orderId}`,
        undefined,
        traders[trader]!.headers,
      );
      expect(row.status, orderId).toBe(200);
    }
    // Money is conserved exactly: nothing was resolved, so every unit is available or escrowed.
    let total = 0n;
    let fills = 0;
    for (const trader of traders) {
      const [balance] = (await call(server.base, 'GET', '/user/balance-v3', undefined, trader.headers)).body
        .data.balances;
      total += BigInt(balance.availableAmount) + BigInt(balance.escrowedAmount);
      fills += (await call(server.base, 'GET', '/fills-v3?perPage=100', undefined, trader.headers)).body.data
        .fills.length;
    }
    expect(total).toBe(FUNDS * BigInt(TRADERS));
    expect(fills).toBeGreaterThan(0);
    console.info(
      `crash test: ${acknowledged.length} acknowledged orders before SIGKILL, all present after restart; ${fills} fills; funds conserved`,
    );

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    // The journal alone rebuilds the same state as the projections.
    const replay = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'replay'], {
      cwd: serverDir,
      env: { ...process.env, ...(await withTestStore({ DATA_DIR: dataDir })) },
      encoding: 'utf8',
    });
    expect(replay.stdout).toMatch(/identical/);
    expect(replay.status).toBe(0);
  }, 120_000);
});
