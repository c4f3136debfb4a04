import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { clickLevel, DESKTOP, horizontalOverflow, PHONE } from './account-steps.js';
import { chromiumAvailable, exchangeAndBrowser, walletContext } from './browser-harness.js';
import {
  checkedScreenshot,
  MAINNET_CHAIN_ID,
  MAKER_KEY,
  onboard,
  openFirstMarket,
  WAIT,
} from './browser-steps.js';
import { documentTop, fundedClient, pageClient } from './trading-steps.js';

const available = chromiumAvailable();
/** 55.125 %: a ladder step that two decimals would round. */
const ODDS = 55_125n * 10n ** 15n;

describe.skipIf(!available)('the trading page: phones, odds formats, honest order entry, market data', () => {
  const suite = exchangeAndBrowser();

  it('bets at 55.125 % exactly with a chosen expiry, shows it in every format, and fits a phone', async () => {
    const bettor = await walletContext(suite.browser, MAKER_KEY, MAINNET_CHAIN_ID);
    const { page } = bettor;
    try {
      await onboard(page, suite.exchange, bettor.address, 'layout');
      const marketHash = await openFirstMarket(page, suite.exchange);
      const [market] = await (await pageClient(page, suite.exchange.url)).findMarkets([marketHash]);
      const typeLabel = await page.getByTestId('market-type').textContent();
      expect(typeLabel).toMatch(
        /^(Moneyline|Match result|Total -?[\d.]+|Handicap -?[\d.]+)( \(quarter line\))?$/,
      );
      if (market!.line !== null) expect(typeLabel).toContain(String(market!.line));
      expect(await page.getByTestId('market-tape').textContent()).toContain('Nothing traded yet');

      // The stake is checked before the wallet is asked: the minimum and the free balance are named.
      const form = page.getByTestId('order-form');
      expect(await page.getByTestId('stake-limits').textContent()).toMatch(
        /^Minimum stake [\d.]+ USDC · 100\.00 USDC free to bet$/,
      );
      await form.getByLabel('Stake').fill('0.000001');
      await expect
        .poll(() => page.getByTestId('order-problem').textContent())
        .toMatch(/minimum of [\d.]+ USDC/);
      expect(await form.getByRole('button', { name: 'Place bet' }).isDisabled()).toBe(true);
      await form.getByLabel('Stake').fill('1000');
      await expect
        .poll(() => page.getByTestId('order-problem').textContent())
        .toContain('100.00 USDC your balance');

      // A resting order at 55.125 %, typed as shown, with the default expiry (the game's start, or a day).
      await form.getByLabel('Probability').fill('55.125');
      await form.getByLabel('Stake').fill('10');
      await form.getByLabel('Time in force').selectOption('GTC');
      const expiryChoice = await form.getByLabel('Expires').inputValue();
      const placedAt = Math.floor(Date.now() / 1000);
      await form.getByRole('button', { name: 'Place bet' }).click();
      const result = page.getByTestId('order-result');
      await expect.poll(() => result.textContent(), WAIT).toBe('Your order is on the book.');
      expect(await result.getAttribute('data-tone')).toBe('success');
      const { orders } = await (await pageClient(page, suite.exchange.url)).listOrders({ perPage: 10 });
      expect(orders).toHaveLength(1);
      expect(BigInt(orders[0]!.percentageOdds)).toBe(ODDS);
      const expiry = Date.parse(orders[0]!.expiry) / 1000;
      if (market!.gameTime > placedAt + 120) {
        expect(expiryChoice).toBe('gameStart');
        expect(expiry).toBe(market!.gameTime);
      } else {
        expect(expiryChoice).toBe('1d');
        expect(Math.abs(expiry - (placedAt + 86_400))).toBeLessThan(600);
      }

      // Another market: the last result does not follow; back on this one, neither does it stay.
      await page.getByTestId('market').nth(1).click();
      await expect
        .poll(() => page.getByTestId('market-head').getAttribute('data-market-hash'))
        .not.toBe(marketHash);
      expect(await result.count()).toBe(0);
      await page.getByTestId('market').first().click();
      await expect
        .poll(() => page.getByTestId('market-head').getAttribute('data-market-hash'))
        .toBe(marketHash);
      expect(await result.count()).toBe(0);

      // A taker sees 44.875 % on the other outcome; the page shows it exactly, and clicking types it back.
      const level = page.getByTestId('level-2').first();
      await expect.poll(() => level.textContent(), WAIT).toContain('44.875 %');
      await level.click();
      await expect.poll(() => form.getByLabel('Probability').inputValue()).toBe('44.875');
      expect(await page.getByTestId('order-result').count()).toBe(0);

      // Decimal, then American: the ladder and the field follow; the choice is kept after a reload.
      await page.getByLabel('Odds format').selectOption('decimal');
      await expect.poll(() => level.textContent()).toContain('2.228');
      await expect.poll(() => form.getByLabel('Odds: decimal').inputValue()).toBe('2.228');
      await page.getByLabel('Odds format').selectOption('american');
      await expect.poll(() => level.textContent()).toContain('+122.84');
      await expect.poll(() => form.getByLabel('Odds: american').inputValue()).toBe('+122.84');
      await page.reload();
      await page.getByTestId('fixture').first().click();
      await page.getByTestId('market').first().click();
      expect(await page.getByLabel('Odds format').inputValue()).toBe('american');
      await expect.poll(() => page.getByTestId('level-2').first().textContent(), WAIT).toContain('+122.84');
      await page.getByLabel('Odds format').selectOption('probability');

      // Someone takes 4 USDC of it: the page shows the last traded price and the matched volume.
      const taker = await fundedClient(suite.exchange.url, 'layout taker');
      const [taken] = await taker.placeOrders(
        [
          {
            marketHash,
            percentageOdds: 44_875n * 10n ** 15n,
            totalBetSize: 4_000_000n,
            isMakerBettingOutcomeOne: false,
            timeInForce: 'IOC',
          },
        ],
        { waitForOutcome: true },
      );
      expect(taken!.outcome?.state).toBe('FULLY_FILLED');
      await expect
        .poll(() => page.getByTestId('market-tape').textContent(), WAIT)
        .toMatch(
          new RegExp(
            `^Last traded 44\\.875 % on ${regexText(market!.outcomeTwoName)} · matched [\\d.]+ USDC in 1 bet$`,
          ),
        );

      // A take on the taker's own resting order: while the exchange holds it for the betting delay the
      // button says so, not "Sign in your wallet" (its texts are recorded as they change).
      await taker.placeOrders([
        {
          marketHash,
          percentageOdds: 60n * 10n ** 18n,
          totalBetSize: 10_000_000n,
          isMakerBettingOutcomeOne: true,
          timeInForce: 'GTC',
        },
      ]);
      await expect.poll(() => level.textContent(), WAIT).toContain('40.00 %');
      await clickLevel(page, level);
      await form.getByLabel('Stake').fill('2');
      await recordButtonTexts(page);
      await form.getByRole('button', { name: 'Place bet' }).click();
      await expect.poll(() => result.textContent(), WAIT).toMatch(/^Matched [\d.]+ USDC\.$/);
      const texts = await buttonTexts(page);
      expect(texts[0]).toBe('Sign in your wallet…');
      if (market!.bettingDelay > 0)
        expect(texts).toContain(`Waiting out the ${market!.bettingDelay} s betting delay…`);
      expect(texts.at(-1)).toBe('Place bet');

      // A phone: nothing scrolls sideways, and the ladder and the bet slip come before the lists.
      await page.setViewportSize(PHONE);
      await expect.poll(() => horizontalOverflow(page)).toBeLessThanOrEqual(0);
      const catalogTop = await documentTop(page, 'catalog');
      expect(await documentTop(page, 'ladder')).toBeLessThan(catalogTop);
      expect(await documentTop(page, 'order-form')).toBeLessThan(catalogTop);
      expect(await documentTop(page, 'ladder')).toBeLessThan(PHONE.height);
      await checkedScreenshot(page, 'trading-phone', '44.875 %');
      // The lists fold away.
      await page.locator('.catalog-section > summary').first().click();
      expect(await page.locator('.catalog-section').first().getAttribute('open')).toBeNull();

      await page.setViewportSize(DESKTOP);
      await expect.poll(() => horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await checkedScreenshot(page, 'trading-desktop', '44.875 %');

      // Resolved: the page says so and takes no more bets on it.
      const resolved = await suite.exchange.admin('POST', `/admin/markets/${marketHash}/resolve`, {
        outcome: 2,
      });
      expect(resolved.status).toBe(200);
      await expect
        .poll(() => page.getByTestId('market-closed').textContent(), WAIT)
        .toContain(`resolved: ${market!.outcomeTwoName} won`);
      expect(await page.getByTestId('order-form').count()).toBe(0);
      expect(bettor.cspViolations).toEqual([]);
    } finally {
      await bettor.context.close();
    }
  }, 240_000);

  it('finds a game by team name and opens its markets; a phone without a market shows no sideways scroll', async () => {
    const context = await suite.browser.newContext({ viewport: PHONE });
    try {
      const page = await context.newPage();
      await page.goto(`${suite.exchange.url}/#/trade`);
      const fixture = page.getByTestId('fixture').first();
      await expect.poll(() => fixture.count(), WAIT).toBe(1);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      const team = (await fixture.locator('span').first().textContent())!.split(' – ')[0]!;
      await page.getByLabel('Search teams').fill(team.slice(0, 4));
      const hit = page.getByTestId('search-hit').filter({ hasText: team });
      await expect.poll(() => hit.count(), WAIT).toBeGreaterThan(0);
      await hit.first().click();
      await page.getByTestId('market').first().click();
      await expect
        .poll(() => page.getByTestId('market-head').locator('h2').textContent(), WAIT)
        .toContain(team);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    } finally {
      await context.close();
    }
  }, 120_000);
});

const regexText = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** From now on, every text the order form's submit button shows, in order. */
function recordButtonTexts(page: Page): Promise<void> {
  return page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { buttonTexts: string[] }).buttonTexts = seen;
    const button = document.querySelector('[data-testid="order-form"] button[type="submit"]')!;
    new MutationObserver(() => seen.push(button.textContent ?? '')).observe(button, {
      childList: true,
      subtree: true,
      characterData: true,
    });
  });
}

function buttonTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { buttonTexts: string[] }).buttonTexts);
}
