import type { FixtureView, LeagueRecord, LiveScoreRecord, MarketView, TeamRecord } from './repositories.js';
import { isTrue } from './trading-rows.js';

/**
 * Rows of the catalog tables as records, and the joins that read them, for every store (the same SQL runs on
 * SQLite and PostgreSQL); a boolean is SQLite's 1 or PostgreSQL's true.
 */
export type LeagueRow = {
  league_id: number;
  sport_id: number;
  label: string;
  live_delay_ms: number | null;
  created_at: number;
};
export type TeamRow = { team_id: number; league_id: number; name: string; created_at: number };
export type FixtureRow = {
  event_id: string;
  league_id: number;
  team_one_id: number;
  team_two_id: number;
  game_time: number;
  status: number;
  created_at: number;
  updated_at: number;
  team_one_name: string;
  team_two_name: string;
  league_label: string;
  league_live_delay_ms: number | null;
  sport_id: number;
  sport_label: string;
};
export type MarketRow = {
  market_hash: `0x${string}`;
  type: number;
  line: string | null;
  outcome_one_name: string;
  outcome_two_name: string;
  outcome_void_name: string;
  main_line: number | boolean;
  live_enabled: number | boolean;
  betting_delay_ms: number | null;
  min_bet_size: string;
  market_status: 'ACTIVE' | 'INACTIVE';
  outcome: 0 | 1 | 2 | null;
  reported_date: number | null;
  quarter_line_whole_hash: `0x${string}` | null;
  quarter_line_half_hash: `0x${string}` | null;
  market_created_at: number;
  market_updated_at: number;
} & FixtureRow;
export type LiveScoreRow = {
  event_id: string;
  team_one_score: number;
  team_two_score: number;
  current_period: string;
  period_time: string;
  periods: string;
  extra: string;
  created_at: number;
  updated_at: number;
};

export const FIXTURE_COLUMNS = `
  f.event_id, f.league_id, f.team_one_id, f.team_two_id, f.game_time, f.status, f.created_at, f.updated_at,
  t1.name AS team_one_name, t2.name AS team_two_name, l.label AS league_label,
  l.live_delay_ms AS league_live_delay_ms, l.sport_id, s.label AS sport_label`;
export const FIXTURE_JOINS = `
  JOIN leagues l ON l.league_id = f.league_id
  JOIN sports s ON s.sport_id = l.sport_id
  JOIN teams t1 ON t1.team_id = f.team_one_id
  JOIN teams t2 ON t2.team_id = f.team_two_id`;
export const MARKET_SELECT = `
  SELECT m.market_hash, m.type, m.line, m.outcome_one_name, m.outcome_two_name, m.outcome_void_name,
    m.main_line, m.live_enabled, m.betting_delay_ms, m.min_bet_size, m.status AS market_status, m.outcome,
    m.reported_date, m.quarter_line_whole_hash, m.quarter_line_half_hash, m.created_at AS market_created_at,
    m.updated_at AS market_updated_at, ${FIXTURE_COLUMNS}
  FROM markets m JOIN fixtures f ON f.event_id = m.event_id ${FIXTURE_JOINS}`;
export const MARKET_ORDER = 'f.game_time, f.event_id, m.type, m.market_hash';

export const toLeague = (row: LeagueRow): LeagueRecord => ({
  leagueId: row.league_id,
  sportId: row.sport_id,
  label: row.label,
  liveDelayMs: row.live_delay_ms,
  createdAt: row.created_at,
});

export const toTeam = (row: TeamRow): TeamRecord => ({
  teamId: row.team_id,
  leagueId: row.league_id,
  name: row.name,
  createdAt: row.created_at,
});

export const toFixture = (row: FixtureRow): FixtureView => ({
  eventId: row.event_id,
  leagueId: row.league_id,
  teamOneId: row.team_one_id,
  teamTwoId: row.team_two_id,
  gameTime: row.game_time,
  status: row.status,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  teamOneName: row.team_one_name,
  teamTwoName: row.team_two_name,
  leagueLabel: row.league_label,
  leagueLiveDelayMs: row.league_live_delay_ms,
  sportId: row.sport_id,
  sportLabel: row.sport_label,
});

export const toMarket = (row: MarketRow): MarketView => ({
  marketHash: row.market_hash,
  eventId: row.event_id,
  type: row.type,
  line: row.line,
  outcomeOneName: row.outcome_one_name,
  outcomeTwoName: row.outcome_two_name,
  outcomeVoidName: row.outcome_void_name,
  mainLine: isTrue(row.main_line),
  liveEnabled: isTrue(row.live_enabled),
  bettingDelayMs: row.betting_delay_ms,
  minBetSize: BigInt(row.min_bet_size),
  status: row.market_status,
  outcome: row.outcome,
  reportedDate: row.reported_date,
  quarterLineLegs:
    row.quarter_line_whole_hash !== null && row.quarter_line_half_hash !== null
      ? [row.quarter_line_whole_hash, row.quarter_line_half_hash]
      : null,
  createdAt: row.market_created_at,
  updatedAt: row.market_updated_at,
  fixture: toFixture(row),
});

export const toLiveScore = (row: LiveScoreRow): LiveScoreRecord => ({
  eventId: row.event_id,
  teamOneScore: row.team_one_score,
  teamTwoScore: row.team_two_score,
  currentPeriod: row.current_period,
  periodTime: row.period_time,
  periods: JSON.parse(row.periods) as LiveScoreRecord['periods'],
  extra: row.extra,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
