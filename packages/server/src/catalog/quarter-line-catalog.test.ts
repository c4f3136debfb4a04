import { describe, expect, it } from 'vitest';
import { openDatabase } from '../store/sqlite/open-database.js';
import { createSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { CatalogEvent } from './catalog-events.js';
import { CatalogService } from './catalog-service.js';

const NOW = Date.UTC(2030, 0, 15, 18, 0);

async function setUp() {
  const store = createSqliteStore(openDatabase(':memory:'));
  const catalog = new CatalogService({ repository: store.catalog, clock: { now: () => NOW } });
  const events: CatalogEvent[] = [];
  catalog.onChange((event) => events.push(event));
  const { leagueId } = await catalog.createLeague({ sportId: 5, label: 'League' });
  const { eventId } = await catalog.createFixture({
    leagueId,
    teamOneName: 'Inter',
    teamTwoName: 'Milan',
    gameTime: NOW / 1000 + 3600,
  });
  const market = await catalog.createMarket({
    eventId,
    type: 3,
    line: -0.25,
    outcomeOneName: 'Inter -0.25',
    outcomeTwoName: 'Milan +0.25',
  });
  return { store, catalog, events, eventId, market, legs: market.quarterLineLegs! };
}

describe('quarter-line markets in the catalog', () => {
  it('creates the legs through the same call, each with its market event', async () => {
    const { store, catalog, events, market, legs } = await setUp();
    const [whole, half] = await catalog
      .findMarkets(legs)
      .then((found) => legs.map((hash) => found.find((m) => m.marketHash === hash)!));
    expect([whole!.line, whole!.outcomeOneName, whole!.outcomeTwoName]).toEqual(['0', 'Inter 0', 'Milan 0']);
    expect([half!.line, half!.outcomeOneName, half!.outcomeTwoName]).toEqual([
      '-0.5',
      'Inter -0.5',
      'Milan +0.5',
    ]);
    const created = events.flatMap((e) => (e.type === 'market' ? [e.market.marketHash] : []));
    expect(created).toEqual([...legs, market.marketHash]);
    await store.close();
  });

  it('refuses to resolve a quarter-line market, and follows its legs', async () => {
    const { store, catalog, market, legs } = await setUp();
    await expect(catalog.resolveMarket(market.marketHash, 1)).rejects.toMatchObject({
      statusCode: 409,
      code: 'QUARTER_LINE_MARKET',
    });
    expect((await catalog.tradingState(market.marketHash))?.open).toBe(true);
    await catalog.resolveMarket(legs[0], 0);
    const closed = (await catalog.getMarket(market.marketHash))!;
    expect([closed.status, closed.outcome, closed.reportedDate]).toEqual(['INACTIVE', null, null]);
    expect(await catalog.tradingState(market.marketHash)).toMatchObject({
      open: false,
      closedReason: 'MARKET_INACTIVE',
    });
    await catalog.resolveMarket(legs[1], 2);
    const settled = (await catalog.getMarket(market.marketHash))!;
    expect([settled.status, settled.outcome, settled.reportedDate]).toEqual(['INACTIVE', null, NOW / 1000]);
    await store.close();
  });

  it('catches up with legs resolved while it was not told (a stop between the two writes)', async () => {
    const { store, catalog, market, legs } = await setUp();
    await store.catalog.resolveMarket(legs[0], 1, NOW);
    await store.catalog.resolveMarket(legs[1], 1, NOW + 5000);
    expect((await catalog.getMarket(market.marketHash))!.status).toBe('ACTIVE');
    await catalog.followResolvedLegs();
    const settled = (await catalog.getMarket(market.marketHash))!;
    expect([settled.status, settled.reportedDate]).toEqual(['INACTIVE', NOW / 1000 + 5]);
    await store.close();
  });
});
