import { describe, expect, it } from 'vitest';
import { openDatabase } from '../store/sqlite/open-database.js';
import { createSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { CatalogEvent } from './catalog-events.js';
import { CatalogService } from './catalog-service.js';
import { seedDemoCatalog } from './demo-seed.js';

const START = Date.UTC(2030, 0, 15, 18, 20); // a fixed start time, 18:20 UTC

describe('seedDemoCatalog', () => {
  it('builds fixtures relative to the start time through the service, emitting the usual events', async () => {
    const store = createSqliteStore(openDatabase(':memory:'));
    const catalog = new CatalogService({ repository: store.catalog, clock: { now: () => START } });
    const events: CatalogEvent[] = [];
    catalog.onChange((event) => events.push(event));
    expect(await catalog.isEmpty()).toBe(true);

    const summary = await seedDemoCatalog(catalog, { now: START });
    expect(summary).toEqual({ leagues: 7, fixtures: 30, markets: 92, liveFixtures: 4 });
    expect(await catalog.isEmpty()).toBe(false);

    const fixtures = await catalog.activeFixtures({});
    const start = START / 1000;
    const live = fixtures.filter((f) => f.status === 2);
    expect(live.map((f) => f.teamOneName).sort()).toEqual([
      'Arsenal',
      'Jannik Sinner',
      'Los Angeles Lakers',
      'Toronto Maple Leafs',
    ]);
    expect(live.every((f) => f.gameTime < start)).toBe(true);
    const upcoming = fixtures.filter((f) => f.status === 1);
    expect(upcoming).toHaveLength(26);
    expect(upcoming.every((f) => f.gameTime > start && f.gameTime < start + 6 * 86_400)).toBe(true);
    expect(upcoming.every((f) => f.gameTime % 3600 === 0)).toBe(true);

    expect(events.filter((e) => e.type === 'fixture')).toHaveLength(30 + 4);
    expect(events.filter((e) => e.type === 'liveScore')).toHaveLength(8);
    const scores = await catalog.liveScores(live.map((f) => f.eventId));
    expect(scores).toHaveLength(4);
    expect(await catalog.leagueLiveDelays()).toHaveLength(6);

    // The quarter-line market is linked to its legs: the -1 and the -0.5 (main) spreads of its fixture.
    const arsenal = live.find((f) => f.teamOneName === 'Arsenal')!;
    const spreads = (await catalog.activeMarkets({ eventId: arsenal.eventId, types: [3] })).markets;
    const byLine = new Map(spreads.map((m) => [m.line, m]));
    expect([...byLine.keys()].sort()).toEqual(['-0.5', '-0.75', '-1']);
    expect(byLine.get('-0.75')!.quarterLineLegs).toEqual([
      byLine.get('-1')!.marketHash,
      byLine.get('-0.5')!.marketHash,
    ]);
    expect(byLine.get('-0.5')!.mainLine).toBe(true);
    expect(spreads.filter((m) => m.quarterLineLegs !== null)).toHaveLength(1);
    await store.close();
  });
});
