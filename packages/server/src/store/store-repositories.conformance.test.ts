import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogService } from '../catalog/catalog-service.js';
import { seedDemoCatalog } from '../catalog/demo-seed.js';
import type { CatalogRepository, MarketRecord, MarketView } from './repositories.js';
import { type PortsUnderTest, storesUnderTest } from './test-support/stores-under-test.js';

const T0 = Date.UTC(2030, 0, 15, 18, 20);
const ALICE = '0x00000000000000000000000000000000000000a1';
const BOB = '0x00000000000000000000000000000000000000b2';
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;

const market = (n: number, eventId: string, over: Partial<MarketRecord> = {}): MarketRecord => ({
  marketHash: hash(n),
  eventId,
  type: 3,
  line: `-${n}.5`,
  outcomeOneName: 'One',
  outcomeTwoName: 'Two',
  outcomeVoidName: 'Void',
  mainLine: false,
  liveEnabled: true,
  bettingDelayMs: null,
  minBetSize: 10_000_000_000_000_000_000n,
  status: 'ACTIVE',
  outcome: null,
  reportedDate: null,
  quarterLineLegs: null,
  createdAt: T0 + n,
  updatedAt: T0 + n,
  ...over,
});

/** Every listing of a seeded catalog, as the routes read it. */
async function everyListing(catalog: CatalogRepository) {
  const fixtures = await catalog.listFixtures({ statuses: [1, 2, 3, 4, 5, 6, 7, 8, 9] });
  const eventIds = fixtures.map((f) => f.eventId);
  const pages = [];
  for (let after: MarketView | undefined, page = 0; page < 100; page++) {
    const rows = await catalog.listMarkets({
      fixtureStatuses: [1, 2],
      order: {
        by: 'gameTime',
        ...(after
          ? {
              after: {
                gameTime: after.fixture.gameTime,
                eventId: after.eventId,
                type: after.type,
                marketHash: after.marketHash,
              },
            }
          : {}),
      },
      limit: 7,
    });
    if (rows.length === 0) break;
    pages.push(rows.map((m) => m.marketHash));
    after = rows[rows.length - 1];
  }
  return {
    sports: await catalog.listSports(),
    leagues: await catalog.listLeagues(),
    teams: await catalog.listTeams({}),
    fixtures,
    count: await catalog.countFixtures(),
    byType: await catalog.countEventsByType([1, 2]),
    leaguesWithFixtures: await catalog.leaguesWithFixtures([2]),
    markets: await Promise.all(eventIds.map((id) => catalog.listMarketsOfEvent(id))),
    mainLines: await catalog.listMarkets({ fixtureStatuses: [1, 2], onlyMainLine: true, limit: 500 }),
    liveFirst: await catalog.listMarkets({
      fixtureStatuses: [1, 2],
      order: { by: 'liveFirst', liveStatuses: [2] },
      limit: 20,
    }),
    live: await catalog.listMarkets({ fixtureStatuses: [1, 2], liveFixtureStatuses: [2], limit: 500 }),
    soccer: await catalog.listMarkets({ fixtureStatuses: [1, 2], sportIds: [5], types: [1, 52], limit: 500 }),
    pages,
    types: [...(await catalog.activeMarketTypes(eventIds))],
    scores: await catalog.getLiveScores(eventIds),
    search: await catalog.searchFixtures({ text: 'LAKERS', statuses: [1, 2], limit: 5 }),
  };
}

const stores = await storesUnderTest();

describe.each(stores)('accounts, API keys, server secrets and the catalog on $name', (store) => {
  let ports: PortsUnderTest;
  beforeEach(async () => {
    ports = await store.open();
  });
  afterEach(() => ports.close());

  it('creates an account once and keeps its first time', async () => {
    expect(await ports.store.accounts.get(ALICE)).toBeNull();
    expect(await ports.store.accounts.ensure(ALICE, 5)).toEqual({ address: ALICE, createdAt: 5 });
    expect(await ports.store.accounts.ensure(ALICE, 9)).toEqual({ address: ALICE, createdAt: 5 });
    ports = await ports.reopen();
    expect(await ports.store.accounts.get(ALICE)).toEqual({ address: ALICE, createdAt: 5 });
  });

  it('keeps each server secret as first given, across a reopen: every start (every node) signs alike', async () => {
    expect(await ports.store.secrets.keep('realtime-token', 'first', T0)).toBe('first');
    expect(await ports.store.secrets.keep('realtime-token', 'second', T0 + 1)).toBe('first');
    const [one, two] = await Promise.all([
      ports.store.secrets.keep('siwe-nonce', 'a', T0),
      ports.store.secrets.keep('siwe-nonce', 'b', T0),
    ]);
    expect(two).toBe(one);
    ports = await ports.reopen();
    expect(await ports.store.secrets.keep('realtime-token', 'third', T0 + 2)).toBe('first');
    expect(await ports.store.secrets.keep('siwe-nonce', 'c', T0 + 2)).toBe(one);
  });

  it('keeps API keys by account, revokes each once, and refuses a key hash twice', async () => {
    const keys = ports.store.apiKeys;
    await ports.store.accounts.ensure(ALICE, 1);
    await ports.store.accounts.ensure(BOB, 1);
    const key = (id: string, address: `0x${string}`, createdAt: number) => ({
      id,
      address,
      keyHash: `hash-${id}`,
      label: id === 'k2' ? null : `label ${id}`,
      createdAt,
      revokedAt: null,
    });
    await keys.insert(key('k2', ALICE, 20));
    await keys.insert(key('k1', ALICE, 20));
    await keys.insert(key('k3', BOB, 10));
    await expect(keys.insert({ ...key('k4', BOB, 30), keyHash: 'hash-k1' })).rejects.toThrow();
    // A key's account must exist.
    await expect(keys.insert(key('k5', '0x0000000000000000000000000000000000000999', 1))).rejects.toThrow();
    expect((await keys.listForAccount(ALICE)).map((k) => k.id)).toEqual(['k1', 'k2']);
    expect(await keys.revoke('k1', 50)).toEqual({ ...key('k1', ALICE, 20), revokedAt: 50 });
    expect(await keys.revoke('k1', 60)).toEqual({ ...key('k1', ALICE, 20), revokedAt: 50 });
    expect(await keys.revoke('nope', 60)).toBeNull();
    expect(await keys.get('k1')).toEqual({ ...key('k1', ALICE, 20), revokedAt: 50 });
    expect(await keys.get('k3')).toEqual(key('k3', BOB, 10));
    expect(await keys.get('nope')).toBeNull();
    expect(await keys.get('k\u00001')).toBeNull();
    // An id no store can hold (PostgreSQL text has no NUL) is no key either.
    expect(await keys.revoke('k\u00001', 60)).toBeNull();
    expect((await keys.listActive()).map((k) => k.id).sort()).toEqual(['k2', 'k3']);
    expect(await keys.listForAccount(BOB)).toEqual([key('k3', BOB, 10)]);
  });

  it('keeps sports, leagues, teams and fixtures', async () => {
    const catalog = ports.store.catalog;
    expect(await catalog.listSports()).toHaveLength(20);
    expect(await catalog.getSport(5)).toEqual({ sportId: 5, label: 'Soccer' });
    expect(await catalog.getSport(99)).toBeNull();
    const league = await catalog.insertLeague({
      sportId: 5,
      label: 'La Liga',
      liveDelayMs: 8_000,
      createdAt: 1,
    });
    expect(league).toEqual({ leagueId: 1, sportId: 5, label: 'La Liga', liveDelayMs: 8_000, createdAt: 1 });
    expect(
      await catalog.insertLeague({ sportId: 5, label: 'La Liga', liveDelayMs: null, createdAt: 2 }),
    ).toBeNull();
    const other = await catalog.insertLeague({ sportId: 1, label: 'NBA', liveDelayMs: null, createdAt: 3 });
    expect(other).toMatchObject({ sportId: 1, label: 'NBA', liveDelayMs: null, createdAt: 3 });
    expect(await catalog.getLeague(other!.leagueId)).toEqual(other);
    const atletico = await catalog.ensureTeam(1, 'Atlético Madrid', 10);
    expect(await catalog.ensureTeam(1, 'Atlético Madrid', 11)).toEqual(atletico);
    const betis = await catalog.ensureTeam(1, 'Real Betis', 12);
    const lakers = await catalog.ensureTeam(other!.leagueId, 'Los Angeles Lakers', 13);
    const celtics = await catalog.ensureTeam(other!.leagueId, 'Boston Celtics', 14);
    expect((await catalog.listTeams({ leagueId: 1 })).map((t) => t.name)).toEqual([
      'Atlético Madrid',
      'Real Betis',
    ]);

    const fixture = (leagueId: number, one: number, two: number, gameTime: number, status: number) => ({
      leagueId,
      teamOneId: one,
      teamTwoId: two,
      gameTime,
      status,
      createdAt: 100,
      updatedAt: 100,
    });
    const f1 = await catalog.insertFixture(fixture(1, atletico.teamId, betis.teamId, 2_000, 1));
    const f2 = await catalog.insertFixture(fixture(other!.leagueId, lakers.teamId, celtics.teamId, 1_000, 2));
    expect([f1.eventId, f2.eventId]).toEqual(['L1000001', 'L1000002']);
    expect(await catalog.getFixture('L1000001')).toEqual({
      ...f1,
      teamOneName: 'Atlético Madrid',
      teamTwoName: 'Real Betis',
      leagueLabel: 'La Liga',
      leagueLiveDelayMs: 8_000,
      sportId: 5,
      sportLabel: 'Soccer',
    });
    expect((await catalog.listFixtures({ statuses: [1, 2] })).map((f) => f.eventId)).toEqual([
      'L1000002',
      'L1000001',
    ]);
    expect((await catalog.listFixtures({ statuses: [1, 2], sportId: 5 })).map((f) => f.eventId)).toEqual([
      'L1000001',
    ]);
    expect((await catalog.getFixtures(['L1000002', 'L9'])).map((f) => f.eventId)).toEqual(['L1000002']);
    // Accents and case are folded on both sides.
    expect(
      (await catalog.searchFixtures({ text: 'ATLETICO', statuses: [1], limit: 5 })).map((f) => f.eventId),
    ).toEqual(['L1000001']);
    expect(await catalog.searchFixtures({ text: 'atletico', statuses: [2], limit: 5 })).toEqual([]);
    expect((await catalog.updateFixtureStatus('L1000001', 3, 200))!.status).toBe(3);
    expect(await catalog.updateFixtureStatus('L404', 3, 200)).toBeNull();
    expect(await catalog.countFixtures()).toBe(2);
    expect(await catalog.leaguesWithFixtures([2, 3])).toEqual([1, other!.leagueId]);
  });

  it('keeps markets: one main line per event and type, resolutions, quarter lines, live scores', async () => {
    const catalog = ports.store.catalog;
    await catalog.insertLeague({ sportId: 5, label: 'La Liga', liveDelayMs: null, createdAt: 1 });
    const a = await catalog.ensureTeam(1, 'A', 1);
    const b = await catalog.ensureTeam(1, 'B', 1);
    const { eventId } = await catalog.insertFixture({
      leagueId: 1,
      teamOneId: a.teamId,
      teamTwoId: b.teamId,
      gameTime: 5_000,
      status: 2,
      createdAt: 1,
      updatedAt: 1,
    });
    expect(await catalog.insertMarket(market(1, eventId, { mainLine: true }))).toEqual({ demoted: [] });
    expect(await catalog.insertMarket(market(1, eventId))).toBeNull();
    expect(await catalog.hasMainLine(eventId, 3)).toBe(true);
    expect(await catalog.insertMarket(market(2, eventId, { mainLine: true }))).toEqual({
      demoted: [hash(1)],
    });
    expect((await catalog.getMarket(hash(1)))!.mainLine).toBe(false);
    expect(await catalog.insertMarket(market(3, eventId, { type: 2, line: null, minBetSize: 7n }))).toEqual({
      demoted: [],
    });
    const quarter = market(4, eventId, { line: '-1.25', quarterLineLegs: [hash(1), hash(2)] });
    await catalog.insertMarket(quarter);

    const three = await catalog.getMarket(hash(3).toUpperCase().replace('0X', '0x'));
    expect(three).toMatchObject({ marketHash: hash(3), line: null, minBetSize: 7n, mainLine: false });
    expect(three!.fixture).toMatchObject({ eventId, teamOneName: 'A', sportLabel: 'Soccer' });
    expect((await catalog.getMarket(hash(4)))!.quarterLineLegs).toEqual([hash(1), hash(2)]);
    expect((await catalog.findMarkets([hash(3), hash(2), hash(9)])).map((m) => m.marketHash)).toEqual([
      hash(3),
      hash(2),
    ]);
    expect([...(await catalog.activeMarketTypes([eventId, 'L9']))]).toEqual([[eventId, [2, 3]]]);
    expect(await catalog.countEventsByType([2])).toEqual([
      { leagueId: 1, type: 2, events: 1 },
      { leagueId: 1, type: 3, events: 1 },
    ]);
    expect((await catalog.listQuarterLineParents(hash(2))).map((m) => m.marketHash)).toEqual([hash(4)]);
    expect(await catalog.listQuarterLineMarketsToFollow()).toEqual([]);

    const resolved = await catalog.resolveMarket(hash(1), 1, 9_999_000);
    expect(resolved).toMatchObject({
      status: 'INACTIVE',
      outcome: 1,
      reportedDate: 9_999,
      updatedAt: 9_999_000,
    });
    expect(await catalog.resolveMarket(hash(9), 1, 1)).toBeNull();
    expect((await catalog.listQuarterLineMarketsToFollow()).map((m) => m.marketHash)).toEqual([hash(4)]);
    expect(await catalog.closeQuarterLineMarket(hash(3), 1, 1)).toBeNull();
    expect(await catalog.closeQuarterLineMarket(hash(4), 10_000, 10_000_000)).toMatchObject({
      status: 'INACTIVE',
      reportedDate: 10_000,
    });
    expect(await catalog.listQuarterLineMarketsToFollow()).toEqual([]);
    expect((await catalog.listMarkets({ fixtureStatuses: [2], limit: 10 })).map((m) => m.marketHash)).toEqual(
      [hash(3), hash(2)],
    );

    const score = {
      eventId,
      teamOneScore: 1,
      teamTwoScore: 0,
      currentPeriod: '1H',
      periodTime: '12:00',
      periods: [{ label: '1H', isFinished: false, teamOneScore: '1', teamTwoScore: '0' }],
      extra: '{}',
      createdAt: 5,
      updatedAt: 5,
    };
    await catalog.upsertLiveScore(score);
    await catalog.upsertLiveScore({ ...score, teamTwoScore: 2, createdAt: 6, updatedAt: 7 });
    expect(await catalog.getLiveScore(eventId)).toEqual({ ...score, teamTwoScore: 2, updatedAt: 7 });
    expect(await catalog.getLiveScores([eventId, 'L9'])).toHaveLength(1);
    expect(await catalog.getLiveScore('L9')).toBeNull();
    // Values no row holds (a NUL, an id beyond INTEGER) match nothing, on every store.
    expect(await catalog.getMarket(`${hash(3)}\u0000`)).toBeNull();
    expect(await catalog.resolveMarket(`${hash(3)}\u0000`, 1, 1)).toBeNull();
    expect(await catalog.updateFixtureStatus(`${eventId}\u0000`, 3, 1)).toBeNull();
    expect(await catalog.searchFixtures({ text: 'a\u0000', statuses: [2], limit: 5 })).toEqual([]);
    expect(await catalog.getLeague(2 ** 40)).toBeNull();
    expect(await catalog.listTeams({ leagueId: 1.5 })).toEqual([]);
    expect(await catalog.listMarkets({ fixtureStatuses: [2], leagueId: 2 ** 40, limit: 5 })).toEqual([]);
    expect(await catalog.hasMainLine(eventId, 2 ** 40)).toBe(false);
  });
});

describe('the catalog on every store', () => {
  it.skipIf(stores.length < 2)('answers every listing of the demo catalog alike', async () => {
    const listings = [];
    for (const store of stores) {
      const ports = await store.open();
      const catalog = new CatalogService({ repository: ports.store.catalog, clock: { now: () => T0 } });
      await seedDemoCatalog(catalog, { now: T0 });
      listings.push(await everyListing(ports.store.catalog));
      await ports.close();
    }
    expect(listings[0]!.markets.flat().length).toBeGreaterThan(50);
    expect(listings[0]!.pages.length).toBeGreaterThan(3);
    expect(listings[0]!.search).not.toEqual([]);
    for (const listing of listings.slice(1)) expect(listing).toEqual(listings[0]);
  });
});
