import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC } from '../helpers/trading.js';

/**
 * Chain settlement under injected faults, through the API (issue 33): whatever fails, the exchange goes on
 * and `GET /admin/reconcile` finds the chain holding what the engine says, to the base unit.
 */
let t: TestExchange;

beforeAll(async () => {
  t = await startTestExchange();
});
afterAll(async () => {
  await t?.close();
  if (t) removeDataDir(t.dataDir);
});

async function faults(payload: object) {
  const response = await t.app.inject({ method: 'POST', url: '/admin/faults', headers: t.admin, payload });
  expect(response.statusCode).toBe(200);
}

async function balance(user: TestUser) {
  const row = (await t.app.inject({ method: 'GET', url: '/user/balance-v3', headers: user.headers })).json()
    .data.balances[0] as { availableAmount: string; escrowedAmount: string; owedAmount: string };
  return { available: BigInt(row.availableAmount), owed: BigInt(row.owedAmount) };
}

async function expectReconciled() {
  const response = await t.app.inject({ method: 'GET', url: '/admin/reconcile', headers: t.admin });
  expect(response.statusCode).toBe(200);
  const report = response.json().data;
  expect(report.differences).toEqual([]);
  expect(report.differenceUnits).toBe('0');
  expect(report.totals.chain).toBe(report.totals.engine);
}

describe('settlement faults through the exchange', () => {
  it('a failed fill whose hedge refund was spent leaves a debt, repaid by the next deposit, across a restart', async () => {
    const [a, b, c, d] = [
      await createTrader(t, 1_000n * USDC),
      await createTrader(t, 1_000n * USDC),
      await createTrader(t, 1_000n * USDC),
      await createTrader(t, 1_000n * USDC),
    ];
    const m = (await createMarket(t)).marketHash;
    const m2 = (await createMarket(t)).marketHash;
    await t.settled();
    // Everything below is committed before a block mines any of it: the first fill's escrow fails, and its
    // reversal comes after A spent the hedge's refund.
    await faults({ blocks: 'pause', failNext: { escrow: 1 } });
    await place(t, b!, { marketHash: m, tick: 400, size: 100n * USDC, isOne: false });
    await place(t, a!, { marketHash: m, tick: 400, size: 100n * USDC, timeInForce: 'IOC' });
    await place(t, c!, { marketHash: m, tick: 400, size: 100n * USDC });
    await place(t, a!, { marketHash: m, tick: 400, size: 100n * USDC, isOne: false, timeInForce: 'IOC' });
    await place(t, d!, { marketHash: m2, tick: 400, size: 1_000n * USDC, isOne: false });
    await place(t, a!, { marketHash: m2, tick: 400, size: 1_000n * USDC, timeInForce: 'IOC' });
    await faults({ blocks: 'resume' });
    await t.settled();

    expect(await balance(a!)).toEqual({ available: 0n, owed: 100n * USDC });
    await expectReconciled();

    const faucet = await t.app.inject({
      method: 'POST',
      url: '/admin/faucet',
      headers: t.admin,
      payload: { address: a!.address, amount: (150n * USDC).toString() },
    });
    expect(faucet.statusCode).toBe(200);
    await t.settled();
    expect(await balance(a!)).toEqual({ available: 50n * USDC, owed: 0n });
    await expectReconciled();

    t = await t.reopen();
    await t.settled();
    expect(await balance(a!)).toEqual({ available: 50n * USDC, owed: 0n });
    await expectReconciled();
  });

  it('settles on a quiet exchange when the block of its transaction is not announced', async () => {
    const user = await createTrader(t, 0n);
    await t.settled();
    await faults({ dropNextReceipt: true });
    const faucet = await t.app.inject({
      method: 'POST',
      url: '/admin/faucet',
      headers: t.admin,
      payload: { address: user.address, amount: (25n * USDC).toString() },
    });
    expect(faucet.statusCode).toBe(200);
    // Nothing else is submitted to the chain: only the driver's own asking for its receipt moves it on.
    await t.settled();
    expect(await balance(user)).toEqual({ available: 25n * USDC, owed: 0n });
    expect(await t.exchange.chain.balanceOf(t.exchange.wallets.proxyAddress(user.address))).toBe(25n * USDC);
    await expectReconciled();
  });
});
