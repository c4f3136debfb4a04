import {
  ActiveLeague,
  Envelope,
  Fixture,
  League,
  LiveScore,
  SearchResult,
  Sport,
  Team,
} from '@oddsbook/protocol';
import { Type } from 'typebox';
import { CATALOG_LIMITS } from '../../catalog/catalog-service.js';
import { fixtureToWire, liveScoreToWire } from '../../catalog/wire.js';
import type { Exchange } from '../../exchange/exchange.js';
import { success } from '../envelope.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';
import { EventIdList, parseEventIds } from './catalog-query.js';

/** Public sports data in the production API's shapes: sports, leagues, teams, fixtures, live scores, search. */
export async function catalogRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  const { catalog } = exchange;
  const tags = ['market data'];

  app.get(
    '/sports',
    {
      schema: {
        summary: 'List sports',
        tags,
        response: { 200: Envelope(Type.Array(Sport)), ...errorResponses(429) },
      },
    },
    async () => success(await catalog.sports()),
  );

  app.get(
    '/leagues',
    {
      schema: {
        summary: 'List leagues',
        tags,
        response: { 200: Envelope(Type.Array(League)), ...errorResponses(429) },
      },
    },
    async () =>
      success(
        (await catalog.leagues()).map((l) => ({
          leagueId: l.leagueId,
          label: l.label,
          sportId: l.sportId,
          active: l.active,
          liveDelayMs: l.liveDelayMs,
        })),
      ),
  );

  app.get(
    '/leagues/active',
    {
      schema: {
        summary: 'List leagues with open markets',
        tags,
        response: { 200: Envelope(Type.Array(ActiveLeague)), ...errorResponses(429) },
      },
    },
    async () =>
      success(
        (await catalog.activeLeagues()).map((l) => ({
          leagueId: l.leagueId,
          label: l.label,
          sportId: l.sportId,
          active: l.active,
          liveDelayMs: l.liveDelayMs,
          eventsByType: l.eventsByType,
        })),
      ),
  );

  app.get(
    '/teams',
    {
      schema: {
        summary: 'List teams, optionally of one league',
        tags,
        querystring: Type.Object({ leagueId: Type.Optional(Type.Integer({ minimum: 1 })) }),
        response: { 200: Envelope(Type.Array(Team)), ...errorResponses(400, 429) },
      },
    },
    async (request) => {
      const { leagueId } = request.query;
      const teams = await catalog.teams(leagueId === undefined ? {} : { leagueId });
      return success(teams.map((t) => ({ teamId: t.teamId, name: t.name, leagueIds: [t.leagueId] })));
    },
  );

  app.get(
    '/fixture/active',
    {
      schema: {
        summary: 'List fixtures with open markets',
        tags,
        querystring: Type.Object({
          leagueId: Type.Optional(Type.Integer({ minimum: 1 })),
          sportId: Type.Optional(Type.Integer({ minimum: 1 })),
        }),
        response: { 200: Envelope(Type.Array(Fixture)), ...errorResponses(400, 429) },
      },
    },
    async (request) => {
      const { leagueId, sportId } = request.query;
      const fixtures = await catalog.activeFixtures({
        ...(leagueId !== undefined ? { leagueId } : {}),
        ...(sportId !== undefined ? { sportId } : {}),
      });
      return success(fixtures.map(fixtureToWire));
    },
  );

  app.get(
    '/fixture/status',
    {
      schema: {
        summary: 'Statuses of fixtures by event id',
        tags,
        querystring: Type.Object({ sportXEventIds: EventIdList }),
        response: { 200: Envelope(Type.Record(Type.String(), Type.Integer())), ...errorResponses(400, 429) },
      },
    },
    async (request) => {
      const ids = parseEventIds(request.query.sportXEventIds, {
        field: 'sportXEventIds',
        max: CATALOG_LIMITS.fixtureStatusEventIds,
      });
      return success(await catalog.fixtureStatuses(ids));
    },
  );

  app.get(
    '/live-scores',
    {
      schema: {
        summary: 'Live scores of fixtures by event id',
        tags,
        querystring: Type.Object({ sportXEventIds: EventIdList }),
        response: { 200: Envelope(Type.Array(LiveScore)), ...errorResponses(400, 429) },
      },
    },
    async (request) => {
      const ids = parseEventIds(request.query.sportXEventIds, {
        field: 'sportXEventIds',
        max: CATALOG_LIMITS.liveScoreEventIds,
      });
      const scores = await catalog.liveScores(ids);
      return success(scores.map(({ score, fixture }) => liveScoreToWire(score, fixture)));
    },
  );

  app.get(
    '/search',
    {
      schema: {
        summary: 'Search active fixtures by team name',
        description: 'Case-insensitive partial match; up to 8 fixtures in game-time order.',
        tags,
        querystring: Type.Object({ query: Type.String({ minLength: 3, maxLength: 100 }) }),
        response: { 200: Envelope(Type.Array(SearchResult)), ...errorResponses(400, 429) },
      },
    },
    async (request) => {
      const hits = await catalog.search(request.query.query);
      return success(
        hits.map(({ fixture, marketTypes }) => ({
          eventId: fixture.eventId,
          teamOneName: fixture.teamOneName,
          teamTwoName: fixture.teamTwoName,
          gameTime: fixture.gameTime,
          leagueLabel: fixture.leagueLabel,
          sportId: fixture.sportId,
          marketTypes,
        })),
      );
    },
  );
}
