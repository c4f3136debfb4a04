import {
  createAdminClient,
  createExchangeClient,
  type ExchangeClient,
  parseTokenAmount,
  type ViemAccountLike,
} from '@oddsbook/client';
import type { Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ADMIN_TOKEN } from './browser-harness.js';

/** A new account with a deployed proxy wallet and 1,000 test USDC, traded through the SDK (no page). */
export async function fundedClient(url: string, label: string): Promise<ExchangeClient> {
  const signer = privateKeyToAccount(generatePrivateKey());
  const admin = createAdminClient({ baseUrl: url, adminToken: ADMIN_TOKEN });
  const { apiKey } = await admin.createApiKey({ address: signer.address, label });
  const client = createExchangeClient({ baseUrl: url, apiKey, signer });
  let proxy = await client.deployProxy();
  while (!proxy.deployed) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    proxy = await client.getProxy();
  }
  await admin.faucet(signer.address, parseTokenAmount('1000'));
  return client;
}

/** A client with the API key the page made and keeps in its tab (sessionStorage), signing with `signer`. */
export async function pageClient(page: Page, url: string, signer?: ViemAccountLike): Promise<ExchangeClient> {
  const apiKey = await page.evaluate(
    () => (JSON.parse(sessionStorage.getItem('oddsbook.auth') ?? '{}') as { apiKey?: string }).apiKey,
  );
  if (!apiKey) throw new Error('the page has no API key');
  return createExchangeClient({ baseUrl: url, apiKey, signer });
}

/** The top of an element in the document (not the viewport), in CSS pixels. */
export async function documentTop(page: Page, testId: string): Promise<number> {
  return page
    .getByTestId(testId)
    .first()
    .evaluate((el) => el.getBoundingClientRect().top + window.scrollY);
}
