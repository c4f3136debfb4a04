import { createExchangeClient, parseTokenAmount } from '@oddsbook/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ParlayQuoter, startParlayQuoter } from '../../../examples/parlay-quoting.js';
import { tokenAmount } from '../src/lib/display.js';
import {
  buildWeb,
  chromiumAvailable,
  launchChromium,
  type RunningExchange,
  startExchange,
  walletContext,
} from './browser-harness.js';
import { checkedScreenshot, MAINNET_CHAIN_ID, onboard, TAKER_KEY, WAIT } from './browser-steps.js';
import { fundedClient } from './trading-steps.js';

const available = chromiumAvailable();
const PHONE = { width: 390, height: 844 };
const QUOTE_WINDOW_MS = 8000;

/** Whether the page is wider than its viewport (the body scrolls sideways), and the slip than itself. */
async function overflow(page: Page): Promise<{ page: number; slip: number }> {
  return page.evaluate(() => {
    const slip = document.querySelector('[data-testid="parlay-slip"]');
    return {
      page: document.documentElement.scrollWidth - window.innerWidth,
      slip: slip ? slip.scrollWidth - slip.clientWidth : 0,
    };
  });
}

/** Opens the `index`th game of the first league, its first market, and adds `outcome` of it to the slip. */
async function addLeg(page: Page, index: number, outcome: 1 | 2): Promise<string> {
  const fixture = page.getByTestId('fixture').nth(index);
  const home = (await fixture.locator('span').first().textContent())!.split(' – ')[0]!;
  await fixture.click();
  // The games' market list reloads on a click: pick its first market once the market shown is this game's.
  await expect
    .poll(async () => {
      await page.getByTestId('market').first().click();
      return page.getByTestId('market-head').locator('h2').textContent();
    }, WAIT)
    .toContain(home);
  const hash = (await page.getByTestId('market-head').getAttribute('data-market-hash'))!;
  const legs = await page.getByTestId('slip-leg').count();
  await page.getByTestId(`add-leg-${outcome}`).click();
  await expect.poll(() => page.getByTestId('slip-leg').count(), WAIT).toBe(legs + 1);
  return hash;
}

describe.skipIf(!available)('the parlay slip in Chromium', () => {
  let exchange: RunningExchange;
  let browser: Browser;
  let quoter: ParlayQuoter | undefined;
  const quoterLog: string[] = [];
  beforeAll(async () => {
    buildWeb();
    // A quote window longer than the default 3 s: the bot must offer within it on a loaded test machine too.
    exchange = await startExchange({ env: { PARLAY_QUOTE_WINDOW_MS: String(QUOTE_WINDOW_MS) } });
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await quoter?.stop();
    await browser?.close();
    await exchange?.stop();
  });

  it('a bettor builds a 3-leg parlay on a phone, a quoting bot offers, the bettor takes it, the legs settle it with the fee', async () => {
    const bettor = await walletContext(browser, TAKER_KEY, MAINNET_CHAIN_ID);
    try {
      await onboard(bettor.page, exchange, bettor.address, 'bettor');
      const page = bettor.page;
      await page.setViewportSize(PHONE);
      await page.goto(`${exchange.url}/#/trade`);

      // Three legs from three games (the first game is in play: the next three), one outcome of each.
      const picks = [
        { index: 1, outcome: 1 as const },
        { index: 2, outcome: 2 as const },
        { index: 3, outcome: 1 as const },
      ];
      const legs: { marketHash: string; outcome: 1 | 2 }[] = [];
      for (const pick of picks)
        legs.push({ marketHash: await addLeg(page, pick.index, pick.outcome), ...pick });
      const slip = page.getByTestId('parlay-slip');
      expect(await slip.textContent()).toContain('3 legs');
      expect(await overflow(page)).toEqual({ page: 0, slip: 0 });
      await checkedScreenshot(page, 'parlay-slip-phone', 'Request offers');
      // A reload keeps the slip (its legs, per account, in this browser).
      await page.reload();
      await expect.poll(() => slip.textContent(), WAIT).toContain('3 legs');

      // The legs' books: makers bet outcome one at 53 % and outcome two at 43 % on each (fair 55 / 45 %).
      const liquidity = await fundedClient(exchange.url, 'liquidity');
      for (const { marketHash } of legs)
        await liquidity.placeOrders([
          { marketHash, tick: 424, totalBetSize: parseTokenAmount('20'), isMakerBettingOutcomeOne: true },
          { marketHash, tick: 344, totalBetSize: parseTokenAmount('20'), isMakerBettingOutcomeOne: false },
        ]);
      // The quoting bot of examples/, in this process: 3 % over the legs' product, up to 20 USDC a bettor.
      quoter = await startParlayQuoter(await fundedClient(exchange.url, 'quoter'), {
        margin: parseTokenAmount('3', 18),
        maxStake: parseTokenAmount('20'),
        expirySeconds: 120,
        log: (line) => quoterLog.push(line),
      });

      await slip.getByLabel('Parlay stake').fill('10');
      await slip.getByRole('button', { name: 'Request offers' }).click();
      // The quote window counts down (it may have passed on a slow machine), then the offers show.
      const offer = page.getByTestId('parlay-offer');
      await expect
        .poll(
          async () => (await page.getByTestId('parlay-countdown').count()) > 0 || (await offer.count()) > 0,
          WAIT,
        )
        .toBe(true);
      await expect.poll(() => offer.count(), WAIT).toBe(1);
      // 55 % x 45 % x 55 % + 3 %, up onto the ladder: 16.625 % (decimal 6.015), up to the 10 USDC asked.
      expect(await offer.textContent()).toContain('16.625 %');
      expect(await offer.getAttribute('title')).toContain('decimal 6.015');
      expect(await offer.textContent()).toContain('10.00');
      expect(await page.getByTestId('parlay-take-countdown').textContent()).toMatch(
        /^Take an offer within \d+ s$/,
      );
      expect(quoterLog.some((l) => l.includes('16.625 % to the bettor'))).toBe(true);
      expect(await overflow(page)).toEqual({ page: 0, slip: 0 });
      await checkedScreenshot(page, 'parlay-offers-phone', 'Take an offer within');
      // A reload while the offers can be taken keeps the request: the same offer, within the same minute.
      await page.reload();
      await expect.poll(() => offer.count(), WAIT).toBe(1);
      expect(await offer.textContent()).toContain('16.625 %');
      expect(await slip.getByLabel('Parlay stake').inputValue()).toBe('10');

      // Taken, signed in the wallet like any bet.
      await offer.getByRole('button', { name: 'Take' }).click();
      await expect
        .poll(() => page.getByTestId('parlay-result').textContent(), WAIT)
        // The exchange's lots leave a few base units of the 10 USDC unmatched (an IOC: cancelled).
        .toMatch(/^Matched (9\.99\d+|10\.00) USDC/);
      const bet = page.getByTestId('parlay-bet');
      await expect.poll(() => bet.count(), WAIT).toBe(1);
      const legStatus = bet.getByTestId('parlay-leg-status');
      await expect.poll(() => legStatus.allTextContents(), WAIT).toEqual(['open', 'open', 'open']);
      expect(quoterLog.some((l) => l.startsWith('taken '))).toBe(true);

      // The operator grades the legs one by one, each the bettor's way.
      const statuses = [
        ['won', 'open', 'open'],
        ['won', 'won', 'open'],
        ['won', 'won', 'won'],
      ];
      for (const [i, leg] of legs.entries()) {
        const resolved = await exchange.admin('POST', `/admin/markets/${leg.marketHash}/resolve`, {
          outcome: leg.outcome,
        });
        expect(resolved.status).toBe(200);
        await expect.poll(() => legStatus.allTextContents(), WAIT).toEqual(statuses[i]);
      }
      await expect.poll(() => bet.getByTestId('parlay-bet-status').textContent(), WAIT).toBe('SETTLED');

      // Paid net of the parlay fee, which the page shows as the exchange's trade row has it.
      const apiKey = await page.evaluate(
        () => (JSON.parse(sessionStorage.getItem('oddsbook.auth') ?? '{}') as { apiKey: string }).apiKey,
      );
      const rows = (await createExchangeClient({ baseUrl: exchange.url, apiKey }).listTrades()).trades.filter(
        (t) => t.isParlay,
      );
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row.status).toBe('SETTLED');
      expect(BigInt(row.fee)).toBeGreaterThan(0n);
      expect(BigInt(row.settlement!.payout) + BigInt(row.fee)).toBe(BigInt(row.potentialPayout));
      const fee = tokenAmount(row.fee);
      expect(await bet.getByTestId('parlay-fee').textContent()).toContain(`Parlay fee ${fee}`);
      expect(await bet.getByTestId('parlay-bet-result').textContent()).toMatch(
        /^Won: [\d.]+ paid \(fee [\d.]+\)$/,
      );
      // The bet's rows in the other tables name it a parlay too.
      expect(await page.getByTestId('trade-row').first().getByTestId('row-name').textContent()).toMatch(
        /^Parlay Parlay of 3 legs/,
      );
      expect(await page.getByTestId('fill-row').first().textContent()).toContain('Parlay');
      expect(await overflow(page)).toEqual({ page: 0, slip: 0 });
      await checkedScreenshot(page, 'parlay-settled-phone', 'Parlay fee');

      // The same page at desktop width.
      await page.setViewportSize({ width: 1280, height: 900 });
      expect((await overflow(page)).page).toBe(0);
      await checkedScreenshot(page, 'parlay-settled-desktop', 'Parlay fee');
      expect(bettor.cspViolations).toEqual([]);
    } finally {
      await bettor.context.close();
    }
  }, 300_000);
});
