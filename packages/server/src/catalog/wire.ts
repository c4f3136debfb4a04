import type { Fixture, LiveScore, Market } from '@oddsbook/protocol';
import type { FixtureView, LiveScoreRecord, MarketView } from '../store/repositories.js';
import { PREGAME_DELAY_MS_DEFAULT } from './betting-delay.js';
import { isQuarterLine, lineNumber } from './market-line.js';
import { effectiveBettingDelayMs, isMarketActive, marketLiveDelayMs } from './market-trading.js';

/** The chain generation markets live on, as production labels it (SX Rollup). */
export const CHAIN_VERSION = 'SXR';

const iso = (ms: number) => new Date(ms).toISOString();

/** The legacy market record (spec: every field present) plus `bettingDelay`, `minBetSize` and resolution. */
export function marketToWire(market: MarketView): Market {
  const f = market.fixture;
  return {
    status: isMarketActive(market) ? 'ACTIVE' : 'INACTIVE',
    marketHash: market.marketHash,
    outcomeOneName: market.outcomeOneName,
    outcomeTwoName: market.outcomeTwoName,
    outcomeVoidName: market.outcomeVoidName,
    teamOneName: f.teamOneName,
    teamTwoName: f.teamTwoName,
    type: market.type,
    gameTime: f.gameTime,
    line: lineNumber(market.line),
    sportXeventId: f.eventId,
    liveEnabled: market.liveEnabled,
    sportLabel: f.sportLabel,
    sportId: f.sportId,
    leagueId: f.leagueId,
    leagueLabel: f.leagueLabel,
    group1: f.leagueLabel,
    chainVersion: CHAIN_VERSION,
    participantOneId: f.teamOneId,
    participantTwoId: f.teamTwoId,
    mainLine: market.mainLine,
    sxTeamOneId: f.teamOneId,
    sxTeamTwoId: f.teamTwoId,
    isQuarterLineMarket: isQuarterLine(market.line),
    quarterLineLegs: market.quarterLineLegs === null ? null : [...market.quarterLineLegs],
    bettingDelay: effectiveBettingDelayMs(market) / 1000,
    pregameBettingDelay: PREGAME_DELAY_MS_DEFAULT / 1000,
    liveBettingDelay: marketLiveDelayMs(market) / 1000,
    minBetSize: market.minBetSize.toString(),
    ...(market.outcome !== null ? { outcome: market.outcome } : {}),
    ...(market.reportedDate !== null ? { reportedDate: market.reportedDate } : {}),
    ...(market.parlayLegs
      ? { legs: market.parlayLegs.map(({ parlayLegs: _none, ...leg }) => marketToWire(leg)) }
      : {}),
  };
}

export function fixtureToWire(fixture: FixtureView): Fixture {
  return {
    eventId: fixture.eventId,
    status: fixture.status,
    leagueId: fixture.leagueId,
    leagueLabel: fixture.leagueLabel,
    sportId: fixture.sportId,
    participantOneName: fixture.teamOneName,
    participantTwoName: fixture.teamTwoName,
    teamOneName: fixture.teamOneName,
    teamTwoName: fixture.teamTwoName,
    teamOneId: fixture.teamOneId,
    teamTwoId: fixture.teamTwoId,
    gameTime: fixture.gameTime,
    startDate: iso(fixture.gameTime * 1000),
  };
}

export function liveScoreToWire(score: LiveScoreRecord, fixture: FixtureView): LiveScore {
  return {
    sportXEventId: score.eventId,
    sportId: fixture.sportId,
    leagueId: fixture.leagueId,
    teamOneScore: score.teamOneScore,
    teamTwoScore: score.teamTwoScore,
    currentPeriod: score.currentPeriod,
    periodTime: score.periodTime,
    periods: score.periods,
    extra: score.extra,
    createdAt: iso(score.createdAt),
    updatedAt: iso(score.updatedAt),
  };
}
