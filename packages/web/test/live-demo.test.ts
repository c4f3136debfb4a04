import { createExchangeClient, type ExchangeClient } from '@oddsbook/client';
import { describe, expect, it } from 'vitest';
import { DESKTOP, horizontalOverflow, PHONE, takeBest } from './account-steps.js';
import { chromiumAvailable, exchangeAndBrowser, walletContext } from './browser-harness.js';
import { checkedScreenshot, MAINNET_CHAIN_ID, onboard, TAKER_KEY, WAIT } from './browser-steps.js';

const available = chromiumAvailable();

/** The sizes of a market's book levels, both sides, sorted: what a maker quotes, wherever its prices are. */
async function levelSizes(client: ExchangeClient, marketHash: string): Promise<string[]> {
  const book = await client.getOrderBook(marketHash);
  return [...book.outcomeOne, ...book.outcomeTwo].map((level) => level.size).sort();
}

describe.skipIf(!available)('the live demo: what a newcomer meets on a fresh server', () => {
  // The server as `npm start` runs it: demo data and its demo market maker.
  const suite = exchangeAndBrowser({ DEMO_MARKET_MAKER: '1' });

  it('the first page, not signed in, shows live ladders quoted by the labelled demo market maker; a bettor at 390 px takes from it and it quotes again', async () => {
    const metadata = await createExchangeClient({ baseUrl: suite.exchange.url }).getMetadata();
    expect(metadata.demoMarketMaker).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const bettor = await walletContext(suite.browser, TAKER_KEY, MAINNET_CHAIN_ID);
    const { page } = bettor;
    try {
      await page.setViewportSize(PHONE);
      // No sign-in, no key: the first league is chosen, its first game and market opened.
      await page.goto(`${suite.exchange.url}/#/trade`);
      await page.getByTestId('fixture').first().click();
      await page.getByTestId('market').first().click();
      await expect.poll(() => page.getByTestId('level-1').count(), WAIT).toBeGreaterThanOrEqual(2);
      await expect.poll(() => page.getByTestId('level-2').count(), WAIT).toBeGreaterThanOrEqual(2);
      const note = page.getByTestId('demo-maker-note');
      expect(await note.textContent()).toContain('demo market maker');
      expect(await note.locator('code').getAttribute('title')).toBe(metadata.demoMarketMaker);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await checkedScreenshot(page, 'trading-phone-demo', 'demo market maker');
      await page.setViewportSize(DESKTOP);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await checkedScreenshot(page, 'trading-desktop-demo', 'demo market maker');

      // Signed in on a phone: a take of 2 USDC from the best level; the bet is named; the maker quotes again.
      await page.setViewportSize(PHONE);
      await onboard(page, suite.exchange, bettor.address, 'demo');
      // The heartbeat's timeout is checked in words, not the exchange's schema text.
      const heartbeat = page.getByTestId('heartbeat-card');
      await heartbeat.getByLabel('Heartbeat timeout (seconds)').fill('5000');
      await heartbeat.getByRole('button', { name: 'Arm / refresh' }).click();
      expect(await heartbeat.getByRole('alert').textContent()).toBe(
        'Give the timeout in whole seconds, from 1 to 3600 (Disarm turns it off).',
      );
      await heartbeat.getByLabel('Heartbeat timeout (seconds)').fill('600');
      await heartbeat.getByRole('button', { name: 'Arm / refresh' }).click();
      await expect
        .poll(() => page.getByTestId('heartbeat-state').textContent(), WAIT)
        .toMatch(/^Armed \(600 s\)/);
      expect(await heartbeat.getByRole('alert').count()).toBe(0);
      await heartbeat.getByRole('button', { name: 'Disarm' }).click();
      await expect.poll(() => page.getByTestId('heartbeat-state').textContent(), WAIT).toBe('Disarmed.');
      await page.goto(`${suite.exchange.url}/#/trade`);
      await page.getByTestId('fixture').first().click();
      await page.getByTestId('market').first().click();
      const game = (await page.getByTestId('market-head').locator('h2').textContent())!.trim();
      const marketHash = (await page.getByTestId('market-head').getAttribute('data-market-hash'))!;
      await expect.poll(() => page.getByTestId('level-1').count(), WAIT).toBeGreaterThanOrEqual(2);
      const book = createExchangeClient({ baseUrl: suite.exchange.url });
      const quoted = await levelSizes(book, marketHash);
      expect(quoted.length).toBeGreaterThanOrEqual(4);
      await takeBest(page, 1, '2');
      await expect.poll(() => page.getByTestId('trade-row').count(), WAIT).toBe(1);
      expect(await page.getByTestId('trade-row').textContent()).toContain(game);

      // The demo maker saw its fill and quotes the market again: its ladder whole, every level its full size.
      await expect.poll(() => levelSizes(book, marketHash), WAIT).toEqual(quoted);
      await expect.poll(() => page.getByTestId('level-1').count(), WAIT).toBeGreaterThanOrEqual(2);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await checkedScreenshot(page, 'trading-phone-demo-bet', game);
    } finally {
      await bettor.context.close();
    }
  }, 300_000);
});
