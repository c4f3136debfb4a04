import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogEvent } from '../../src/catalog/catalog-events.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC, until } from '../helpers/trading.js';

/** The spec's last open rows (issue 38, item 4). */
describe('the spec’s last open rows', () => {
  let t: TestExchange;

  beforeAll(async () => {
    t = await startTestExchange();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('the metadata and the market records carry each market’s betting delay in force, pregame and live', async () => {
    // A market with a delay of its own (20 s): it wins over its league's and sport's, so clients need it.
    const { marketHash } = await createMarket(t, { bettingDelay: 20 });
    const ordinary = await createMarket(t);
    const metadata = (await t.app.inject({ method: 'GET', url: '/metadata/obv3' })).json().data;
    expect(metadata.bettingDelay.marketHashToMs).toMatchObject({ [marketHash]: 20_000 });
    expect(metadata.bettingDelay.marketHashToMs).not.toHaveProperty(ordinary.marketHash);
    const [market] = (
      await t.app.inject({ method: 'GET', url: `/markets/find?marketHashes=${marketHash}` })
    ).json().data;
    expect(market).toMatchObject({ bettingDelay: 0, pregameBettingDelay: 0, liveBettingDelay: 20 });
    const [plain] = (
      await t.app.inject({ method: 'GET', url: `/markets/find?marketHashes=${ordinary.marketHash}` })
    ).json().data;
    // createMarket's fixtures are basketball (sport 1): 8 s live.
    expect(plain).toMatchObject({ pregameBettingDelay: 0, liveBettingDelay: 8 });
  });

  it('quarterLineParentMarketHash is absent, not null, on rows that are no quarter-line legs', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t, 100n * USDC);
    const taker = await createTrader(t, 100n * USDC);
    await place(t, maker, { marketHash, tick: 400, size: 10n * USDC });
    await place(t, taker, { marketHash, tick: 400, size: 10n * USDC, isOne: false, timeInForce: 'IOC' });
    const trades = await until(
      async () =>
        (await t.app.inject({ method: 'GET', url: '/trades-v3', headers: taker.headers })).json().data,
      (data) => data.trades.length === 1,
    );
    expect(trades.trades[0].isQuarterLineLeg).toBe(false);
    expect(trades.trades[0]).not.toHaveProperty('quarterLineParentMarketHash');
    const fills = (await t.app.inject({ method: 'GET', url: '/fills-v3', headers: taker.headers })).json()
      .data;
    expect(fills.fills[0]).not.toHaveProperty('quarterLineParentMarketHash');
  });

  it('moneylines publish on main_line:global like the other main lines', async () => {
    const events: CatalogEvent[] = [];
    const stop = t.exchange.catalog.onChange((event) => events.push(event));
    try {
      const { marketHash } = await createMarket(t); // type 52: the moneyline
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'mainLine', marketType: 52, marketHash }),
      );
    } finally {
      stop();
    }
  });
});

describe('DELETE /orders-v3/market when its cancels cannot be published', () => {
  it('answers 500 CANCEL_NOT_PUBLISHED, as the spec’s table says', async () => {
    const t = await startTestExchange();
    try {
      const user = await t.createUser();
      const { marketHash } = await createMarket(t);
      // The sequencer stops taking commands (as when it is stopping): nothing can reach the order book.
      await t.exchange.trading.sequencer.close();
      const response = await t.app.inject({
        method: 'DELETE',
        url: `/orders-v3/market?marketHash=${marketHash}`,
        headers: user.headers,
      });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toMatchObject({ statusCode: 500, code: 'CANCEL_NOT_PUBLISHED' });
    } finally {
      await t.close();
      removeDataDir(t.dataDir);
    }
  });
});
