import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestExchange, type TestExchange, type TestUser } from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC, until } from '../helpers/trading.js';

/**
 * Issue 25, as a bettor sees it: a hedge gives the stakes back at once, on the balance, the fills and the
 * chain, and the market's result then pays what it would have paid without capital efficiency.
 */
const FUNDS = 1_000n * USDC;
let t: TestExchange;

beforeAll(async () => {
  t = await startTestExchange();
});
afterAll(async () => {
  await t?.close();
});

async function balance(user: TestUser) {
  const row = (await t.app.inject({ method: 'GET', url: '/user/balance-v3', headers: user.headers })).json()
    .data.balances[0] as { availableAmount: string; escrowedAmount: string };
  return { available: BigInt(row.availableAmount), escrowed: BigInt(row.escrowedAmount) };
}

/** The chain agrees with the exchange: each proxy wallet holds its available balance, escrow the rest. */
async function chainAgrees(users: TestUser[]) {
  const expected = await Promise.all(users.map(balance));
  const escrowed = expected.reduce((sum, b) => sum + b.escrowed, 0n);
  await until(
    async () => ({
      wallets: await Promise.all(
        users.map((u) => t.exchange.chain.balanceOf(t.exchange.wallets.proxyAddress(u.address))),
      ),
      escrow: await t.exchange.chain.balanceOf(t.exchange.chain.escrowAddress),
    }),
    (v) => v.wallets.every((w, i) => w === expected[i]!.available) && v.escrow === escrowed,
    10_000,
  );
}

describe('capital efficiency through the exchange', () => {
  for (const outcome of [1, 2, 0] as const) {
    it(`returns a full hedge at once, and a result of ${outcome} pays as without it`, async () => {
      const [a, b, c] = [
        await createTrader(t, FUNDS),
        await createTrader(t, FUNDS),
        await createTrader(t, FUNDS),
      ];
      const { marketHash } = await createMarket(t);
      // A backs outcome one for 100 at 50 % (against B), then outcome two for 100 at 50 % (against C).
      await place(t, b!, { marketHash, tick: 400, size: 100n * USDC, isOne: false });
      await place(t, a!, { marketHash, tick: 400, size: 100n * USDC, timeInForce: 'IOC' });
      expect(await balance(a!)).toEqual({ available: 900n * USDC, escrowed: 100n * USDC });
      await place(t, c!, { marketHash, tick: 400, size: 100n * USDC });
      const hedge = await place(t, a!, {
        marketHash,
        tick: 400,
        size: 100n * USDC,
        isOne: false,
        timeInForce: 'IOC',
      });
      expect(hedge.outcome).toMatchObject({ fillAmount: (100n * USDC).toString() });

      // Whatever the result, A collects 200 of the 200 it staked: all of it back right away.
      expect(await balance(a!)).toEqual({ available: FUNDS, escrowed: 0n });
      const fills = (await t.app.inject({ method: 'GET', url: '/fills-v3', headers: a!.headers })).json().data
        .fills as { orderId: string; ceRefundAmount: string }[];
      expect(fills.find((f) => f.orderId === hedge.orderId)?.ceRefundAmount).toBe((200n * USDC).toString());
      expect(fills.filter((f) => f.orderId !== hedge.orderId).map((f) => f.ceRefundAmount)).toEqual(['0']);
      const trades = (await t.app.inject({ method: 'GET', url: '/trades-v3', headers: b!.headers })).json()
        .data.trades as { marketHasRefunds: boolean }[];
      expect(trades.map((tr) => tr.marketHasRefunds)).toEqual([true]);
      await chainAgrees([a!, b!, c!]);

      const resolved = await t.app.inject({
        method: 'POST',
        url: `/admin/markets/${marketHash}/resolve`,
        headers: t.admin,
        payload: { outcome },
      });
      expect(resolved.statusCode, resolved.body).toBe(200);
      // Without capital efficiency: A wins 200 on one side and loses its other 100 stake; B and C win or
      // lose 100; a void gives every stake back.
      const won = (side: 1 | 2) =>
        outcome === 0 ? FUNDS : outcome === side ? FUNDS + 100n * USDC : FUNDS - 100n * USDC;
      expect(await balance(a!)).toEqual({ available: FUNDS, escrowed: 0n });
      expect(await balance(b!)).toEqual({ available: won(2), escrowed: 0n });
      expect(await balance(c!)).toEqual({ available: won(1), escrowed: 0n });
      await chainAgrees([a!, b!, c!]);
    });
  }
});
