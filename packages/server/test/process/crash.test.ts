import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NETWORKS } from '../../src/config/config.js';
import { EIP712_DOMAIN_NAME } from '../../src/exchange/exchange.js';
import { runCli, startServe } from '../helpers/cli-process.js';
import { call, moneyOf, USDC } from '../helpers/cluster-http.js';
import { loadSetup, postEachOrder, presignedOrders } from '../helpers/crash-load.js';
import { removeDataDir } from '../helpers/test-exchange.js';

const ADMIN = 'crash-test-admin-token-0123';
const admin = { 'x-admin-token': ADMIN };
const TRADERS = 6;
const ORDERS_PER_TRADER = 80;
const FUNDS = 10_000n * USDC;

const startServer = (dataDir: string) =>
  startServe({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, RATE_LIMITS: '0', BLOCK_TIME_MS: '50' });

describe('crash safety', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-crash-'));
  afterAll(() => removeDataDir(dataDir));

  it('keeps every acknowledged order and conserves funds across a SIGKILL under load', async () => {
    let server = await startServer(dataDir);
    const { meta, marketHash, traders } = await loadSetup(server.url, admin, TRADERS, FUNDS);
    expect(meta.domain).toMatchObject({
      name: EIP712_DOMAIN_NAME,
      verifyingContract: NETWORKS.mainnet.verifyingContract,
    });

    // Pre-signed orders: half the traders make on outcome one, half take on outcome two, crossing often.
    const batches = await presignedOrders(meta, marketHash, traders, ORDERS_PER_TRADER, (t, i) => {
      const isOne = t % 2 === 0;
      return {
        tick: isOne ? 380 + (i % 40) : 390 + (i % 40),
        size: BigInt(5 + (i % 7)) * USDC,
        isOne,
        timeInForce: i % 3 === 0 ? 'IOC' : 'GTC',
      };
    });

    // Load: every trader posts its orders one request at a time, concurrently; kill mid-stream.
    const acknowledged: { orderId: string; trader: number }[] = [];
    const load = postEachOrder(server.url, traders, batches, (response, t) => {
      if (response.status === 200 && response.body.data.orders[0].status === 'SUBMITTED') {
        acknowledged.push({ orderId: response.body.data.orders[0].orderId, trader: t });
      }
    });
    while (acknowledged.length < (TRADERS * ORDERS_PER_TRADER) / 3)
      await new Promise((r) => setTimeout(r, 5));
    const killed = server.stop('SIGKILL');
    const halted = load.halt();
    expect(await killed).toBeNull();
    await halted;
    expect(acknowledged.length).toBeGreaterThan(100);

    server = await startServer(dataDir);
    // Every acknowledged order is there, in whatever state matching left it.
    for (const { orderId, trader } of acknowledged) {
      const row = await call(server.url, 'GET', `/orders-v3/${orderId}`, undefined, traders[trader]!.headers);
      expect(row.status, orderId).toBe(200);
    }
    // Money is conserved exactly: nothing was resolved, so every unit is available or escrowed.
    let total = 0n;
    let fills = 0;
    for (const trader of traders) {
      total += await moneyOf(server.url, trader);
      fills += (await call(server.url, 'GET', '/fills-v3?perPage=100', undefined, trader.headers)).body.data
        .fills.length;
    }
    expect(total).toBe(FUNDS * BigInt(TRADERS));
    expect(fills).toBeGreaterThan(0);
    console.info(
      `crash test: ${acknowledged.length} acknowledged orders before SIGKILL, all present after restart; ${fills} fills; funds conserved`,
    );

    expect(await server.stop()).toBe(0);
    // The journal alone rebuilds the same state as the projections.
    const replay = await runCli(['replay'], { DATA_DIR: dataDir });
    expect(replay.stdout).toMatch(/identical/);
    expect(replay.status).toBe(0);
  }, 120_000);
});
