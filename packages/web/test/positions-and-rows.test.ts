import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { DESKTOP, horizontalOverflow, PHONE, placeLimit, takeBest, unitsOf } from './account-steps.js';
import { chromiumAvailable, exchangeAndBrowser, walletContext } from './browser-harness.js';
import {
  checkedScreenshot,
  MAINNET_CHAIN_ID,
  MAKER_KEY,
  onboard,
  openFirstMarket,
  TAKER_KEY,
  WAIT,
} from './browser-steps.js';
import { pageClient } from './trading-steps.js';

const available = chromiumAvailable();
const USDC = 1_000_000n;

describe.skipIf(!available)('positions, refunds and named rows on a phone', () => {
  const suite = exchangeAndBrowser();

  it('a bettor at 390 px bets, hedges, sees the refund and its position, reloads, and the settled numbers add up to the balance', async () => {
    const maker = await walletContext(suite.browser, MAKER_KEY, MAINNET_CHAIN_ID);
    const bettor = await walletContext(suite.browser, TAKER_KEY, MAINNET_CHAIN_ID);
    try {
      await bettor.page.setViewportSize(PHONE);
      await onboard(maker.page, suite.exchange, maker.address, 'maker');
      await onboard(bettor.page, suite.exchange, bettor.address, 'bettor');
      const start = 100n * USDC;

      // The maker offers outcome one at 50 %; the bettor takes 10 on outcome two (pot 20).
      const marketHash = await openFirstMarket(maker.page, suite.exchange);
      await placeLimit(maker.page, 1, '50', '10');
      await expect.poll(() => maker.page.getByTestId('order-row').count(), WAIT).toBe(1);
      expect(await openFirstMarket(bettor.page, suite.exchange)).toBe(marketHash);
      const game = (await bettor.page.getByTestId('market-head').locator('h2').textContent())!.trim();
      await takeBest(bettor.page, 2, '10');

      // The maker offers outcome two at 50 %; the bettor hedges with 6 on outcome one (pot 12): of the 16
      // staked it is sure to collect 12, which comes back at once.
      await expect.poll(() => maker.page.getByTestId('order-row').count(), WAIT).toBe(0);
      await placeLimit(maker.page, 2, '50', '6');
      await takeBest(bettor.page, 1, '6');
      // The trading page's bets say so too: the hedge's refund is on the bet it came back from.
      await expect.poll(() => bettor.page.getByTestId('trade-refund').count(), WAIT).toBe(1);

      await bettor.page.goto(`${suite.exchange.url}/#/account`);
      const refund = bettor.page.getByTestId('refund-row');
      await expect.poll(() => refund.count(), WAIT).toBe(1);
      expect(await refund.getAttribute('data-amount')).toBe((12n * USDC).toString());
      const position = bettor.page.getByTestId('position-row');
      await expect.poll(() => position.getByTestId('position-refunded').textContent(), WAIT).toBe('12.00');
      expect(await position.getByTestId('position-guaranteed').textContent()).toBe('12.00');
      expect(await position.getByTestId('position-max-loss').textContent()).toBe('4.00');
      await expect.poll(() => bettor.page.getByTestId('trade-refund').count(), WAIT).toBe(1);
      expect(await horizontalOverflow(bettor.page)).toBeLessThanOrEqual(0);
      await checkedScreenshot(bettor.page, 'account-phone-hedged', 'Refunds (12.00 USDC)');

      // After a reload, with no market selected, every row is named with its game and market.
      await bettor.page.reload();
      await expect.poll(() => bettor.page.getByTestId('trade-row').count(), WAIT).toBe(2);
      for (const testId of ['trade-row', 'fill-row', 'history-row']) {
        const rows = bettor.page.getByTestId(testId);
        await expect.poll(() => rows.count(), WAIT).toBeGreaterThan(0);
        for (const text of await rows.allTextContents()) expect(text).toContain(game);
      }
      // The bettor's two takes ended (filled, or matched with a rest of rounding dust) and stay in the history.
      await expect.poll(() => bettor.page.getByTestId('history-reason').count(), WAIT).toBe(2);
      for (const reason of await bettor.page.getByTestId('history-reason').allTextContents())
        expect(reason).toMatch(/^(Filled|Matched 10\.00 of|Matched 6\.00 of)/);

      // The maker places and cancels an order through the API while none of its pages is open: its account
      // page lists it in the history all the same, read from the exchange.
      const makerApi = await pageClient(maker.page, suite.exchange.url, privateKeyToAccount(MAKER_KEY));
      await maker.page.goto('about:blank');
      const unseen = await makerApi.placeOrder({
        marketHash,
        tick: 320,
        totalBetSize: 2n * USDC,
        isMakerBettingOutcomeOne: true,
      });
      expect((await makerApi.cancelOrders([unseen.orderId!])).cancelled).toHaveLength(1);
      await maker.page.goto(`${suite.exchange.url}/#/account`);
      const unseenRow = maker.page.locator(`[data-testid="history-row"][data-order-id="${unseen.orderId}"]`);
      await expect.poll(() => unseenRow.count(), WAIT).toBe(1);
      expect(await unseenRow.getAttribute('data-reason')).toBe('USER_REQUESTED');

      // The operator resolves for outcome two: the first bet's 20 returns, 12 of it already refunded.
      const resolved = await suite.exchange.admin('POST', `/admin/markets/${marketHash}/resolve`, {
        outcome: 2,
      });
      expect(resolved.status).toBe(200);
      await expect
        .poll(() => bettor.page.getByTestId('trade-status').allTextContents(), WAIT)
        .toEqual(['SETTLED', 'SETTLED']);
      await expect.poll(() => bettor.page.getByTestId('settled-row').count(), WAIT).toBe(1);
      const payouts = await bettor.page.getByTestId('trade-payout').allTextContents();
      expect(payouts.join('\n')).not.toContain('20.00 paid');
      expect(payouts.join('\n')).toContain('8.00 paid at settlement');
      expect(await bettor.page.getByTestId('settled-paid').textContent()).toBe('8.00');
      expect(await bettor.page.getByTestId('settled-profit').textContent()).toBe('+4.00');

      // The page's numbers add up to the balance, to the base unit.
      const stakes = await unitsOf(bettor.page, 'trade-row', 'data-stake');
      const credited = await unitsOf(bettor.page, 'trade-row', 'data-credited');
      const refunds = await unitsOf(bettor.page, 'refund-row', 'data-amount');
      const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
      const expected = start - sum(stakes) + sum(refunds) + sum(credited);
      await expect
        .poll(
          async () => BigInt((await bettor.page.getByTestId('available').getAttribute('data-units')) ?? '0'),
          WAIT,
        )
        .toBe(expected);
      expect(expected).toBe(104n * USDC);
      expect(await bettor.page.getByTestId('escrowed').getAttribute('data-units')).toBe('0');
      const profits = await unitsOf(bettor.page, 'settled-row', 'data-profit');
      expect(start + sum(profits)).toBe(expected);

      expect(await horizontalOverflow(bettor.page)).toBeLessThanOrEqual(0);
      await checkedScreenshot(bettor.page, 'account-phone-settled', 'Paid at settlement');
      await bettor.page.setViewportSize(DESKTOP);
      expect(await horizontalOverflow(bettor.page)).toBeLessThanOrEqual(0);
      await checkedScreenshot(bettor.page, 'account-desktop-settled', 'Paid at settlement');
    } finally {
      await maker.context.close();
      await bettor.context.close();
    }
  }, 300_000);
});
