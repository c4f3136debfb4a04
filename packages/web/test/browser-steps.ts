import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { type RunningExchange, screenshot } from './browser-harness.js';

// Two well-known test keys (never of any value).
export const MAKER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const TAKER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
export const MAINNET_CHAIN_ID = 4162;
export const WAIT = { timeout: 60_000 };

/** A screenshot that rendered: a real image, and the page shows the text it should. */
export async function checkedScreenshot(page: Page, name: string, text: string) {
  await expect.poll(() => page.locator('body').textContent(), WAIT).toContain(text);
  const shot = await screenshot(page, name);
  expect(shot.bytes).toBeGreaterThan(10_000);
  return shot;
}

/** From a fresh page: sign in with the wallet, create a key, deploy the proxy; the operator's faucet funds it. */
export async function onboard(page: Page, exchange: RunningExchange, address: string, name: string) {
  await page.goto(`${exchange.url}/#/account`);
  await page.getByRole('button', { name: 'Connect wallet and sign in' }).click();
  await expect.poll(() => page.getByTestId('session-address').textContent(), WAIT).toBe(address);
  await page.getByLabel('Key label').fill(`${name} browser`);
  await page.getByRole('button', { name: 'Create API key' }).click();
  await expect.poll(() => page.getByTestId('new-key').textContent(), WAIT).toMatch(/[0-9a-f]{64}/);
  await expect.poll(() => page.getByTestId('key-row').count(), WAIT).toBe(1);
  await page.getByRole('button', { name: 'Deploy proxy wallet' }).click();
  await expect.poll(() => page.getByTestId('proxy-state').textContent(), WAIT).toBe('deployed');
  const faucet = await exchange.admin('POST', '/admin/faucet', { address, amount: '100000000' });
  expect(faucet.status).toBe(200);
  await expect.poll(() => page.getByTestId('available').textContent(), WAIT).toBe('100.00 USDC');
}

/** On the trading page: the first league (chosen for you), its first game, that game's first market. */
export async function openFirstMarket(page: Page, exchange: RunningExchange): Promise<string> {
  await page.goto(`${exchange.url}/#/trade`);
  await page.getByTestId('fixture').first().click();
  await page.getByTestId('market').first().click();
  const hash = await page.getByTestId('market-head').getAttribute('data-market-hash');
  expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
  await expect.poll(() => page.getByTestId('book-feed').textContent(), WAIT).toBe('streaming');
  return hash!;
}
