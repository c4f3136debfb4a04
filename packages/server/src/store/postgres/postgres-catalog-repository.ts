import type pg from 'pg';
import {
  FIXTURE_COLUMNS,
  FIXTURE_JOINS,
  type FixtureRow,
  type LeagueRow,
  type LiveScoreRow,
  MARKET_ORDER,
  MARKET_SELECT,
  type MarketRow,
  type TeamRow,
  toFixture,
  toLeague,
  toLiveScore,
  toMarket,
  toTeam,
} from '../catalog-rows.js';
import type { CatalogRepository, LiveScoreRecord, MarketQuery } from '../repositories.js';
import { foldForSearch } from '../search-folding.js';
import { holdsNul } from './named-parameters.js';
import { inTransaction } from './transaction.js';

/**
 * Ids, statuses and types are INTEGER columns: a number that no INTEGER holds (a request's 1e30 or 1.5)
 * matches nothing, as SQLite's comparison of mixed numbers answers, instead of failing the query.
 */
const isInteger = (n: number) => Number.isInteger(n) && n >= -2_147_483_648 && n <= 2_147_483_647;
const integers = (list: readonly number[]) => list.filter(isInteger);

/** The sports catalog on PostgreSQL. Lists of ids are passed as one array parameter (`= ANY($n)`). */
export function postgresCatalogRepository(pool: pg.Pool): CatalogRepository {
  const rows = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> =>
    holdsNul(values) ? [] : (await pool.query<R>(text, values)).rows;
  const selectFixture = `SELECT ${FIXTURE_COLUMNS} FROM fixtures f ${FIXTURE_JOINS} WHERE f.event_id = $1`;
  const getMarket = async (marketHash: string) => {
    const [row] = await rows<MarketRow>(`${MARKET_SELECT} WHERE m.market_hash = $1`, [
      marketHash.toLowerCase(),
    ]);
    return row ? toMarket(row) : null;
  };

  return {
    async listSports() {
      return (
        await rows<{ sport_id: number; label: string }>(
          'SELECT sport_id, label FROM sports ORDER BY sport_id',
        )
      ).map((r) => ({ sportId: r.sport_id, label: r.label }));
    },
    async getSport(sportId) {
      if (!isInteger(sportId)) return null;
      const [row] = await rows<{ sport_id: number; label: string }>(
        'SELECT sport_id, label FROM sports WHERE sport_id = $1',
        [sportId],
      );
      return row ? { sportId: row.sport_id, label: row.label } : null;
    },

    async insertLeague(league) {
      const [row] = await rows<LeagueRow>(
        `INSERT INTO leagues (sport_id, label, live_delay_ms, created_at) VALUES ($1, $2, $3, $4)
          ON CONFLICT (sport_id, label) DO NOTHING RETURNING *`,
        [league.sportId, league.label, league.liveDelayMs, league.createdAt],
      );
      return row ? toLeague(row) : null;
    },
    async getLeague(leagueId) {
      if (!isInteger(leagueId)) return null;
      const [row] = await rows<LeagueRow>('SELECT * FROM leagues WHERE league_id = $1', [leagueId]);
      return row ? toLeague(row) : null;
    },
    async listLeagues() {
      return (await rows<LeagueRow>('SELECT * FROM leagues ORDER BY league_id')).map(toLeague);
    },
    async countEventsByType(fixtureStatuses) {
      return (
        await rows<{ league_id: number; type: number; events: number }>(
          `SELECT f.league_id, m.type, COUNT(DISTINCT f.event_id) AS events
           FROM markets m JOIN fixtures f ON f.event_id = m.event_id
           WHERE m.status = 'ACTIVE' AND f.status = ANY($1::int[])
           GROUP BY f.league_id, m.type ORDER BY f.league_id, m.type`,
          [integers(fixtureStatuses)],
        )
      ).map((r) => ({ leagueId: r.league_id, type: r.type, events: r.events }));
    },
    async leaguesWithFixtures(fixtureStatuses) {
      return (
        await rows<{ league_id: number }>(
          'SELECT DISTINCT league_id FROM fixtures WHERE status = ANY($1::int[]) ORDER BY league_id',
          [integers(fixtureStatuses)],
        )
      ).map((r) => r.league_id);
    },

    async ensureTeam(leagueId, name, now) {
      await pool.query(
        `INSERT INTO teams (league_id, name, search_name, created_at) VALUES ($1, $2, $3, $4)
          ON CONFLICT (league_id, name) DO NOTHING`,
        [leagueId, name, foldForSearch(name), now],
      );
      const [row] = await rows<TeamRow>(
        'SELECT team_id, league_id, name, created_at FROM teams WHERE league_id = $1 AND name = $2',
        [leagueId, name],
      );
      return toTeam(row!);
    },
    async listTeams(filter) {
      if (filter.leagueId !== undefined && !isInteger(filter.leagueId)) return [];
      const list =
        filter.leagueId === undefined
          ? await rows<TeamRow>('SELECT team_id, league_id, name, created_at FROM teams ORDER BY team_id')
          : await rows<TeamRow>(
              'SELECT team_id, league_id, name, created_at FROM teams WHERE league_id = $1 ORDER BY team_id',
              [filter.leagueId],
            );
      return list.map(toTeam);
    },

    async insertFixture(f) {
      // Production-like event ids: "L" followed by a number, the row's id offset so ids look alike.
      const [row] = await rows<{ event_id: string }>(
        `WITH next AS (SELECT nextval(pg_get_serial_sequence('fixtures', 'fixture_id')) AS id)
         INSERT INTO fixtures (fixture_id, event_id, league_id, team_one_id, team_two_id, game_time, status,
           created_at, updated_at)
         SELECT id, 'L' || (1000000 + id), $1, $2, $3, $4, $5, $6, $7 FROM next RETURNING event_id`,
        [f.leagueId, f.teamOneId, f.teamTwoId, f.gameTime, f.status, f.createdAt, f.updatedAt],
      );
      return { eventId: row!.event_id, ...f };
    },
    async getFixture(eventId) {
      const [row] = await rows<FixtureRow>(selectFixture, [eventId]);
      return row ? toFixture(row) : null;
    },
    async listFixtures(filter) {
      if (filter.leagueId !== undefined && !isInteger(filter.leagueId)) return [];
      if (filter.sportId !== undefined && !isInteger(filter.sportId)) return [];
      const where = ['f.status = ANY($1::int[])'];
      const values: unknown[] = [integers(filter.statuses)];
      if (filter.leagueId !== undefined) {
        values.push(filter.leagueId);
        where.push(`f.league_id = $${values.length}`);
      }
      if (filter.sportId !== undefined) {
        values.push(filter.sportId);
        where.push(`l.sport_id = $${values.length}`);
      }
      return (
        await rows<FixtureRow>(
          `SELECT ${FIXTURE_COLUMNS} FROM fixtures f ${FIXTURE_JOINS} WHERE ${where.join(' AND ')}
           ORDER BY f.game_time, f.event_id`,
          values,
        )
      ).map(toFixture);
    },
    async getFixtures(eventIds) {
      return (
        await rows<FixtureRow>(
          `SELECT ${FIXTURE_COLUMNS} FROM fixtures f ${FIXTURE_JOINS} WHERE f.event_id = ANY($1::text[])
           ORDER BY f.event_id`,
          [eventIds],
        )
      ).map(toFixture);
    },
    async countFixtures() {
      return (await rows<{ n: number }>('SELECT COUNT(*) AS n FROM fixtures'))[0]!.n;
    },
    async updateFixtureStatus(eventId, status, now) {
      if (holdsNul([eventId])) return null;
      await pool.query('UPDATE fixtures SET status = $1, updated_at = $2 WHERE event_id = $3', [
        status,
        now,
        eventId,
      ]);
      const [row] = await rows<FixtureRow>(selectFixture, [eventId]);
      return row ? toFixture(row) : null;
    },
    async searchFixtures({ text, statuses, limit }) {
      return (
        await rows<FixtureRow>(
          `SELECT ${FIXTURE_COLUMNS} FROM fixtures f ${FIXTURE_JOINS}
           WHERE f.status = ANY($1::int[]) AND (strpos(t1.search_name, $2) > 0 OR strpos(t2.search_name, $2) > 0)
           ORDER BY f.game_time, f.event_id LIMIT $3`,
          [integers(statuses), foldForSearch(text), limit],
        )
      ).map(toFixture);
    },

    async resolveMarket(marketHash, outcome, now) {
      if (holdsNul([marketHash])) return null;
      const { rowCount } = await pool.query(
        "UPDATE markets SET status = 'INACTIVE', outcome = $1, reported_date = $2, updated_at = $3 WHERE market_hash = $4",
        [outcome, Math.floor(now / 1000), now, marketHash],
      );
      return rowCount === 0 ? null : getMarket(marketHash);
    },
    async insertMarket(m) {
      return inTransaction(pool, async (client) => {
        const inserted = await client.query(
          `INSERT INTO markets (market_hash, event_id, type, line, outcome_one_name, outcome_two_name,
             outcome_void_name, main_line, live_enabled, betting_delay_ms, min_bet_size, status, outcome,
             reported_date, quarter_line_whole_hash, quarter_line_half_hash, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
           ON CONFLICT (market_hash) DO NOTHING`,
          [
            m.marketHash,
            m.eventId,
            m.type,
            m.line,
            m.outcomeOneName,
            m.outcomeTwoName,
            m.outcomeVoidName,
            m.mainLine,
            m.liveEnabled,
            m.bettingDelayMs,
            m.minBetSize.toString(),
            m.status,
            m.outcome,
            m.reportedDate,
            m.quarterLineLegs?.[0] ?? null,
            m.quarterLineLegs?.[1] ?? null,
            m.createdAt,
            m.updatedAt,
          ],
        );
        if (inserted.rowCount === 0) return null;
        if (!m.mainLine) return { demoted: [] };
        const demoted = await client.query<{ market_hash: `0x${string}` }>(
          `UPDATE markets SET main_line = false, updated_at = $1
           WHERE event_id = $2 AND type = $3 AND main_line AND market_hash <> $4 RETURNING market_hash`,
          [m.updatedAt, m.eventId, m.type, m.marketHash],
        );
        return { demoted: demoted.rows.map((r) => r.market_hash).sort() };
      });
    },
    getMarket,
    async findMarkets(marketHashes) {
      return (
        await rows<MarketRow>(
          `${MARKET_SELECT} WHERE m.market_hash = ANY($1::text[]) ORDER BY ${MARKET_ORDER}`,
          [marketHashes.map((h) => h.toLowerCase())],
        )
      ).map(toMarket);
    },
    async listQuarterLineMarketsToFollow() {
      return (
        await rows<MarketRow>(
          `${MARKET_SELECT} WHERE m.quarter_line_whole_hash IS NOT NULL AND m.reported_date IS NULL AND EXISTS (
             SELECT 1 FROM markets l
             WHERE l.market_hash IN (m.quarter_line_whole_hash, m.quarter_line_half_hash) AND l.outcome IS NOT NULL)
           ORDER BY ${MARKET_ORDER}`,
        )
      ).map(toMarket);
    },
    async listQuarterLineParents(legHash) {
      return (
        await rows<MarketRow>(
          `${MARKET_SELECT} WHERE m.quarter_line_whole_hash = $1 OR m.quarter_line_half_hash = $1
           ORDER BY ${MARKET_ORDER}`,
          [legHash.toLowerCase()],
        )
      ).map(toMarket);
    },
    async closeQuarterLineMarket(marketHash, reportedDate, now) {
      if (holdsNul([marketHash])) return null;
      const hash = marketHash.toLowerCase();
      const { rowCount } = await pool.query(
        `UPDATE markets SET status = 'INACTIVE', reported_date = $1, updated_at = $2
         WHERE market_hash = $3 AND quarter_line_whole_hash IS NOT NULL`,
        [reportedDate, now, hash],
      );
      return rowCount === 0 ? null : getMarket(hash);
    },
    async listMarkets(query: MarketQuery) {
      if (query.leagueId !== undefined && !isInteger(query.leagueId)) return [];
      const values: unknown[] = [integers(query.fixtureStatuses)];
      const param = (value: unknown) => `$${values.push(value)}`;
      const where = ['f.status = ANY($1::int[])', "m.status = 'ACTIVE'"];
      if (query.onlyMainLine) where.push('m.main_line');
      if (query.eventId !== undefined) where.push(`m.event_id = ${param(query.eventId)}`);
      if (query.leagueId !== undefined) where.push(`f.league_id = ${param(query.leagueId)}`);
      if (query.sportIds !== undefined)
        where.push(`l.sport_id = ANY(${param(integers(query.sportIds))}::int[])`);
      if (query.types !== undefined) where.push(`m.type = ANY(${param(integers(query.types))}::int[])`);
      if (query.liveFixtureStatuses !== undefined)
        where.push(`m.live_enabled AND f.status = ANY(${param(integers(query.liveFixtureStatuses))}::int[])`);
      if (query.ownBettingDelay) where.push('m.betting_delay_ms IS NOT NULL');
      let orderBy = MARKET_ORDER;
      const order = query.order ?? { by: 'gameTime' as const };
      if (order.by === 'gameTime' && order.after) {
        const a = order.after;
        where.push(
          `(f.game_time, f.event_id, m.type, m.market_hash) > (${param(a.gameTime)}::bigint, ${param(a.eventId)}::text, ${param(a.type)}::bigint, ${param(a.marketHash)}::text)`,
        );
      } else if (order.by === 'liveFirst') {
        orderBy = `(f.status = ANY(${param(integers(order.liveStatuses))}::int[])) DESC, ${MARKET_ORDER}`;
      }
      return (
        await rows<MarketRow>(
          `${MARKET_SELECT} WHERE ${where.join(' AND ')} ORDER BY ${orderBy} LIMIT ${param(query.limit)}`,
          values,
        )
      ).map(toMarket);
    },
    async listMarketsOfEvent(eventId) {
      return (
        await rows<MarketRow>(`${MARKET_SELECT} WHERE m.event_id = $1 ORDER BY ${MARKET_ORDER}`, [eventId])
      ).map(toMarket);
    },
    async activeMarketTypes(eventIds) {
      const types = new Map<string, number[]>();
      for (const row of await rows<{ event_id: string; type: number }>(
        `SELECT DISTINCT event_id, type FROM markets WHERE status = 'ACTIVE' AND event_id = ANY($1::text[])
         ORDER BY event_id, type`,
        [eventIds],
      )) {
        const list = types.get(row.event_id) ?? [];
        list.push(row.type);
        types.set(row.event_id, list);
      }
      return types;
    },
    async hasMainLine(eventId, type) {
      if (!isInteger(type)) return false;
      const [row] = await rows<{ has: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM markets WHERE event_id = $1 AND type = $2 AND main_line) AS has',
        [eventId, type],
      );
      return row?.has === true;
    },

    async upsertLiveScore(s: LiveScoreRecord) {
      await pool.query(
        `INSERT INTO live_scores (event_id, team_one_score, team_two_score, current_period, period_time, periods,
           extra, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (event_id) DO UPDATE SET team_one_score = excluded.team_one_score,
           team_two_score = excluded.team_two_score, current_period = excluded.current_period,
           period_time = excluded.period_time, periods = excluded.periods, extra = excluded.extra,
           updated_at = excluded.updated_at`,
        [
          s.eventId,
          s.teamOneScore,
          s.teamTwoScore,
          s.currentPeriod,
          s.periodTime,
          JSON.stringify(s.periods),
          s.extra,
          s.createdAt,
          s.updatedAt,
        ],
      );
    },
    async getLiveScore(eventId) {
      const [row] = await rows<LiveScoreRow>('SELECT * FROM live_scores WHERE event_id = $1', [eventId]);
      return row ? toLiveScore(row) : null;
    },
    async getLiveScores(eventIds) {
      return (
        await rows<LiveScoreRow>(
          'SELECT * FROM live_scores WHERE event_id = ANY($1::text[]) ORDER BY event_id',
          [eventIds],
        )
      ).map(toLiveScore);
    },
  };
}
