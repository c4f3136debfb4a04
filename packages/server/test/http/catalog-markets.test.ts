import { encodeAbiParameters, keccak256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STANDARD_SPORTS } from '../../src/catalog/sports.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { catalogBuilders } from './catalog-builders.js';

const HOUR = 3600;
const LEGACY_MARKET_FIELDS = [
  'status',
  'marketHash',
  'outcomeOneName',
  'outcomeTwoName',
  'outcomeVoidName',
  'teamOneName',
  'teamTwoName',
  'type',
  'gameTime',
  'line',
  'sportXeventId',
  'liveEnabled',
  'sportLabel',
  'sportId',
  'leagueId',
  'leagueLabel',
  'group1',
  'chainVersion',
  'participantOneId',
  'participantTwoId',
  'mainLine',
  'sxTeamOneId',
  'sxTeamTwoId',
  'isQuarterLineMarket',
] as const;

type MarketJson = Record<(typeof LEGACY_MARKET_FIELDS)[number], unknown> & {
  quarterLineLegs: [string, string] | null;
  outcomeOneName: string;
  outcomeTwoName: string;
  marketHash: string;
  sportXeventId: string;
  type: number;
  line: number | null;
  gameTime: number;
  mainLine: boolean;
  status: string;
  bettingDelay: number;
  minBetSize: string;
};

describe('catalog: public market data routes', () => {
  let t: TestExchange;
  let b: ReturnType<typeof catalogBuilders>;
  const now = Math.floor(Date.now() / 1000);
  let nba: number;
  let epl: number;
  let lakersCeltics: Awaited<ReturnType<ReturnType<typeof catalogBuilders>['fixtureWithMarkets']>>;
  let arsenalChelsea: Awaited<ReturnType<ReturnType<typeof catalogBuilders>['fixtureWithMarkets']>>;
  let finishedEvent: string;
  const nbaEvents: string[] = [];

  const get = async (url: string) => t.app.inject({ method: 'GET', url });
  const data = async (url: string) => {
    const response = await get(url);
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    expect(response.json().status).toBe('success');
    return response.json().data;
  };

  beforeAll(async () => {
    t = await startTestExchange();
    b = catalogBuilders(t);
    nba = await b.league({ sportId: 1, label: 'NBA', liveDelaySeconds: 4 });
    epl = await b.league({ sportId: 5, label: 'English Premier League' });
    lakersCeltics = await b.fixtureWithMarkets({
      leagueId: nba,
      teamOneName: 'Los Angeles Lakers',
      teamTwoName: 'Boston Celtics',
      gameTime: now + 5 * HOUR,
    });
    nbaEvents.push(lakersCeltics.eventId);
    // An alternative spread: not the main line.
    await b.market({
      eventId: lakersCeltics.eventId,
      type: 3,
      line: -5.5,
      outcomeOneName: 'Los Angeles Lakers -5.5',
      outcomeTwoName: 'Boston Celtics 5.5',
      mainLine: false,
    });
    const teams = [
      'Golden State Warriors',
      'Denver Nuggets',
      'Miami Heat',
      'Milwaukee Bucks',
      'New York Knicks',
      'Phoenix Suns',
      'Dallas Mavericks',
      'Chicago Bulls',
      'Utah Jazz',
      'Orlando Magic',
    ];
    // Ten more NBA fixtures, each against the Lakers, in reverse time order so ordering is tested.
    for (const [i, name] of teams.entries()) {
      const fixture = await b.fixtureWithMarkets({
        leagueId: nba,
        teamOneName: name,
        teamTwoName: 'Los Angeles Lakers',
        gameTime: now + (40 - i) * HOUR,
      });
      nbaEvents.push(fixture.eventId);
    }
    arsenalChelsea = await b.fixtureWithMarkets({
      leagueId: epl,
      teamOneName: 'Arsenal',
      teamTwoName: 'Chelsea',
      gameTime: now - HOUR,
      spread: -0.75,
      total: 2.25,
    });
    await b.status(arsenalChelsea.eventId, 2);
    await b.post(`/admin/fixtures/${arsenalChelsea.eventId}/scores`, {
      teamOneScore: 1,
      teamTwoScore: 0,
      currentPeriod: '1st Half',
    });
    finishedEvent = await b.fixture({
      leagueId: epl,
      teamOneName: 'Everton',
      teamTwoName: 'Fulham',
      gameTime: now - 5 * HOUR,
    });
    await b.market({ eventId: finishedEvent, type: 52, outcomeOneName: 'Everton', outcomeTwoName: 'Fulham' });
    await b.status(finishedEvent, 3);
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('GET /sports lists the 20 standard sports with stable ids', async () => {
    expect(await data('/sports')).toEqual(STANDARD_SPORTS.map((s) => ({ ...s })));
  });

  it('GET /leagues and /leagues/active (with eventsByType)', async () => {
    const leagues = await data('/leagues');
    expect(leagues).toEqual([
      { leagueId: nba, label: 'NBA', sportId: 1, active: true, liveDelayMs: 4000 },
      { leagueId: epl, label: 'English Premier League', sportId: 5, active: true, liveDelayMs: null },
    ]);
    const active = await data('/leagues/active');
    expect(active).toHaveLength(2);
    expect(active[0]).toMatchObject({ leagueId: nba, eventsByType: { '2': 11, '3': 11, '52': 11 } });
    // The finished Everton fixture does not count.
    expect(active[1]).toMatchObject({ leagueId: epl, eventsByType: { '2': 1, '3': 1, '52': 1 } });
  });

  it('GET /teams creates teams on demand, once per league, and filters by leagueId', async () => {
    const nbaTeams = await data(`/teams?leagueId=${nba}`);
    expect(nbaTeams).toHaveLength(12);
    expect(nbaTeams.filter((team: { name: string }) => team.name === 'Los Angeles Lakers')).toEqual([
      { teamId: expect.any(Number), name: 'Los Angeles Lakers', leagueIds: [nba] },
    ]);
    expect((await data('/teams')).length).toBe(16);
    expect((await get('/teams?leagueId=abc')).statusCode).toBe(400);
  });

  it('GET /fixture/active lists statuses 1, 2, 6-9 ordered by game time, filtered by league and sport', async () => {
    const fixtures = await data('/fixture/active');
    expect(fixtures).toHaveLength(12);
    expect(fixtures.map((f: { eventId: string }) => f.eventId)).not.toContain(finishedEvent);
    const times = fixtures.map((f: { gameTime: number }) => f.gameTime);
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(fixtures[0]).toEqual({
      eventId: arsenalChelsea.eventId,
      status: 2,
      leagueId: epl,
      leagueLabel: 'English Premier League',
      sportId: 5,
      participantOneName: 'Arsenal',
      participantTwoName: 'Chelsea',
      teamOneName: 'Arsenal',
      teamTwoName: 'Chelsea',
      teamOneId: expect.any(Number),
      teamTwoId: expect.any(Number),
      gameTime: now - HOUR,
      startDate: new Date((now - HOUR) * 1000).toISOString(),
    });
    expect(await data(`/fixture/active?leagueId=${epl}`)).toHaveLength(1);
    expect(await data('/fixture/active?sportId=1')).toHaveLength(11);
    expect(await data('/fixture/active?sportId=6')).toEqual([]);
    expect(arsenalChelsea.eventId).toMatch(/^L[0-9]+$/);
  });

  it('GET /fixture/status maps event ids to statuses, leaving unknown ids out', async () => {
    const ids = [arsenalChelsea.eventId, finishedEvent, lakersCeltics.eventId, 'L999'].join(',');
    expect(await data(`/fixture/status?sportXEventIds=${ids}`)).toEqual({
      [arsenalChelsea.eventId]: 2,
      [finishedEvent]: 3,
      [lakersCeltics.eventId]: 1,
    });
    const missing = await get('/fixture/status');
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'Bad Request', statusCode: 400 });
  });

  it('GET /live-scores returns the records of at most 50 events', async () => {
    const scores = await data(
      `/live-scores?sportXEventIds=${arsenalChelsea.eventId},${lakersCeltics.eventId}`,
    );
    expect(scores).toEqual([
      {
        sportXEventId: arsenalChelsea.eventId,
        sportId: 5,
        leagueId: epl,
        teamOneScore: 1,
        teamTwoScore: 0,
        currentPeriod: '1st Half',
        periodTime: '-1',
        periods: [{ label: '1st Half', isFinished: false, teamOneScore: '1', teamTwoScore: '0' }],
        extra: '{}',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    ]);
    const fifty = Array.from({ length: 50 }, (_, i) => `L${i}`).join(',');
    expect((await get(`/live-scores?sportXEventIds=${fifty}`)).statusCode).toBe(200);
    const tooMany = await get(`/live-scores?sportXEventIds=${fifty},L50`);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({ message: expect.stringContaining('at most 50'), statusCode: 400 });
  });

  describe('GET /markets/active', () => {
    it('carries every field of the legacy market record', async () => {
      const { markets } = await data(`/markets/active?eventId=${lakersCeltics.eventId}`);
      expect(markets).toHaveLength(4);
      for (const market of markets as MarketJson[]) {
        for (const field of LEGACY_MARKET_FIELDS) expect(market, field).toHaveProperty(field);
        expect(market.minBetSize).toBe('1000000');
        expect(market.status).toBe('ACTIVE');
      }
      const moneyline = markets.find((m: MarketJson) => m.type === 52);
      expect(moneyline).toEqual({
        status: 'ACTIVE',
        marketHash: lakersCeltics.moneyline,
        outcomeOneName: 'Los Angeles Lakers',
        outcomeTwoName: 'Boston Celtics',
        outcomeVoidName: 'NO_GAME',
        teamOneName: 'Los Angeles Lakers',
        teamTwoName: 'Boston Celtics',
        type: 52,
        gameTime: now + 5 * HOUR,
        line: null,
        sportXeventId: lakersCeltics.eventId,
        liveEnabled: true,
        sportLabel: 'Basketball',
        sportId: 1,
        leagueId: nba,
        leagueLabel: 'NBA',
        group1: 'NBA',
        chainVersion: 'SXR',
        participantOneId: expect.any(Number),
        participantTwoId: expect.any(Number),
        mainLine: true,
        sxTeamOneId: expect.any(Number),
        sxTeamTwoId: expect.any(Number),
        isQuarterLineMarket: false,
        quarterLineLegs: null,
        bettingDelay: 0,
        pregameBettingDelay: 0,
        // The NBA league's own live delay (4 s) wins over basketball's 8 s.
        liveBettingDelay: 4,
        minBetSize: '1000000',
      });
      const spreads = markets.filter((m: MarketJson) => m.type === 3);
      expect(spreads.map((m: MarketJson) => [m.line, m.mainLine, m.outcomeVoidName])).toEqual(
        expect.arrayContaining([
          [-3.5, true, 'NO_GAME_OR_EVEN'],
          [-5.5, false, 'NO_GAME_OR_EVEN'],
        ]),
      );
    });

    it('filters by onlyMainLine, leagueId, sportIds, type and liveOnly', async () => {
      const all = (await data('/markets/active?pageSize=50')) as { markets: MarketJson[] };
      // The EPL fixture's quarter lines brought their legs: -1 and -0.5 for -0.75, 2 and 2.5 for 2.25.
      expect(all.markets).toHaveLength(41);
      expect((await data('/markets/active?onlyMainLine=true&pageSize=50')).markets).toHaveLength(36);
      const main = (await data(`/markets/active?onlyMainLine=true&eventId=${lakersCeltics.eventId}`)).markets;
      expect(main).toHaveLength(3);
      expect(main.every((m: MarketJson) => m.mainLine)).toBe(true);
      const epls = (await data(`/markets/active?leagueId=${epl}`)).markets as MarketJson[];
      expect(epls.map((m) => m.sportXeventId)).toEqual(Array(7).fill(arsenalChelsea.eventId));
      expect((await data('/markets/active?sportIds=5,6')).markets).toHaveLength(7);
      expect((await data('/markets/active?sportIds=6')).markets).toHaveLength(0);
      const totals = (await data('/markets/active?type=2&pageSize=50')).markets as MarketJson[];
      expect(totals).toHaveLength(14);
      expect(totals.every((m) => m.type === 2)).toBe(true);
      expect((await data('/markets/active?type=2,52&pageSize=50')).markets).toHaveLength(26);
      const live = (await data('/markets/active?liveOnly=true')).markets as MarketJson[];
      expect(live.map((m) => m.sportXeventId)).toEqual(Array(7).fill(arsenalChelsea.eventId));
      // In play: the EPL has no delay of its own, so soccer's 10 s applies.
      expect(live.every((m) => m.bettingDelay === 10)).toBe(true);
    });

    it('pages with an opaque key in game-time order, without gaps or repeats', async () => {
      const seen: MarketJson[] = [];
      let key: string | null = null;
      let pages = 0;
      do {
        const query: string = key ? `&paginationKey=${encodeURIComponent(key)}` : '';
        const page = (await data(`/markets/active?pageSize=7${query}`)) as {
          markets: MarketJson[];
          nextKey: string | null;
        };
        expect(page.markets.length).toBeLessThanOrEqual(7);
        seen.push(...page.markets);
        key = page.nextKey;
        pages += 1;
      } while (key);
      // 11 NBA fixtures with 3 markets, one alternative spread, 3 EPL markets and the 4 legs of its 2 quarter lines.
      expect(seen).toHaveLength(41);
      expect(pages).toBe(6);
      expect(new Set(seen.map((m) => m.marketHash)).size).toBe(41);
      const times = seen.map((m) => m.gameTime);
      expect(times).toEqual([...times].sort((x, y) => x - y));
    });

    it('refuses a page size over 50 and a key it did not issue', async () => {
      const big = await get('/markets/active?pageSize=51');
      expect(big.statusCode).toBe(400);
      expect(big.json()).toMatchObject({ error: 'Bad Request', statusCode: 400 });
      const badKey = await get('/markets/active?paginationKey=not-a-key');
      expect(badKey.statusCode).toBe(400);
      expect(badKey.json()).toMatchObject({ message: 'paginationKey is not a key this server issued' });
      expect((await get('/markets/active?sportIds=one')).statusCode).toBe(400);
      expect((await get('/markets/active?liveOnly=maybe')).statusCode).toBe(400);
    });
  });

  describe('GET /markets/find', () => {
    it('finds markets by hash, inactive ones included, and leaves unknown hashes out', async () => {
      const finished = (await t.exchange.catalog.activeMarkets({})).markets.length;
      expect(finished).toBeGreaterThan(0);
      const everton = (await t.exchange.store.catalog.listMarketsOfEvent(finishedEvent))[0]!.marketHash;
      const unknown = `0x${'ab'.repeat(32)}`;
      const found = (await data(
        `/markets/find?marketHashes=${lakersCeltics.moneyline},${everton.toUpperCase().replace('0X', '0x')},${unknown}`,
      )) as MarketJson[];
      expect(found.map((m) => [m.marketHash, m.status])).toEqual(
        expect.arrayContaining([
          [lakersCeltics.moneyline, 'ACTIVE'],
          [everton, 'INACTIVE'],
        ]),
      );
      expect(found).toHaveLength(2);
    });

    it('accepts 30 hashes and refuses 31, malformed or missing ones with BAD_MARKET_HASHES', async () => {
      const hashes = Array.from({ length: 31 }, (_, i) => `0x${i.toString(16).padStart(64, '0')}`);
      expect((await get(`/markets/find?marketHashes=${hashes.slice(0, 30).join(',')}`)).statusCode).toBe(200);
      const refused = [
        `/markets/find?marketHashes=${hashes.join(',')}`,
        '/markets/find?marketHashes=0x1234',
        `/markets/find?marketHashes=${lakersCeltics.moneyline},nothex`,
        `/markets/find?marketHashes=${'0x'.padEnd(66, 'g')}`,
        '/markets/find?marketHashes=',
        '/markets/find',
      ];
      for (const url of refused) {
        const response = await get(url);
        expect(response.statusCode, url).toBe(400);
        expect(response.json(), url).toEqual({ status: 'failure', errorCode: 'BAD_MARKET_HASHES' });
      }
    });
  });

  it('GET /markets/popular: main lines of live fixtures first, then the soonest, at most 10', async () => {
    const popular = (await data('/markets/popular')) as MarketJson[];
    expect(popular).toHaveLength(10);
    expect(popular.every((m) => m.mainLine && m.status === 'ACTIVE')).toBe(true);
    expect(popular.slice(0, 3).every((m) => m.sportXeventId === arsenalChelsea.eventId)).toBe(true);
    expect(popular.slice(3, 6).every((m) => m.sportXeventId === lakersCeltics.eventId)).toBe(true);
  });

  describe('GET /search', () => {
    it('refuses queries shorter than 3 or longer than 100 characters in the common error shape', async () => {
      for (const url of ['/search?query=la', `/search?query=${'a'.repeat(101)}`, '/search']) {
        const response = await get(url);
        expect(response.statusCode, url).toBe(400);
        expect(response.json()).toMatchObject({ error: 'Bad Request', statusCode: 400 });
      }
      expect((await get(`/search?query=${'a'.repeat(100)}`)).statusCode).toBe(200);
      expect((await get('/search?query=lak')).statusCode).toBe(200);
    });

    it('matches team names partially and case-insensitively, at most 8 fixtures by game time', async () => {
      const hits = (await data('/search?query=lAKER')) as { eventId: string; gameTime: number }[];
      expect(hits).toHaveLength(8);
      const times = hits.map((h) => h.gameTime);
      expect(times).toEqual([...times].sort((x, y) => x - y));
      expect(hits[0]).toEqual({
        eventId: lakersCeltics.eventId,
        teamOneName: 'Los Angeles Lakers',
        teamTwoName: 'Boston Celtics',
        gameTime: now + 5 * HOUR,
        leagueLabel: 'NBA',
        sportId: 1,
        marketTypes: [2, 3, 52],
      });
      expect(await data('/search?query=ELSE')).toEqual([
        expect.objectContaining({ eventId: arsenalChelsea.eventId, teamTwoName: 'Chelsea' }),
      ]);
      // Finished fixtures are not found; % is a literal character, not a wildcard.
      expect(await data('/search?query=everton')).toEqual([]);
      expect(await data('/search?query=%25%25%25')).toEqual([]);
    });
  });

  describe('marketHash and lines', () => {
    it('derives the hash deterministically from eventId, type, line and outcome names', async () => {
      const expected = keccak256(
        encodeAbiParameters(
          [
            { type: 'string' },
            { type: 'uint256' },
            { type: 'string' },
            { type: 'string' },
            { type: 'string' },
          ],
          [lakersCeltics.eventId, 3n, '-3.5', 'Los Angeles Lakers -3.5', 'Boston Celtics 3.5'],
        ),
      );
      expect(lakersCeltics.spread).toBe(expected);
      const moneyline = keccak256(
        encodeAbiParameters(
          [
            { type: 'string' },
            { type: 'uint256' },
            { type: 'string' },
            { type: 'string' },
            { type: 'string' },
          ],
          [lakersCeltics.eventId, 52n, '', 'Los Angeles Lakers', 'Boston Celtics'],
        ),
      );
      expect(lakersCeltics.moneyline).toBe(moneyline);
    });

    it('flags quarter lines and keeps lines exact', async () => {
      const found = (await data(
        `/markets/find?marketHashes=${arsenalChelsea.spread},${arsenalChelsea.total},${lakersCeltics.spread}`,
      )) as MarketJson[];
      const byHash = new Map(found.map((m) => [m.marketHash, m]));
      expect(byHash.get(arsenalChelsea.spread)).toMatchObject({ line: -0.75, isQuarterLineMarket: true });
      expect(byHash.get(arsenalChelsea.total)).toMatchObject({ line: 2.25, isQuarterLineMarket: true });
      expect(byHash.get(lakersCeltics.spread)).toMatchObject({
        line: -3.5,
        isQuarterLineMarket: false,
        quarterLineLegs: null,
      });
      const legs = (await data(
        `/markets/find?marketHashes=${byHash.get(arsenalChelsea.total)!.quarterLineLegs!.join(',')}`,
      )) as MarketJson[];
      legs.sort((x, y) => (x.line as number) - (y.line as number));
      expect(legs.map((m) => [m.line, m.outcomeOneName, m.outcomeTwoName, m.isQuarterLineMarket])).toEqual([
        [2, 'Over 2', 'Under 2', false],
        [2.5, 'Over 2.5', 'Under 2.5', false],
      ]);
      const stored = await t.exchange.store.catalog.getMarket(arsenalChelsea.spread);
      expect(stored?.line).toBe('-0.75');
    });

    it('treats the same line written differently as the same market (409)', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/admin/markets',
        headers: t.admin,
        payload: {
          eventId: arsenalChelsea.eventId,
          type: 3,
          line: '-0.750',
          outcomeOneName: 'Arsenal -0.75',
          outcomeTwoName: 'Chelsea 0.75',
        },
      });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({ error: 'Conflict', statusCode: 409 });
    });
  });

  it('lists the catalog routes in the OpenAPI document', async () => {
    const doc = (await get('/docs/openapi.json')).json();
    for (const path of ['/sports', '/markets/active', '/markets/find', '/search', '/admin/markets'])
      expect(Object.keys(doc.paths)).toContain(path);
  });

  it('keeps the NBA events in one league', () => {
    expect(new Set(nbaEvents).size).toBe(11);
  });
});
