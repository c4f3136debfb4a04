import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createAdminClient,
  createExchangeClient,
  type ExchangeClient,
  parseTokenAmount,
} from '@oddsbook/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MARKET_MAKER_FILE, DEMO_MARKET_MAKER_LABEL } from '../../src/demo/demo-market-maker.js';
import { type ServingProcess, startServe } from '../helpers/cli-process.js';
import { ADMIN_TOKEN, removeDataDir } from '../helpers/test-exchange.js';

/** Polls `probe` every 250 ms until `ok` holds (the whole wait bounded by the test's timeout). */
async function poll<T>(probe: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 240; i++) {
    const value = await probe();
    if (ok(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what}: not seen within a minute`);
}

describe('the demo market maker of a fresh DEMO=1 server', () => {
  let dataDir: string;
  let server: ServingProcess;
  let admin: ReturnType<typeof createAdminClient>;
  let maker: ExchangeClient;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-demo-mm-'));
    server = await startServe({ DATA_DIR: dataDir, DEMO: '1', ADMIN_TOKEN, BLOCK_TIME_MS: '50' });
    admin = createAdminClient({ baseUrl: server.url, adminToken: ADMIN_TOKEN });
    await poll(
      async () => server.lines.some((line) => line.msg === 'demo market maker quoting'),
      Boolean,
      'the demo market maker starting',
    );
    const stored = JSON.parse(readFileSync(join(dataDir, DEMO_MARKET_MAKER_FILE), 'utf8'));
    maker = createExchangeClient({ baseUrl: server.url, apiKey: stored.apiKey });
  }, 120_000);
  afterAll(async () => {
    maker?.close();
    await server?.stop();
    removeDataDir(dataDir);
  });

  it('quotes demo markets on both sides from a labelled account; a fill makes it re-quote; a closed market is pulled', async () => {
    const address = await maker.accountAddress();
    const keys = await admin.listApiKeys(address);
    expect(JSON.stringify(keys)).toContain(DEMO_MARKET_MAKER_LABEL);
    // The metadata names it, so that the pages can say whose quotes a bettor meets.
    expect((await maker.getMetadata()).demoMarketMaker?.toLowerCase()).toBe(address.toLowerCase());

    // A market of a fixture not in play (no betting delay): its book fills on both sides.
    const markets = [];
    for await (const market of maker.activeMarkets({ pageSize: 50 })) markets.push(market);
    const market = markets.find((m) => m.gameTime > Date.now() / 1000 + 3600)!;
    const { marketHash } = market;
    const book = await poll(
      () => maker.getOrderBook(marketHash),
      (b) => b.outcomeOne.length > 0 && b.outcomeTwo.length > 0,
      'both sides of a demo book',
    );
    expect(book.outcomeOne.length + book.outcomeTwo.length).toBeGreaterThanOrEqual(2);
    const before = await poll(
      () => maker.listOrders({ marketHash }),
      (page) => page.orders.length === 4,
      "the maker's four orders",
    );

    // A bettor takes the best offer on outcome one: the maker posts a fresh ladder.
    const taker = await newBettor(server.url);
    const live = await taker.watchBook(marketHash);
    const best = live.taker?.outcomeOne?.[0];
    expect(best).toBeDefined();
    const [result] = await taker.placeOrders(
      [
        {
          marketHash,
          percentageOdds: BigInt(best!.percentageOdds),
          totalBetSize: parseTokenAmount('2'),
          isMakerBettingOutcomeOne: true,
          timeInForce: 'IOC',
        },
      ],
      { waitForOutcome: true },
    );
    expect(BigInt(result!.outcome?.fillAmount ?? '0')).toBeGreaterThan(0n);
    taker.close();
    const previous = new Set(before.orders.map((o) => o.id));
    const requoted = await poll(
      () => maker.listOrders({ marketHash }),
      (page) => page.orders.length === 4 && page.orders.every((o) => !previous.has(o.id)),
      'a fresh ladder after the fill',
    );
    expect(requoted.orders.filter((o) => o.isBettingOutcomeOne)).toHaveLength(2);

    // The fixture finishes: its markets close, the maker pulls them and posts no more there.
    await admin.setFixtureStatus(market.sportXeventId, 3);
    await poll(
      async () =>
        server.lines.some(
          (line) =>
            line.msg === 'demo market maker: market closed, quotes pulled' && line.marketHash === marketHash,
        ),
      Boolean,
      'the closed market pulled',
    );
    expect((await maker.listOrders({ marketHash })).orders).toEqual([]);
  }, 180_000);
});

async function newBettor(baseUrl: string): Promise<ExchangeClient> {
  const signer = privateKeyToAccount(generatePrivateKey());
  const admin = createAdminClient({ baseUrl, adminToken: ADMIN_TOKEN });
  const { apiKey } = await admin.createApiKey({ address: signer.address });
  const client = createExchangeClient({ baseUrl, apiKey, signer });
  let proxy = await client.deployProxy();
  while (proxy.pending) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    proxy = await client.getProxy();
  }
  await admin.faucet(signer.address, parseTokenAmount('100'));
  return client;
}
