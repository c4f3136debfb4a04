import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';

type MarketJson = { isQuarterLineMarket: boolean; line: number | null; sportXeventId: string; type: number };

describe('catalog: demo seed', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange({ env: { DEMO: '1' } });
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('seeds about 30 fixtures over the coming days, a few in play with live scores', async () => {
    const fixtures = (await t.app.inject({ method: 'GET', url: '/fixture/active' })).json().data as {
      eventId: string;
      status: number;
      gameTime: number;
      sportId: number;
    }[];
    expect(fixtures.length).toBeGreaterThanOrEqual(28);
    expect(fixtures.length).toBeLessThanOrEqual(32);
    const live = fixtures.filter((f) => f.status === 2);
    expect(live.length).toBeGreaterThanOrEqual(3);
    const now = Date.now() / 1000;
    expect(
      fixtures.filter((f) => f.status === 1).every((f) => f.gameTime > now && f.gameTime < now + 8 * 86400),
    ).toBe(true);
    expect(new Set(fixtures.map((f) => f.sportId)).size).toBeGreaterThanOrEqual(5);

    const scores = (
      await t.app.inject({
        method: 'GET',
        url: `/live-scores?sportXEventIds=${live.map((f) => f.eventId).join(',')}`,
      })
    ).json().data as { sportXEventId: string; periods: unknown[] }[];
    expect(scores.map((s) => s.sportXEventId).sort()).toEqual(live.map((f) => f.eventId).sort());
    expect(scores.every((s) => s.periods.length === 2)).toBe(true);
  });

  it('gives every fixture a moneyline, a spread and a total, and exactly one quarter-line market', async () => {
    const markets: MarketJson[] = [];
    let key: string | null = null;
    do {
      const url: string = `/markets/active?pageSize=50${key ? `&paginationKey=${key}` : ''}`;
      const page = (await t.app.inject({ method: 'GET', url })).json().data as {
        markets: MarketJson[];
        nextKey: string | null;
      };
      markets.push(...page.markets);
      key = page.nextKey;
    } while (key);
    const byEvent = new Map<string, MarketJson[]>();
    for (const m of markets) byEvent.set(m.sportXeventId, [...(byEvent.get(m.sportXeventId) ?? []), m]);
    expect(byEvent.size).toBeGreaterThanOrEqual(28);
    for (const list of byEvent.values()) {
      expect(list.filter((m) => m.line === null)).toHaveLength(1);
      expect(list.filter((m) => m.line !== null).length).toBeGreaterThanOrEqual(2);
    }
    const quarter = markets.filter((m) => m.isQuarterLineMarket);
    expect(quarter).toHaveLength(1);
    expect(quarter[0]!.line).toBe(-0.75);
  });

  it('finds seeded fixtures ignoring case and accents', async () => {
    const hits = (await t.app.inject({ method: 'GET', url: '/search?query=ATLETICO' })).json().data;
    expect(hits).toEqual([
      expect.objectContaining({ teamOneName: 'Atlético Madrid', marketTypes: [1, 2, 3] }),
    ]);
  });

  it('publishes the seeded leagues live delays in the metadata', async () => {
    const metadata = (await t.app.inject({ method: 'GET', url: '/metadata/obv3' })).json().data;
    const leagues = (await t.app.inject({ method: 'GET', url: '/leagues' })).json().data as {
      leagueId: number;
      label: string;
    }[];
    const nba = leagues.find((l) => l.label === 'NBA')!;
    expect(metadata.bettingDelay.leagueIdToMs[String(nba.leagueId)]).toBe(4000);
  });

  it('does not seed again on restart, and DEMO=0 gives an empty catalog', async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/fixture/active' })).json().data as unknown[];
    t = await t.reopen();
    const after = (await t.app.inject({ method: 'GET', url: '/fixture/active' })).json().data as unknown[];
    expect(after).toEqual(before);

    const empty = await startTestExchange();
    try {
      expect((await empty.app.inject({ method: 'GET', url: '/fixture/active' })).json().data).toEqual([]);
      expect((await empty.app.inject({ method: 'GET', url: '/leagues' })).json().data).toEqual([]);
      expect((await empty.app.inject({ method: 'GET', url: '/sports' })).json().data).toHaveLength(20);
    } finally {
      await empty.close();
      removeDataDir(empty.dataDir);
    }
  });
});
