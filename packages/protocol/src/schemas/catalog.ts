import { type Static, Type } from 'typebox';
import { Bytes32, UintString } from './common.js';

/** Sports catalog wire shapes: sports, leagues, teams, fixtures, live scores, markets, search. */

export const Sport = Type.Object({ sportId: Type.Integer(), label: Type.String() });
export type Sport = Static<typeof Sport>;

export const League = Type.Object({
  leagueId: Type.Integer(),
  label: Type.String(),
  sportId: Type.Integer(),
  /** True while the league has at least one active fixture. */
  active: Type.Boolean(),
  /** The league's own live betting delay in ms, when it overrides its sport's. */
  liveDelayMs: Type.Union([Type.Integer(), Type.Null()]),
});
export type League = Static<typeof League>;

export const ActiveLeague = Type.Object({
  ...League.properties,
  /** Market type id -> number of active fixtures offering that type. */
  eventsByType: Type.Record(Type.String(), Type.Integer()),
});
export type ActiveLeague = Static<typeof ActiveLeague>;

export const Team = Type.Object({
  teamId: Type.Integer(),
  name: Type.String(),
  leagueIds: Type.Array(Type.Integer()),
});
export type Team = Static<typeof Team>;

/** Fixture status: 1 not started, 2 in progress, 3 finished, 4 cancelled, 5 postponed, 6 interrupted, 7 abandoned, 8 coverage lost, 9 about to start. */
export const FixtureStatusValue = Type.Integer({ minimum: 1, maximum: 9 });

export const Fixture = Type.Object({
  eventId: Type.String(),
  status: FixtureStatusValue,
  leagueId: Type.Integer(),
  leagueLabel: Type.String(),
  sportId: Type.Integer(),
  participantOneName: Type.String(),
  participantTwoName: Type.String(),
  teamOneName: Type.String(),
  teamTwoName: Type.String(),
  teamOneId: Type.Integer(),
  teamTwoId: Type.Integer(),
  /** Unix seconds. */
  gameTime: Type.Integer(),
  /** ISO-8601 form of `gameTime`. */
  startDate: Type.String({ format: 'date-time' }),
});
export type Fixture = Static<typeof Fixture>;

export const LiveScorePeriod = Type.Object({
  label: Type.String(),
  isFinished: Type.Boolean(),
  teamOneScore: Type.String(),
  teamTwoScore: Type.String(),
});

export const LiveScore = Type.Object({
  sportXEventId: Type.String(),
  sportId: Type.Integer(),
  leagueId: Type.Integer(),
  teamOneScore: Type.Integer(),
  teamTwoScore: Type.Integer(),
  currentPeriod: Type.String(),
  /** "-1" when not applicable. */
  periodTime: Type.String(),
  periods: Type.Array(LiveScorePeriod),
  /** A JSON string. */
  extra: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type LiveScore = Static<typeof LiveScore>;

export const MarketStatus = Type.Union([Type.Literal('ACTIVE'), Type.Literal('INACTIVE')]);

/** The fields of every market record (a parlay market's `legs` are records of this shape). */
const marketFields = {
  status: MarketStatus,
  marketHash: Bytes32,
  outcomeOneName: Type.String(),
  outcomeTwoName: Type.String(),
  outcomeVoidName: Type.String(),
  teamOneName: Type.String(),
  teamTwoName: Type.String(),
  type: Type.Integer(),
  /** Unix seconds. */
  gameTime: Type.Integer(),
  /** Null for market types without a line (moneylines). */
  line: Type.Union([Type.Number(), Type.Null()]),
  sportXeventId: Type.String(),
  liveEnabled: Type.Boolean(),
  sportLabel: Type.String(),
  sportId: Type.Integer(),
  leagueId: Type.Integer(),
  leagueLabel: Type.String(),
  group1: Type.String(),
  chainVersion: Type.String(),
  participantOneId: Type.Integer(),
  participantTwoId: Type.Integer(),
  mainLine: Type.Boolean(),
  sxTeamOneId: Type.Integer(),
  sxTeamTwoId: Type.Integer(),
  isQuarterLineMarket: Type.Boolean(),
  /**
   * A quarter-line market's two leg markets, [whole line, half line] (-0.75: the -1 and -0.5 markets of
   * the same event and type); null for every other market. Half of each matched stake goes on each leg's
   * positions and the legs' results settle it: it has no `outcome` of its own, and gets its `reportedDate`
   * (status INACTIVE) once both legs are resolved.
   */
  quarterLineLegs: Type.Union([Type.Tuple([Bytes32, Bytes32]), Type.Null()]),
  /** Effective betting delay in seconds for the fixture's current phase (pregame or live). */
  bettingDelay: Type.Number(),
  /** The betting delay in force before the fixture starts, seconds. */
  pregameBettingDelay: Type.Number(),
  /** The betting delay in force once the fixture is in play, seconds (the market's, league's or sport's). */
  liveBettingDelay: Type.Number(),
  /** Minimum stake in base-token units. */
  minBetSize: UintString,
  /** 0 void, 1 outcome one, 2 outcome two; present once resolved. */
  outcome: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 })),
  /** Unix seconds; present once resolved. */
  reportedDate: Type.Optional(Type.Integer()),
};

/** A market record without `legs`: what a parlay market's `legs` hold. */
export const MarketLeg = Type.Object(marketFields);
export type MarketLeg = Static<typeof MarketLeg>;

/** The legacy market record of `GET /markets/active` and `GET /markets/find`, plus oddsbook's additions. */
export const Market = Type.Object({
  ...marketFields,
  /**
   * A parlay market (docs/parlays.md): the markets of its legs as full records, in the order of the request;
   * absent on every other market. A parlay market is made for one request and settled by its legs' results.
   */
  legs: Type.Optional(Type.Array(MarketLeg)),
});
export type Market = Static<typeof Market>;

export const ActiveMarketsPage = Type.Object({
  markets: Type.Array(Market),
  /** Opaque; pass as `paginationKey` for the next page. Null on the last page. */
  nextKey: Type.Union([Type.String(), Type.Null()]),
});
export type ActiveMarketsPage = Static<typeof ActiveMarketsPage>;

export const SearchResult = Type.Object({
  eventId: Type.String(),
  teamOneName: Type.String(),
  teamTwoName: Type.String(),
  gameTime: Type.Integer(),
  leagueLabel: Type.String(),
  sportId: Type.Integer(),
  /** Market type ids with an active market on the fixture, ascending. */
  marketTypes: Type.Array(Type.Integer()),
});
export type SearchResult = Static<typeof SearchResult>;
