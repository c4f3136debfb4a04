import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalCluster } from '../../server/src/cluster/local-cluster.js';
import { TEST_NATS_URL } from '../../server/src/cluster/test-support.js';
import {
  createTestDatabase,
  type TestDatabase,
} from '../../server/src/store/test-support/postgres-test-database.js';
import { freePort } from '../../server/test/helpers/cli-process.js';
import { stopTestCluster } from '../../server/test/helpers/cluster-http.js';
import { clickLevel } from './account-steps.js';
import {
  ADMIN_TOKEN,
  adminAt,
  buildWeb,
  chromiumAvailable,
  cspViolations,
  exchangeAndBrowser,
  launchChromium,
  type RunningExchange,
  walletContext,
} from './browser-harness.js';
import {
  checkedScreenshot,
  MAINNET_CHAIN_ID,
  MAKER_KEY,
  onboard,
  openFirstMarket,
  TAKER_KEY,
  WAIT,
} from './browser-steps.js';

const available = chromiumAvailable();

describe.skipIf(!available)('the web pages in Chromium', () => {
  const suite = exchangeAndBrowser();

  it('serves the pages at / and keeps the API and its JSON 404 around them', async () => {
    const index = await fetch(`${suite.exchange.url}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/text\/html/);
    expect(await index.text()).toContain('<div id="app">');
    const api = await fetch(`${suite.exchange.url}/sports`);
    expect((await api.json()).status).toBe('success');
    const missing = await fetch(`${suite.exchange.url}/no-such-page`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    for (const answer of [index, api, missing]) {
      expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('cannot be framed by another page', async () => {
    const context = await suite.browser.newContext();
    try {
      const page = await context.newPage();
      const refused = cspViolations(page);
      // Another origin (about:blank's opaque one) frames the account page: the browser refuses to load it.
      await page.setContent(`<iframe src="${suite.exchange.url}/#/account"></iframe>`);
      await expect.poll(() => refused.join('\n'), { timeout: 10_000 }).toContain("frame-ancestors 'none'");
      const framed = page.frames().find((frame) => frame !== page.mainFrame());
      expect(
        await framed
          ?.locator('body')
          .textContent()
          .catch(() => ''),
      ).not.toContain('Sign in');
    } finally {
      await context.close();
    }
  });

  it('a maker and a taker sign in, get keys, fund, bet against each other, add a signer, cancel, and are paid', async () => {
    const maker = await walletContext(suite.browser, MAKER_KEY, MAINNET_CHAIN_ID);
    const taker = await walletContext(suite.browser, TAKER_KEY, MAINNET_CHAIN_ID);
    try {
      await onboard(maker.page, suite.exchange, maker.address, 'maker');
      await onboard(taker.page, suite.exchange, taker.address, 'taker');
      expect(maker.requests).toContain('personal_sign');

      // The multisig: add the taker as a second owner of the maker's proxy, signed in the wallet.
      await maker.page.getByLabel('New signer address').fill(taker.address);
      await maker.page.getByRole('button', { name: 'Add signer' }).click();
      await expect
        .poll(() => maker.page.getByTestId('multisig-progress').textContent(), WAIT)
        .toMatch(/^Executed/);
      await expect.poll(() => maker.page.getByTestId('owners').textContent(), WAIT).toContain(taker.address);
      expect(maker.requests).toContain('eth_signTypedData_v4');
      await checkedScreenshot(maker.page, 'account-page', 'Threshold: 1 of 2');

      // The maker posts a limit order: 10 USDC on outcome one at 55 %, good till cancelled.
      const marketHash = await openFirstMarket(maker.page, suite.exchange);
      const form = maker.page.getByTestId('order-form');
      await form.getByLabel('Probability').fill('55');
      await form.getByLabel('Stake').fill('10');
      await form.getByLabel('Time in force').selectOption('GTC');
      await form.getByRole('button', { name: 'Place bet' }).click();
      await expect.poll(() => maker.page.getByTestId('order-row').count(), WAIT).toBe(1);

      // The taker sees it live as 45 % on outcome two, clicks it and takes 4 USDC of it.
      expect(await openFirstMarket(taker.page, suite.exchange)).toBe(marketHash);
      const level = taker.page.getByTestId('level-2').first();
      await expect.poll(() => level.textContent(), WAIT).toContain('45.00 %');
      expect(await level.getAttribute('title')).toContain('decimal 2.222');
      await checkedScreenshot(taker.page, 'trading-page-ladder', '8.181818');
      await clickLevel(taker.page, level);
      const takerForm = taker.page.getByTestId('order-form');
      await expect.poll(() => takerForm.getByLabel('Time in force').inputValue()).toBe('IOC');
      expect(await takerForm.getByLabel('Probability').inputValue()).toBe('45');
      await takerForm.getByLabel('Stake').fill('4');
      await takerForm.getByRole('button', { name: 'Place bet' }).click();
      await expect
        .poll(() => taker.page.getByTestId('order-result').textContent(), WAIT)
        .toBe('Matched 3.999996 USDC.');
      // The fill goes LOCKED when its escrow lands in a block.
      await expect
        .poll(() => taker.page.getByTestId('trade-status').first().textContent(), WAIT)
        .toBe('LOCKED');
      await checkedScreenshot(taker.page, 'trading-page-locked', 'LOCKED');

      // The maker cancels what is left of its order.
      await maker.page.getByTestId('order-row').getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => maker.page.getByTestId('order-row').count(), WAIT).toBe(0);

      // The operator resolves the market for outcome two: the taker is paid.
      const resolved = await suite.exchange.admin('POST', `/admin/markets/${marketHash}/resolve`, {
        outcome: 2,
      });
      expect(resolved.status).toBe(200);
      await expect
        .poll(() => taker.page.getByTestId('trade-status').first().textContent(), WAIT)
        .toBe('SETTLED');
      expect(await taker.page.getByTestId('trade-payout').first().textContent()).toBe('8.88888 paid');
      await expect
        .poll(() => taker.page.getByTestId('balance-line').textContent(), WAIT)
        .toContain('Available 104.888884 USDC');
      // Rows name the outcome as the market does (the ladder's second column: "Bet <outcome two>").
      const outcomeTwo = (await taker.page.locator('.ladder-side h3').nth(1).textContent())!.replace(
        /^Bet /,
        '',
      );
      expect(await taker.page.getByTestId('trade-row').first().textContent()).toContain(outcomeTwo);
      await checkedScreenshot(taker.page, 'trading-page-settled', 'SETTLED');
      await expect
        .poll(() => maker.page.getByTestId('trade-status').first().textContent(), WAIT)
        .toBe('SETTLED');
      expect(await maker.page.getByTestId('trade-payout').first().textContent()).toBe('0.00 paid');
      // Everything the pages did ran under their Content-Security-Policy, the realtime WebSocket included.
      expect([...maker.cspViolations, ...taker.cspViolations]).toEqual([]);
    } finally {
      await maker.context.close();
      await taker.context.close();
    }
  }, 240_000);

  it('shows a person without a wallet that one is needed, and a refused sign-in in plain words', async () => {
    const context = await suite.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${suite.exchange.url}/#/account`);
      await checkedScreenshot(page, 'account-no-wallet', 'No wallet found in this browser');
      await page.goto(`${suite.exchange.url}/#/trade`);
      await expect.poll(() => page.getByTestId('fixture').count(), WAIT).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
    // A wallet that signs something else than the sign-in message: the exchange refuses, the page says why.
    const tampering = await walletContext(suite.browser, MAKER_KEY, MAINNET_CHAIN_ID, {
      signOtherMessage: true,
    });
    try {
      await tampering.page.goto(`${suite.exchange.url}/#/account`);
      await tampering.page.getByRole('button', { name: 'Connect wallet and sign in' }).click();
      await expect
        .poll(() => tampering.page.getByRole('alert').textContent(), WAIT)
        .toBe('the message was not signed by its address');
      expect(await tampering.page.getByTestId('who').textContent()).toBe('Not signed in');
    } finally {
      await tampering.context.close();
    }
  });
});

/**
 * The same pages through a cluster (issue 37): a sequencer and two API nodes as real processes on the test
 * PostgreSQL and NATS (`LocalCluster`). The maker uses one API node, the taker the other; each sees the
 * other's orders live (the API nodes' realtime hubs follow the leader's publications). It starts its own
 * cluster on PostgreSQL, so it runs once: in `npm test`, not again in the PostgreSQL run.
 */
describe.skipIf(!available || process.env.ODDSBOOK_TEST_STORE === 'postgres')(
  'the web pages through either API node of a cluster',
  () => {
    let database: TestDatabase;
    let cluster: LocalCluster;
    let browser: Browser;
    beforeAll(async () => {
      buildWeb();
      database = await createTestDatabase();
      cluster = new LocalCluster({
        databaseUrl: await database.schema(),
        natsUrl: TEST_NATS_URL,
        cluster: `web${randomBytes(5).toString('hex')}`,
        adminToken: ADMIN_TOKEN,
        // Ports chosen before the start: a page signs in for the origin its node was configured with.
        nodes: [
          { name: 'sequencer-1', role: 'sequencer,projector,chain', port: 0 },
          { name: 'api-1', role: 'api', port: await freePort() },
          { name: 'api-2', role: 'api', port: await freePort() },
        ],
        env: { DEMO: '1', BLOCK_TIME_MS: '50' },
      });
      await cluster.start();
      browser = await launchChromium();
    }, 180_000);
    afterAll(async () => {
      await browser?.close();
      await stopTestCluster(cluster);
      await database?.drop();
    });

    /** An API node as the steps address an exchange: its URL, and the operator routes through it. */
    const node = (name: string): RunningExchange => {
      const url = cluster.node(name).url!;
      return { url, admin: adminAt(url), stop: async () => {} };
    };

    it('a maker on one API node and a taker on the other sign in, fund, bet against each other and are paid', async () => {
      const one = node('api-1');
      const two = node('api-2');
      // Both API nodes serve the pages (registered from dist as each node started).
      for (const { url } of [one, two])
        expect((await fetch(`${url}/`)).headers.get('content-type')).toMatch(/html/);
      const maker = await walletContext(browser, MAKER_KEY, MAINNET_CHAIN_ID);
      const taker = await walletContext(browser, TAKER_KEY, MAINNET_CHAIN_ID);
      try {
        await onboard(maker.page, one, maker.address, 'maker');
        await onboard(taker.page, two, taker.address, 'taker');

        const marketHash = await openFirstMarket(maker.page, one);
        const form = maker.page.getByTestId('order-form');
        await form.getByLabel('Probability').fill('55');
        await form.getByLabel('Stake').fill('10');
        await form.getByLabel('Time in force').selectOption('GTC');
        await form.getByRole('button', { name: 'Place bet' }).click();
        await expect.poll(() => maker.page.getByTestId('order-row').count(), WAIT).toBe(1);

        // The taker, on the other API node, sees the maker's order live and takes 4 USDC of it.
        expect(await openFirstMarket(taker.page, two)).toBe(marketHash);
        const level = taker.page.getByTestId('level-2').first();
        await expect.poll(() => level.textContent(), WAIT).toContain('45.00 %');
        await clickLevel(taker.page, level);
        const takerForm = taker.page.getByTestId('order-form');
        await takerForm.getByLabel('Stake').fill('4');
        await takerForm.getByRole('button', { name: 'Place bet' }).click();
        await expect
          .poll(() => taker.page.getByTestId('order-result').textContent(), WAIT)
          .toBe('Matched 3.999996 USDC.');
        await expect
          .poll(() => taker.page.getByTestId('trade-status').first().textContent(), WAIT)
          .toBe('LOCKED');
        // The maker's page, on the first node, shows the fill the second node's taker made.
        await expect
          .poll(() => maker.page.getByTestId('trade-status').first().textContent(), WAIT)
          .toBe('LOCKED');

        // Resolved through the first node: both are paid, each seen on its own node.
        const resolved = await one.admin('POST', `/admin/markets/${marketHash}/resolve`, { outcome: 2 });
        expect(resolved.status).toBe(200);
        await expect
          .poll(() => taker.page.getByTestId('trade-status').first().textContent(), WAIT)
          .toBe('SETTLED');
        expect(await taker.page.getByTestId('trade-payout').first().textContent()).toBe('8.88888 paid');
        await expect
          .poll(() => taker.page.getByTestId('balance-line').textContent(), WAIT)
          .toContain('Available 104.888884 USDC');
        await checkedScreenshot(taker.page, 'cluster-trading-page-settled', 'SETTLED');
        expect([...maker.cspViolations, ...taker.cspViolations]).toEqual([]);
      } finally {
        await maker.context.close();
        await taker.context.close();
      }
    }, 240_000);
  },
);
