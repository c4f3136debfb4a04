import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { WAIT } from './browser-steps.js';

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };

/** How far the page is wider than its window, in CSS pixels (0: no horizontal scroll). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** On the trading page's open market: a good-till-cancelled limit order on `outcome` at `probability` %. */
export async function placeLimit(page: Page, outcome: 1 | 2, probability: string, stake: string) {
  const form = page.getByTestId('order-form');
  await form
    .locator('input[type="radio"][name="outcome"]')
    .nth(outcome - 1)
    .check();
  await form.getByLabel('Probability').fill(probability);
  await form.getByLabel('Stake').fill(stake);
  await form.getByLabel('Time in force').selectOption('GTC');
  await form.getByRole('button', { name: 'Place bet' }).click();
}

/**
 * Clicks a ladder level and waits until the order form took it (its stake is the level's size): the form
 * fills in an effect after the click, which a stake typed at once would race.
 */
export async function clickLevel(page: Page, level: Locator) {
  const size = (await level.locator('td').nth(1).textContent())!;
  await level.click();
  await expect.poll(() => page.getByTestId('order-form').getByLabel('Stake').inputValue(), WAIT).toBe(size);
}

/** Takes `stake` of the best level of a ladder column (1 or 2: the outcome the taker bets). */
export async function takeBest(page: Page, column: 1 | 2, stake: string) {
  const level = page.getByTestId(`level-${column}`).first();
  await expect.poll(() => level.count(), WAIT).toBe(1);
  await clickLevel(page, level);
  const form = page.getByTestId('order-form');
  await form.getByLabel('Stake').fill(stake);
  await form.getByRole('button', { name: 'Place bet' }).click();
  await expect.poll(() => form.getByTestId('order-result').textContent(), WAIT).toMatch(/^Matched/);
}

/** A numeric data attribute of every element matching `testId`, as base units. */
export async function unitsOf(page: Page, testId: string, attribute: string): Promise<bigint[]> {
  const values = await page
    .getByTestId(testId)
    .evaluateAll((els, name) => els.map((e) => e.getAttribute(name) ?? ''), attribute);
  return values.map((v) => BigInt(v || '0'));
}
