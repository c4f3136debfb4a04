import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogEvent } from '../../src/catalog/catalog-events.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { catalogBuilders } from './catalog-builders.js';

const HOUR = 3600;

describe('catalog: operator API', () => {
  let t: TestExchange;
  let b: ReturnType<typeof catalogBuilders>;
  const now = Math.floor(Date.now() / 1000);
  let nhl: number;
  let eventId: string;

  const post = (url: string, payload: unknown, headers: Record<string, string> = t.admin) =>
    t.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
  const expectError = async (
    response: Awaited<ReturnType<typeof post>>,
    statusCode: number,
    message?: string | RegExp,
  ) => {
    expect(response.statusCode, response.body).toBe(statusCode);
    const body = response.json();
    expect(body.statusCode).toBe(statusCode);
    expect(typeof body.error).toBe('string');
    if (typeof message === 'string') expect(body.message).toBe(message);
    else if (message) expect(JSON.stringify(body.message)).toMatch(message);
  };

  beforeAll(async () => {
    t = await startTestExchange();
    b = catalogBuilders(t);
    nhl = await b.league({ sportId: 2, label: 'NHL', liveDelaySeconds: 5 });
    eventId = await b.fixture({
      leagueId: nhl,
      teamOneName: 'Toronto Maple Leafs',
      teamTwoName: 'Montreal Canadiens',
      gameTime: now + HOUR,
    });
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('refuses every catalog admin route without the admin token (401 BAD_AUTH)', async () => {
    const routes: [string, unknown][] = [
      ['/admin/leagues', { sportId: 1, label: 'X' }],
      ['/admin/fixtures', { leagueId: nhl, teamOneName: 'A', teamTwoName: 'B', gameTime: now }],
      ['/admin/markets', { eventId, type: 52, outcomeOneName: 'A', outcomeTwoName: 'B' }],
      [`/admin/fixtures/${eventId}/scores`, { teamOneScore: 1, teamTwoScore: 0 }],
      [`/admin/fixtures/${eventId}/status`, { status: 2 }],
    ];
    const badHeaders: Record<string, string>[] = [
      {},
      { 'x-admin-token': 'not-the-admin-token' },
      { 'x-svc-api-key': 'x' },
    ];
    for (const [url, payload] of routes) {
      for (const headers of badHeaders) {
        const response = await post(url, payload, headers);
        expect(response.statusCode, url).toBe(401);
        expect(response.json()).toEqual({
          message: 'BAD_AUTH',
          error: 'Unauthorized',
          statusCode: 401,
          code: 'BAD_AUTH',
        });
      }
    }
  });

  describe('POST /admin/leagues', () => {
    it('creates a league and refuses bad bodies, unknown sports and duplicate labels', async () => {
      const created = await post('/admin/leagues', { sportId: 6, label: 'ATP' });
      expect(created.statusCode).toBe(200);
      expect(created.json()).toEqual({ status: 'success', data: { leagueId: expect.any(Number) } });
      await expectError(
        await post('/admin/leagues', { sportId: 6, label: 'ATP' }),
        409,
        /LEAGUE_EXISTS|already/,
      );
      await expectError(
        await post('/admin/leagues', { sportId: 99, label: 'Nowhere' }),
        404,
        'no sport with id 99',
      );
      await expectError(await post('/admin/leagues', { sportId: '6', label: 'WTA' }), 400, /sportId/);
      await expectError(await post('/admin/leagues', { sportId: 6 }), 400, /label/);
      await expectError(await post('/admin/leagues', { sportId: 6, label: 'WTA', extra: 1 }), 400, /extra/);
      await expectError(await post('/admin/leagues', { sportId: 6, label: '   ' }), 400);
      await expectError(
        await post('/admin/leagues', { sportId: 6, label: 'WTA', liveDelaySeconds: -1 }),
        400,
        /liveDelaySeconds/,
      );
    });

    it('publishes a league live delay in GET /metadata/obv3', async () => {
      const metadata = (await t.app.inject({ method: 'GET', url: '/metadata/obv3' })).json().data;
      expect(metadata.bettingDelay.leagueIdToMs).toEqual({ [String(nhl)]: 5000 });
    });
  });

  describe('POST /admin/fixtures', () => {
    it('creates a fixture with an L-number event id and its teams on demand', async () => {
      const response = await post('/admin/fixtures', {
        leagueId: nhl,
        teamOneName: 'Boston Bruins',
        teamTwoName: 'Toronto Maple Leafs',
        gameTime: now + 2 * HOUR,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().data.eventId).toMatch(/^L[0-9]+$/);
      const teams = (await t.app.inject({ method: 'GET', url: `/teams?leagueId=${nhl}` })).json().data;
      expect(teams.map((team: { name: string }) => team.name).sort()).toEqual([
        'Boston Bruins',
        'Montreal Canadiens',
        'Toronto Maple Leafs',
      ]);
    });

    it('refuses an unknown league (404), identical teams, a millisecond game time and bad types (400)', async () => {
      const base = { leagueId: nhl, teamOneName: 'A Team', teamTwoName: 'B Team', gameTime: now };
      await expectError(
        await post('/admin/fixtures', { ...base, leagueId: 9999 }),
        404,
        'no league with id 9999',
      );
      await expectError(await post('/admin/fixtures', { ...base, teamTwoName: 'a team' }), 400);
      await expectError(await post('/admin/fixtures', { ...base, gameTime: Date.now() }), 400, /gameTime/);
      await expectError(await post('/admin/fixtures', { ...base, gameTime: '123' }), 400, /gameTime/);
      await expectError(await post('/admin/fixtures', { ...base, teamOneName: '' }), 400, /teamOneName/);
    });
  });

  describe('POST /admin/markets', () => {
    it('creates markets with defaults: min size 1 USDC, live-enabled, the first of a type is the main line', async () => {
      const hash = await b.market({
        eventId,
        type: 226,
        outcomeOneName: 'Toronto Maple Leafs',
        outcomeTwoName: 'Montreal Canadiens',
      });
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
      const [market] = (
        await t.app.inject({ method: 'GET', url: `/markets/find?marketHashes=${hash}` })
      ).json().data;
      expect(market).toMatchObject({
        type: 226,
        line: null,
        mainLine: true,
        liveEnabled: true,
        minBetSize: '1000000',
        outcomeVoidName: 'NO_CONTEST',
        status: 'ACTIVE',
      });
      expect(market).not.toHaveProperty('outcome');
      expect(market).not.toHaveProperty('reportedDate');
    });

    it('answers 409 for a duplicate market, 404 for an unknown fixture', async () => {
      const payload = {
        eventId,
        type: 2,
        line: 5.5,
        outcomeOneName: 'Over 5.5',
        outcomeTwoName: 'Under 5.5',
      };
      await b.market(payload);
      await expectError(await post('/admin/markets', payload), 409, /already exists/);
      await expectError(await post('/admin/markets', { ...payload, eventId: 'L404' }), 404, /no fixture/);
    });

    it('refuses unknown types, missing or forbidden lines, bad lines and bad sizes (400)', async () => {
      const base = { eventId, outcomeOneName: 'Yes', outcomeTwoName: 'No' };
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ ...base, type: 9999 }, /not supported/],
        [{ ...base, type: 3 }, /needs a line/],
        [{ ...base, type: 52, line: 1.5 }, /has no line/],
        [{ ...base, type: 3, line: '1.5.5' }, /line/],
        [{ ...base, type: 3, line: 1e9 }, /line/],
        [{ ...base, type: 3, line: 0.12345 }, /line/],
        [{ ...base, type: 52, minBetSize: '0' }, /minBetSize/],
        [{ ...base, type: 52, minBetSize: 5 }, /minBetSize/],
        [{ ...base, type: 52, minBetSize: '-5' }, /minBetSize/],
        [{ ...base, type: 52, outcomeTwoName: 'Yes' }, /differ/],
        [{ ...base, type: 52, bettingDelay: 301 }, /bettingDelay/],
        [{ ...base, type: 52, mainLine: 'yes' }, /mainLine/],
      ];
      for (const [payload, message] of cases)
        await expectError(await post('/admin/markets', payload), 400, message);
    });

    it('keeps one main line per event and type; a new main line demotes the old one', async () => {
      const first = await b.market({
        eventId,
        type: 342,
        line: -1.5,
        outcomeOneName: 'Toronto Maple Leafs -1.5',
        outcomeTwoName: 'Montreal Canadiens +1.5',
      });
      const alternative = await b.market({
        eventId,
        type: 342,
        line: -2.5,
        outcomeOneName: 'Toronto Maple Leafs -2.5',
        outcomeTwoName: 'Montreal Canadiens +2.5',
      });
      const find = async () =>
        Object.fromEntries(
          (await t.app.inject({ method: 'GET', url: `/markets/find?marketHashes=${first},${alternative}` }))
            .json()
            .data.map((m: { marketHash: string; mainLine: boolean }) => [m.marketHash, m.mainLine]),
        );
      expect(await find()).toEqual({ [first]: true, [alternative]: false });
      const events: CatalogEvent[] = [];
      const off = t.exchange.catalog.onChange((event) => events.push(event));
      const replacement = await b.market({
        eventId,
        type: 342,
        line: -0.5,
        outcomeOneName: 'Toronto Maple Leafs -0.5',
        outcomeTwoName: 'Montreal Canadiens +0.5',
        mainLine: true,
      });
      off();
      expect(await find()).toEqual({ [first]: false, [alternative]: false });
      expect(events.map((e) => e.type)).toEqual(['market', 'mainLine']);
      expect(events[1]).toEqual({ type: 'mainLine', eventId, marketType: 342, marketHash: replacement });
    });
  });

  describe('POST /admin/fixtures/{eventId}/scores', () => {
    it('records live scores; periods are derived, periodTime defaults to "-1"', async () => {
      const first = await post(`/admin/fixtures/${eventId}/scores`, {
        teamOneScore: 1,
        teamTwoScore: 0,
        currentPeriod: '1st Period',
      });
      expect(first.statusCode).toBe(200);
      expect(first.json().data).toMatchObject({
        sportXEventId: eventId,
        sportId: 2,
        leagueId: nhl,
        teamOneScore: 1,
        teamTwoScore: 0,
        currentPeriod: '1st Period',
        periodTime: '-1',
        periods: [{ label: '1st Period', isFinished: false, teamOneScore: '1', teamTwoScore: '0' }],
      });
      const second = await post(`/admin/fixtures/${eventId}/scores`, {
        teamOneScore: 2,
        teamTwoScore: 2,
        currentPeriod: '2nd Period',
        periodTime: '12:30',
      });
      expect(second.json().data).toMatchObject({
        teamOneScore: 2,
        teamTwoScore: 2,
        periodTime: '12:30',
        periods: [
          { label: '1st Period', isFinished: true, teamOneScore: '1', teamTwoScore: '0' },
          { label: '2nd Period', isFinished: false, teamOneScore: '1', teamTwoScore: '2' },
        ],
      });
      expect(second.json().data.createdAt).toBe(first.json().data.createdAt);
      const scores = (
        await t.app.inject({ method: 'GET', url: `/live-scores?sportXEventIds=${eventId}` })
      ).json().data;
      expect(scores).toEqual([second.json().data]);
    });

    it('refuses unknown fixtures (404) and bad scores (400)', async () => {
      await expectError(await post('/admin/fixtures/L404/scores', { teamOneScore: 1, teamTwoScore: 0 }), 404);
      await expectError(
        await post(`/admin/fixtures/${eventId}/scores`, { teamOneScore: -1, teamTwoScore: 0 }),
        400,
        /teamOneScore/,
      );
      await expectError(
        await post(`/admin/fixtures/${eventId}/scores`, { teamOneScore: 1 }),
        400,
        /teamTwoScore/,
      );
      await expectError(
        await post(`/admin/fixtures/${eventId}/scores`, { teamOneScore: 1.5, teamTwoScore: 0 }),
        400,
        /teamOneScore/,
      );
    });
  });

  describe('POST /admin/fixtures/{eventId}/status', () => {
    it('sets the status and returns the fixture; finished or cancelled fixtures take their markets off the list', async () => {
      const other = await b.fixtureWithMarkets({
        leagueId: nhl,
        teamOneName: 'Edmonton Oilers',
        teamTwoName: 'Calgary Flames',
        gameTime: now + 3 * HOUR,
        spread: -1.5,
        total: 6.5,
      });
      const listed = async () =>
        (await t.app.inject({ method: 'GET', url: `/markets/active?eventId=${other.eventId}` })).json().data
          .markets.length;
      expect(await listed()).toBe(3);

      const events: CatalogEvent[] = [];
      const off = t.exchange.catalog.onChange((event) => events.push(event));
      const live = await post(`/admin/fixtures/${other.eventId}/status`, { status: 2 });
      expect(live.statusCode).toBe(200);
      expect(live.json().data).toMatchObject({
        eventId: other.eventId,
        status: 2,
        leagueId: nhl,
        sportId: 2,
      });
      expect(await listed()).toBe(3);
      expect(events.map((e) => e.type)).toEqual(['fixture']);

      const finished = await post(`/admin/fixtures/${other.eventId}/status`, { status: 3 });
      expect(finished.json().data.status).toBe(3);
      expect(await listed()).toBe(0);
      expect(events.map((e) => e.type)).toEqual(['fixture', 'fixture', 'market', 'market', 'market']);
      off();
      const found = (
        await t.app.inject({ method: 'GET', url: `/markets/find?marketHashes=${other.moneyline}` })
      ).json().data;
      expect(found[0].status).toBe('INACTIVE');
      const fixtures = (await t.app.inject({ method: 'GET', url: '/fixture/active' })).json().data;
      expect(fixtures.map((f: { eventId: string }) => f.eventId)).not.toContain(other.eventId);
      // No new markets on a finished fixture.
      await expectError(
        await post('/admin/markets', {
          eventId: other.eventId,
          type: 2,
          line: 7.5,
          outcomeOneName: 'Over 7.5',
          outcomeTwoName: 'Under 7.5',
        }),
        409,
        /status 3/,
      );
      const cancelled = await b.fixture({
        leagueId: nhl,
        teamOneName: 'Vancouver Canucks',
        teamTwoName: 'Seattle Kraken',
        gameTime: now + 4 * HOUR,
      });
      await b.market({ eventId: cancelled, type: 226, outcomeOneName: 'Canucks', outcomeTwoName: 'Kraken' });
      await b.status(cancelled, 4);
      expect(
        (await t.app.inject({ method: 'GET', url: `/markets/active?eventId=${cancelled}` })).json().data
          .markets,
      ).toEqual([]);
    });

    it('refuses statuses outside 1..9 (400) and unknown fixtures (404)', async () => {
      for (const status of [0, 10, '2', 2.5])
        await expectError(await post(`/admin/fixtures/${eventId}/status`, { status }), 400, /status/);
      await expectError(await post('/admin/fixtures/L404/status', { status: 2 }), 404);
    });
  });

  describe('what the order path reads from exchange.catalog', () => {
    it('gives the effective delay (pregame default; live: market, then league, then sport), min size and open state', async () => {
      const soccer = await b.league({ sportId: 5, label: 'Serie A' });
      const fixture = await b.fixture({
        leagueId: soccer,
        teamOneName: 'Inter',
        teamTwoName: 'Milan',
        gameTime: now,
      });
      const own = await b.market({
        eventId: fixture,
        type: 1,
        outcomeOneName: 'Inter',
        outcomeTwoName: 'Not Inter',
        bettingDelay: 2.5,
        minBetSize: '5000000',
      });
      const plain = await b.market({
        eventId: fixture,
        type: 2,
        line: 2.5,
        outcomeOneName: 'Over 2.5',
        outcomeTwoName: 'Under 2.5',
      });
      const pregameOnly = await b.market({
        eventId: fixture,
        type: 3,
        line: -0.25,
        outcomeOneName: 'Inter -0.25',
        outcomeTwoName: 'Milan +0.25',
        liveEnabled: false,
      });
      const { catalog } = t.exchange;
      expect(await catalog.tradingState(`0x${'00'.repeat(32)}`)).toBeNull();
      const pregame = (await catalog.tradingState(own))!;
      expect(pregame).toMatchObject({
        open: true,
        live: false,
        bettingDelayMs: 0,
        liveDelayMs: 2500,
        minBetSize: 5_000_000n,
      });
      expect(pregame.market.fixture.eventId).toBe(fixture);

      await b.status(fixture, 2);
      expect(await catalog.tradingState(own)).toMatchObject({ open: true, live: true, bettingDelayMs: 2500 });
      // Serie A has no delay of its own: soccer's 10 s.
      expect(await catalog.tradingState(plain)).toMatchObject({
        open: true,
        bettingDelayMs: 10_000,
        minBetSize: 1_000_000n,
      });
      expect(await catalog.tradingState(pregameOnly)).toMatchObject({
        open: false,
        closedReason: 'LIVE_DISABLED',
      });
      const hockey = await b.market({ eventId, type: 52, outcomeOneName: 'Leafs', outcomeTwoName: 'Habs' });
      await b.status(eventId, 2);
      // The NHL's own 5 s beats hockey's 8 s.
      expect(await catalog.tradingState(hockey)).toMatchObject({ open: true, bettingDelayMs: 5000 });

      await b.status(fixture, 6);
      expect(await catalog.tradingState(plain)).toMatchObject({
        open: false,
        closedReason: 'FIXTURE_SUSPENDED',
      });
      await b.status(fixture, 3);
      expect(await catalog.tradingState(plain)).toMatchObject({
        open: false,
        closedReason: 'MARKET_INACTIVE',
      });
    });
  });
});
