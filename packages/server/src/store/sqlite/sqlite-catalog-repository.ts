import type { Database, Statement } from 'better-sqlite3';
import { writeTransaction } from '../../sqlite/write-transaction.js';
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
import type {
  CatalogRepository,
  FixtureRecord,
  LiveScoreRecord,
  MarketQuery,
  MarketRecord,
} from '../repositories.js';
import { foldForSearch } from '../search-folding.js';

const json = (values: readonly unknown[]) => JSON.stringify(values);
const IN_JSON = 'IN (SELECT value FROM json_each(?))';

/** The sports catalog on SQLite. Lists of ids are passed as one JSON array parameter (`json_each`). */
export function sqliteCatalogRepository(db: Database): CatalogRepository {
  const statements = new Map<string, Statement>();
  const prepared = (sql: string): Statement => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };

  const selectSports = db.prepare<[], { sport_id: number; label: string }>(
    'SELECT sport_id, label FROM sports ORDER BY sport_id',
  );
  const selectSport = db.prepare<[number], { sport_id: number; label: string }>(
    'SELECT sport_id, label FROM sports WHERE sport_id = ?',
  );
  const insertLeague = db.prepare(
    'INSERT OR IGNORE INTO leagues (sport_id, label, live_delay_ms, created_at) VALUES (?, ?, ?, ?)',
  );
  const selectLeague = db.prepare<[number], LeagueRow>('SELECT * FROM leagues WHERE league_id = ?');
  const selectLeagues = db.prepare<[], LeagueRow>('SELECT * FROM leagues ORDER BY league_id');
  const insertTeam = db.prepare(
    'INSERT OR IGNORE INTO teams (league_id, name, search_name, created_at) VALUES (?, ?, ?, ?)',
  );
  const selectTeam = db.prepare<[number, string], TeamRow>(
    'SELECT team_id, league_id, name, created_at FROM teams WHERE league_id = ? AND name = ?',
  );
  const insertFixture = db.prepare(
    `INSERT INTO fixtures (event_id, league_id, team_one_id, team_two_id, game_time, status, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const nextFixtureId = db
    .prepare<[], number>('SELECT COALESCE(MAX(fixture_id), 0) + 1 FROM fixtures')
    .pluck();
  const selectFixture = db.prepare<[string], FixtureRow>(
    `SELECT ${FIXTURE_COLUMNS} FROM fixtures f ${FIXTURE_JOINS} WHERE f.event_id = ?`,
  );
  const updateFixtureStatus = db.prepare('UPDATE fixtures SET status = ?, updated_at = ? WHERE event_id = ?');
  const countFixtures = db.prepare<[], number>('SELECT COUNT(*) FROM fixtures').pluck();
  const resolveMarket = db.prepare(
    "UPDATE markets SET status = 'INACTIVE', outcome = ?, reported_date = ?, updated_at = ? WHERE market_hash = ?",
  );
  const insertMarket = db.prepare(
    `INSERT OR IGNORE INTO markets (market_hash, event_id, type, line, outcome_one_name, outcome_two_name,
       outcome_void_name, main_line, live_enabled, betting_delay_ms, min_bet_size, status, outcome, reported_date,
       quarter_line_whole_hash, quarter_line_half_hash, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const selectQuarterLineParents = db.prepare<[string, string], MarketRow>(
    `${MARKET_SELECT} WHERE m.quarter_line_whole_hash = ? OR m.quarter_line_half_hash = ? ORDER BY ${MARKET_ORDER}`,
  );
  const selectQuarterLinesToFollow = db.prepare<[], MarketRow>(
    `${MARKET_SELECT} WHERE m.quarter_line_whole_hash IS NOT NULL AND m.reported_date IS NULL AND EXISTS (
       SELECT 1 FROM markets l
       WHERE l.market_hash IN (m.quarter_line_whole_hash, m.quarter_line_half_hash) AND l.outcome IS NOT NULL)
     ORDER BY ${MARKET_ORDER}`,
  );
  const closeQuarterLineMarket = db.prepare(
    `UPDATE markets SET status = 'INACTIVE', reported_date = ?, updated_at = ?
     WHERE market_hash = ? AND quarter_line_whole_hash IS NOT NULL`,
  );
  const selectMainLines = db
    .prepare<[string, number, string], `0x${string}`>(
      'SELECT market_hash FROM markets WHERE event_id = ? AND type = ? AND main_line = 1 AND market_hash <> ?',
    )
    .pluck();
  const demoteMainLines = db.prepare(
    'UPDATE markets SET main_line = 0, updated_at = ? WHERE event_id = ? AND type = ? AND main_line = 1 AND market_hash <> ?',
  );
  const hasMainLine = db
    .prepare<[string, number], number>(
      'SELECT EXISTS (SELECT 1 FROM markets WHERE event_id = ? AND type = ? AND main_line = 1)',
    )
    .pluck();
  const selectMarket = db.prepare<[string], MarketRow>(`${MARKET_SELECT} WHERE m.market_hash = ?`);
  const selectMarkets = db.prepare<[string], MarketRow>(
    `${MARKET_SELECT} WHERE m.market_hash ${IN_JSON} ORDER BY ${MARKET_ORDER}`,
  );
  const selectEventMarkets = db.prepare<[string], MarketRow>(
    `${MARKET_SELECT} WHERE m.event_id = ? ORDER BY ${MARKET_ORDER}`,
  );
  const selectActiveTypes = db.prepare<[string], { event_id: string; type: number }>(
    `SELECT DISTINCT event_id, type FROM markets WHERE status = 'ACTIVE' AND event_id ${IN_JSON} ORDER BY event_id, type`,
  );
  const upsertLiveScore = db.prepare(
    `INSERT INTO live_scores (event_id, team_one_score, team_two_score, current_period, period_time, periods, extra,
       created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (event_id) DO UPDATE SET team_one_score = excluded.team_one_score,
       team_two_score = excluded.team_two_score, current_period = excluded.current_period,
       period_time = excluded.period_time, periods = excluded.periods, extra = excluded.extra,
       updated_at = excluded.updated_at`,
  );
  const selectLiveScore = db.prepare<[string], LiveScoreRow>('SELECT * FROM live_scores WHERE event_id = ?');
  const selectLiveScores = db.prepare<[string], LiveScoreRow>(
    `SELECT * FROM live_scores WHERE event_id ${IN_JSON} ORDER BY event_id`,
  );

  const insertMarketTx = writeTransaction(db, (m: MarketRecord): { demoted: `0x${string}`[] } | null => {
    const inserted = insertMarket.run(
      m.marketHash,
      m.eventId,
      m.type,
      m.line,
      m.outcomeOneName,
      m.outcomeTwoName,
      m.outcomeVoidName,
      m.mainLine ? 1 : 0,
      m.liveEnabled ? 1 : 0,
      m.bettingDelayMs,
      m.minBetSize.toString(),
      m.status,
      m.outcome,
      m.reportedDate,
      m.quarterLineLegs?.[0] ?? null,
      m.quarterLineLegs?.[1] ?? null,
      m.createdAt,
      m.updatedAt,
    );
    if (inserted.changes === 0) return null;
    if (!m.mainLine) return { demoted: [] };
    const demoted = selectMainLines.all(m.eventId, m.type, m.marketHash);
    demoteMainLines.run(m.updatedAt, m.eventId, m.type, m.marketHash);
    return { demoted };
  });

  const insertFixtureTx = writeTransaction(db, (f: Omit<FixtureRecord, 'eventId'>): FixtureRecord => {
    // Production-like event ids: "L" followed by a number; the number is the row id offset so ids look alike.
    const eventId = `L${1_000_000 + nextFixtureId.get()!}`;
    insertFixture.run(
      eventId,
      f.leagueId,
      f.teamOneId,
      f.teamTwoId,
      f.gameTime,
      f.status,
      f.createdAt,
      f.updatedAt,
    );
    return { eventId, ...f };
  });

  return {
    async listSports() {
      return selectSports.all().map((r) => ({ sportId: r.sport_id, label: r.label }));
    },
    async getSport(sportId) {
      const row = selectSport.get(sportId);
      return row ? { sportId: row.sport_id, label: row.label } : null;
    },

    async insertLeague(league) {
      const result = insertLeague.run(league.sportId, league.label, league.liveDelayMs, league.createdAt);
      if (result.changes === 0) return null;
      return toLeague(selectLeague.get(Number(result.lastInsertRowid))!);
    },
    async getLeague(leagueId) {
      const row = selectLeague.get(leagueId);
      return row ? toLeague(row) : null;
    },
    async listLeagues() {
      return selectLeagues.all().map(toLeague);
    },
    async countEventsByType(fixtureStatuses) {
      const rows = prepared(
        `SELECT f.league_id, m.type, COUNT(DISTINCT f.event_id) AS events
         FROM markets m JOIN fixtures f ON f.event_id = m.event_id
         WHERE m.status = 'ACTIVE' AND f.status ${IN_JSON}
         GROUP BY f.league_id, m.type ORDER BY f.league_id, m.type`,
      ).all(json(fixtureStatuses)) as { league_id: number; type: number; events: number }[];
      return rows.map((r) => ({ leagueId: r.league_id, type: r.type, events: r.events }));
    },
    async leaguesWithFixtures(fixtureStatuses) {
      return prepared(`SELECT DISTINCT league_id FROM fixtures WHERE status ${IN_JSON} ORDER BY league_id`)
        .pluck()
        .all(json(fixtureStatuses)) as number[];
    },

    async ensureTeam(leagueId, name, now) {
      insertTeam.run(leagueId, name, foldForSearch(name), now);
      return toTeam(selectTeam.get(leagueId, name)!);
    },
    async listTeams(filter) {
      const rows =
        filter.leagueId === undefined
          ? (prepared(
              'SELECT team_id, league_id, name, created_at FROM teams ORDER BY team_id',
            ).all() as TeamRow[])
          : (prepared(
              'SELECT team_id, league_id, name, created_at FROM teams WHERE league_id = ? ORDER BY team_id',
            ).all(filter.leagueId) as TeamRow[]);
      return rows.map(toTeam);
    },

    async insertFixture(fixture) {
      return insertFixtureTx(fixture);
    },
    async getFixture(eventId) {
      const row = selectFixture.get(eventId);
      return row ? toFixture(row) : null;
    },
    async listFixtures(filter) {
      const where = [`f.status ${IN_JSON}`];
      const params: unknown[] = [json(filter.statuses)];
      if (filter.leagueId !== undefined) {
        where.push('f.league_id = ?');
        params.push(filter.leagueId);
      }
      if (filter.sportId !== undefined) {
        where.push('l.sport_id = ?');
        params.push(filter.sportId);
      }
      const rows = prepared(
        `SELECT ${FIXTURE_COLUMNS} FROM fixtures f ${FIXTURE_JOINS} WHERE ${where.join(' AND ')}
         ORDER BY f.game_time, f.event_id`,
      ).all(...params) as FixtureRow[];
      return rows.map(toFixture);
    },
    async getFixtures(eventIds) {
      const rows = prepared(
        `SELECT ${FIXTURE_COLUMNS} FROM fixtures f ${FIXTURE_JOINS} WHERE f.event_id ${IN_JSON} ORDER BY f.event_id`,
      ).all(json(eventIds)) as FixtureRow[];
      return rows.map(toFixture);
    },
    async countFixtures() {
      return countFixtures.get()!;
    },
    async updateFixtureStatus(eventId, status, now) {
      updateFixtureStatus.run(status, now, eventId);
      const row = selectFixture.get(eventId);
      return row ? toFixture(row) : null;
    },
    async searchFixtures({ text, statuses, limit }) {
      const rows = prepared(
        `SELECT ${FIXTURE_COLUMNS} FROM fixtures f ${FIXTURE_JOINS}
         WHERE f.status ${IN_JSON} AND (instr(t1.search_name, ?) > 0 OR instr(t2.search_name, ?) > 0)
         ORDER BY f.game_time, f.event_id LIMIT ?`,
      ).all(json(statuses), foldForSearch(text), foldForSearch(text), limit) as FixtureRow[];
      return rows.map(toFixture);
    },

    async resolveMarket(marketHash, outcome, now) {
      if (resolveMarket.run(outcome, Math.floor(now / 1000), now, marketHash).changes === 0) return null;
      return this.getMarket(marketHash);
    },
    async insertMarket(market) {
      return insertMarketTx(market);
    },
    async getMarket(marketHash) {
      const row = selectMarket.get(marketHash.toLowerCase());
      return row ? toMarket(row) : null;
    },
    async findMarkets(marketHashes) {
      return selectMarkets.all(json(marketHashes.map((h) => h.toLowerCase()))).map(toMarket);
    },
    async listQuarterLineMarketsToFollow() {
      return selectQuarterLinesToFollow.all().map(toMarket);
    },
    async listQuarterLineParents(legHash) {
      const hash = legHash.toLowerCase();
      return selectQuarterLineParents.all(hash, hash).map(toMarket);
    },
    async closeQuarterLineMarket(marketHash, reportedDate, now) {
      const hash = marketHash.toLowerCase();
      if (closeQuarterLineMarket.run(reportedDate, now, hash).changes === 0) return null;
      return this.getMarket(hash);
    },
    async listMarkets(query: MarketQuery) {
      const where = [`f.status ${IN_JSON}`, "m.status = 'ACTIVE'"];
      const params: unknown[] = [json(query.fixtureStatuses)];
      if (query.onlyMainLine) where.push('m.main_line = 1');
      if (query.eventId !== undefined) {
        where.push('m.event_id = ?');
        params.push(query.eventId);
      }
      if (query.leagueId !== undefined) {
        where.push('f.league_id = ?');
        params.push(query.leagueId);
      }
      if (query.sportIds !== undefined) {
        where.push(`l.sport_id ${IN_JSON}`);
        params.push(json(query.sportIds));
      }
      if (query.types !== undefined) {
        where.push(`m.type ${IN_JSON}`);
        params.push(json(query.types));
      }
      if (query.liveFixtureStatuses !== undefined) {
        where.push(`m.live_enabled = 1 AND f.status ${IN_JSON}`);
        params.push(json(query.liveFixtureStatuses));
      }
      if (query.ownBettingDelay) where.push('m.betting_delay_ms IS NOT NULL');
      let orderBy = MARKET_ORDER;
      const order = query.order ?? { by: 'gameTime' as const };
      if (order.by === 'gameTime' && order.after) {
        where.push('(f.game_time, f.event_id, m.type, m.market_hash) > (?, ?, ?, ?)');
        const a = order.after;
        params.push(a.gameTime, a.eventId, a.type, a.marketHash);
      } else if (order.by === 'liveFirst') {
        orderBy = `(f.status ${IN_JSON}) DESC, ${MARKET_ORDER}`;
        params.push(json(order.liveStatuses));
      }
      params.push(query.limit);
      const rows = prepared(`${MARKET_SELECT} WHERE ${where.join(' AND ')} ORDER BY ${orderBy} LIMIT ?`).all(
        ...params,
      ) as MarketRow[];
      return rows.map(toMarket);
    },
    async listMarketsOfEvent(eventId) {
      return selectEventMarkets.all(eventId).map(toMarket);
    },
    async activeMarketTypes(eventIds) {
      const types = new Map<string, number[]>();
      for (const row of selectActiveTypes.all(json(eventIds))) {
        const list = types.get(row.event_id) ?? [];
        list.push(row.type);
        types.set(row.event_id, list);
      }
      return types;
    },
    async hasMainLine(eventId, type) {
      return hasMainLine.get(eventId, type) === 1;
    },

    async upsertLiveScore(s: LiveScoreRecord) {
      upsertLiveScore.run(
        s.eventId,
        s.teamOneScore,
        s.teamTwoScore,
        s.currentPeriod,
        s.periodTime,
        JSON.stringify(s.periods),
        s.extra,
        s.createdAt,
        s.updatedAt,
      );
    },
    async getLiveScore(eventId) {
      const row = selectLiveScore.get(eventId);
      return row ? toLiveScore(row) : null;
    },
    async getLiveScores(eventIds) {
      return selectLiveScores.all(json(eventIds)).map(toLiveScore);
    },
  };
}
