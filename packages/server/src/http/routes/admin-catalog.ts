import { Bytes32, Envelope, Fixture, FixtureStatusValue, LiveScore, UintString } from '@oddsbook/protocol';
import { Type } from 'typebox';
import { fixtureToWire, liveScoreToWire } from '../../catalog/wire.js';
import type { Exchange } from '../../exchange/exchange.js';
import { success } from '../envelope.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';
import { EventId } from './catalog-query.js';

const Name = Type.String({ minLength: 1, maxLength: 100 });
/** Seconds; fractions allowed (millisecond precision). */
const DelaySeconds = Type.Number({ minimum: 0, maximum: 300 });
/** Latest game time accepted: 2100-01-01; a millisecond timestamp by mistake is refused. */
const MAX_GAME_TIME = 4_102_444_800;
const tags = ['admin'];

/** Operator routes of the sports catalog (gaps.md "Operator API"). */
export async function adminCatalogRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  const { catalog } = exchange;

  app.post(
    '/admin/leagues',
    {
      schema: {
        summary: 'Create a league',
        security: [{ adminToken: [] }],
        tags,
        body: Type.Object(
          {
            sportId: Type.Integer({ minimum: 1 }),
            label: Name,
            liveDelaySeconds: Type.Optional(DelaySeconds),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(Type.Object({ leagueId: Type.Integer() })),
          ...errorResponses(400, 401, 404, 409, 429),
        },
      },
    },
    async (request) => {
      const league = await catalog.createLeague(request.body);
      request.log.info({ leagueId: league.leagueId }, 'league created');
      return success({ leagueId: league.leagueId });
    },
  );

  app.post(
    '/admin/fixtures',
    {
      schema: {
        summary: 'Create a fixture',
        security: [{ adminToken: [] }],
        tags,
        body: Type.Object(
          {
            leagueId: Type.Integer({ minimum: 1 }),
            teamOneName: Name,
            teamTwoName: Name,
            gameTime: Type.Integer({ minimum: 0, maximum: MAX_GAME_TIME, description: 'unix seconds' }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(Type.Object({ eventId: Type.String() })),
          ...errorResponses(400, 401, 404, 429),
        },
      },
    },
    async (request) => {
      const fixture = await catalog.createFixture(request.body);
      request.log.info({ eventId: fixture.eventId }, 'fixture created');
      return success({ eventId: fixture.eventId });
    },
  );

  app.post(
    '/admin/markets',
    {
      schema: {
        summary: 'Create a market on a fixture',
        description:
          '409 when the market exists or the fixture is closed. A quarter-line market (line x.25 or x.75) is ' +
          'linked to its legs, the markets of the same event and type at the whole and the half line around it ' +
          '(-0.75: -1 and -0.5); a leg the event lacks is created with it (409 QUARTER_LINE_LEG_CLOSED when ' +
          'the event has that line only closed or resolved). `quarterLineLegs` answers [whole, half], else null.',
        security: [{ adminToken: [] }],
        tags,
        body: Type.Object(
          {
            eventId: EventId,
            type: Type.Integer({ minimum: 1 }),
            outcomeOneName: Name,
            outcomeTwoName: Name,
            line: Type.Optional(
              Type.Union([Type.Number(), Type.String({ pattern: '^-?[0-9]{1,6}(\\.[0-9]{1,4})?$' })]),
            ),
            minBetSize: Type.Optional(UintString),
            bettingDelay: Type.Optional(DelaySeconds),
            mainLine: Type.Optional(Type.Boolean()),
            liveEnabled: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(
            Type.Object({
              marketHash: Bytes32,
              quarterLineLegs: Type.Union([Type.Tuple([Bytes32, Bytes32]), Type.Null()]),
            }),
          ),
          ...errorResponses(400, 401, 404, 409, 429),
        },
      },
    },
    async (request) => {
      const { minBetSize, bettingDelay, ...rest } = request.body;
      const market = await catalog.createMarket({
        ...rest,
        ...(minBetSize !== undefined ? { minBetSize: BigInt(minBetSize) } : {}),
        ...(bettingDelay !== undefined ? { bettingDelaySeconds: bettingDelay } : {}),
      });
      request.log.info({ marketHash: market.marketHash, eventId: market.eventId }, 'market created');
      return success({
        marketHash: market.marketHash,
        quarterLineLegs: market.quarterLineLegs === null ? null : [...market.quarterLineLegs],
      });
    },
  );

  app.post(
    '/admin/fixtures/:eventId/scores',
    {
      schema: {
        summary: 'Record a live score',
        description: 'Published on fixtures:live_scores.',
        security: [{ adminToken: [] }],
        tags,
        params: Type.Object({ eventId: EventId }),
        body: Type.Object(
          {
            teamOneScore: Type.Integer({ minimum: 0, maximum: 100_000 }),
            teamTwoScore: Type.Integer({ minimum: 0, maximum: 100_000 }),
            currentPeriod: Type.Optional(Type.String({ maxLength: 50 })),
            periodTime: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(LiveScore), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { eventId } = request.params;
      const { score, fixture } = await catalog.recordScore(eventId, request.body);
      return success(liveScoreToWire(score, fixture));
    },
  );

  app.post(
    '/admin/fixtures/:eventId/status',
    {
      schema: {
        summary: 'Set a fixture status (1..9)',
        description:
          'A finished, cancelled or postponed fixture closes its markets; an interrupted, abandoned or ' +
          'coverage-lost one cancels their orders. A closed fixture whose markets have taken orders cannot ' +
          'go back to an active status (409 FIXTURE_CLOSED: the engine has closed those markets for good).',
        security: [{ adminToken: [] }],
        tags,
        params: Type.Object({ eventId: EventId }),
        body: Type.Object({ status: FixtureStatusValue }, { additionalProperties: false }),
        response: { 200: Envelope(Fixture), ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (request) => {
      const { eventId } = request.params;
      const fixture = await catalog.setFixtureStatus(eventId, request.body.status);
      request.log.info({ eventId, status: fixture.status }, 'fixture status set');
      return success(fixtureToWire(fixture));
    },
  );
}
