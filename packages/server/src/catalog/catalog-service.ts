import { ErrorCode } from '@oddsbook/protocol';
import { EXCHANGE_LIMITS } from '../config/limits.js';
import { badRequest, conflict, notFound } from '../errors/app-error.js';
import type { Clock } from '../lib/clock.js';
import type {
  CatalogRepository,
  FixtureView,
  LeagueRecord,
  LiveScoreRecord,
  MarketView,
  SportRecord,
  TeamRecord,
} from '../store/repositories.js';
import { type CatalogEvent, CatalogEvents, type CatalogListener } from './catalog-events.js';
import {
  ACTIVE_FIXTURE_STATUSES,
  FIXTURE_STATUS,
  fixtureStatusName,
  isActiveFixtureStatus,
} from './fixture-status.js';
import { type LiveScoreInput, nextLiveScore } from './live-score.js';
import { computeMarketHash } from './market-hash.js';
import { canonicalLine, isQuarterLine, LineError } from './market-line.js';
import { isMarketActive, type MarketTradingState, marketTradingState } from './market-trading.js';
import { marketTypeInfo } from './market-types.js';
import { decodePaginationKey, encodePaginationKey } from './pagination-key.js';
import { legOutcomeNames, quarterLineLegLines } from './quarter-line.js';

export const CATALOG_LIMITS = {
  marketsPageSize: 50,
  popularMarkets: 10,
  liveScoreEventIds: 50,
  fixtureStatusEventIds: 100,
  searchResults: EXCHANGE_LIMITS.searchResults,
  findMarketHashes: EXCHANGE_LIMITS.findMarketHashes,
  /** Active markets with a delay of their own listed in the metadata at most (operators set few). */
  ownDelayMarkets: 10_000,
} as const;

export type ActiveLeagueView = LeagueRecord & { active: boolean; eventsByType: Record<string, number> };
export type TeamView = TeamRecord;
export type SearchHit = { fixture: FixtureView; marketTypes: number[] };

export type ActiveMarketsFilter = {
  onlyMainLine?: boolean;
  eventId?: string;
  leagueId?: number;
  sportIds?: readonly number[];
  liveOnly?: boolean;
  types?: readonly number[];
  paginationKey?: string;
  pageSize?: number;
};

export type CreateLeagueInput = { sportId: number; label: string; liveDelaySeconds?: number };
export type CreateFixtureInput = {
  leagueId: number;
  teamOneName: string;
  teamTwoName: string;
  gameTime: number;
};
export type CreateMarketInput = {
  eventId: string;
  type: number;
  outcomeOneName: string;
  outcomeTwoName: string;
  line?: number | string;
  minBetSize?: bigint;
  /** The market's own live betting delay, in seconds. */
  bettingDelaySeconds?: number;
  mainLine?: boolean;
  liveEnabled?: boolean;
};

/** A quarter-line market is not resolved itself: its legs are (409 in the error shape). */
export function quarterLineNotResolvable(market: { quarterLineLegs: readonly [string, string] | null }) {
  const [whole, half] = market.quarterLineLegs ?? ['', ''];
  return conflict(
    'QUARTER_LINE_MARKET',
    `a quarter-line market is settled by its legs: resolve ${whole} and ${half}`,
  );
}

const LIVE_STATUSES = [FIXTURE_STATUS.inProgress] as const;
/** Markets whose trading state is kept in memory at most (unknown hashes are never cached). */
const TRADING_STATE_CACHE_LIMIT = 10_000;

/**
 * The sports catalog: the public reads, the operator writes (the demo seed uses the same calls), and
 * what the order path asks about a market. Writes emit a CatalogEvent after they commit.
 */
export class CatalogService {
  readonly #repo: CatalogRepository;
  readonly #clock: Clock;
  readonly #events: CatalogEvents;
  /**
   * Trading states of known markets for the order path, so that admitting an order reads no SQL. Every
   * catalog write that can change one emits an event after it commits, and any such event empties the
   * cache; `#generation` keeps a read that straddles a write from storing a stale state.
   */
  readonly #tradingStates = new Map<string, MarketTradingState>();
  #generation = 0;
  readonly #inEngine: (marketHash: string) => boolean;
  #parlays: (marketHash: string) => Promise<MarketView | null> = () => Promise.resolve(null);

  constructor(options: {
    repository: CatalogRepository;
    clock: Clock;
    onListenerError?: (e: unknown) => void;
    /**
     * Whether the matching engine holds a market (an order has reached it). The engine closes such a
     * market for good when its fixture leaves the active statuses; the catalog never lists it again.
     */
    inEngine?: (marketHash: string) => boolean;
  }) {
    this.#repo = options.repository;
    this.#clock = options.clock;
    this.#events = new CatalogEvents(options.onListenerError);
    this.#inEngine = options.inEngine ?? (() => false);
  }

  /** Subscribes to catalog changes; returns the unsubscribe function. */
  onChange(listener: CatalogListener): () => void {
    return this.#events.on(listener);
  }

  // ---- order path ---------------------------------------------------------------------------

  /**
   * Where parlay markets are found (`parlays/`): they are made by requests, not by the operator, and live in
   * the engine and the projections, never in the catalog's tables.
   */
  setParlays(lookup: (marketHash: string) => Promise<MarketView | null>): void {
    this.#parlays = lookup;
  }

  async getMarket(marketHash: string): Promise<MarketView | null> {
    return (await this.#repo.getMarket(marketHash)) ?? (await this.#parlays(marketHash));
  }

  /** Open or closed, live or not, effective delay and minimum size; null for an unknown market. */
  async tradingState(marketHash: string): Promise<MarketTradingState | null> {
    const cached = this.#tradingStates.get(marketHash);
    if (cached) return cached;
    const generation = this.#generation;
    const market = await this.#repo.getMarket(marketHash);
    if (!market) {
      // A parlay market's state moves with the clock (its windows): never cached.
      const parlay = await this.#parlays(marketHash);
      return parlay ? marketTradingState(parlay) : null;
    }
    let state = marketTradingState(market);
    // A quarter-line market trades only while both its legs do (a resolved leg has settled half of it).
    if (state.open && market.quarterLineLegs !== null) {
      const legs = await this.#repo.findMarkets(market.quarterLineLegs);
      if (legs.length !== 2 || !legs.every(isMarketActive))
        state = { ...state, open: false, closedReason: 'MARKET_INACTIVE' };
    }
    if (generation === this.#generation) {
      if (this.#tradingStates.size >= TRADING_STATE_CACHE_LIMIT) this.#tradingStates.clear();
      this.#tradingStates.set(marketHash, state);
    }
    return state;
  }

  /** The cached trading state of a known market, or undefined (then ask `tradingState`). */
  cachedTradingState(marketHash: string): MarketTradingState | undefined {
    return this.#tradingStates.get(marketHash);
  }

  /** Leagues with their own live delay, for `GET /metadata/obv3` `bettingDelay.leagueIdToMs`. */
  async leagueLiveDelays(): Promise<{ leagueId: number; delayMs: number }[]> {
    return (await this.#repo.listLeagues()).flatMap((l) =>
      l.liveDelayMs === null ? [] : [{ leagueId: l.leagueId, delayMs: l.liveDelayMs }],
    );
  }

  /**
   * The live delays of the active markets that have one of their own (it wins over their league's and
   * sport's): what `GET /metadata/obv3` lists so that a client computes any market's delay in force.
   */
  async marketLiveDelays(): Promise<{ marketHash: string; delayMs: number }[]> {
    const markets = await this.#repo.listMarkets({
      fixtureStatuses: ACTIVE_FIXTURE_STATUSES,
      ownBettingDelay: true,
      limit: CATALOG_LIMITS.ownDelayMarkets,
    });
    return markets.map((m) => ({ marketHash: m.marketHash, delayMs: m.bettingDelayMs! }));
  }

  /** No league and no fixture yet: a fresh data dir (the demo seed runs only then). */
  async isEmpty(): Promise<boolean> {
    return (await this.#repo.countFixtures()) === 0 && (await this.#repo.listLeagues()).length === 0;
  }

  // ---- public reads -------------------------------------------------------------------------

  sports(): Promise<SportRecord[]> {
    return this.#repo.listSports();
  }

  async leagues(): Promise<(LeagueRecord & { active: boolean })[]> {
    const active = new Set(await this.#repo.leaguesWithFixtures(ACTIVE_FIXTURE_STATUSES));
    return (await this.#repo.listLeagues()).map((l) => ({ ...l, active: active.has(l.leagueId) }));
  }

  /** Leagues with at least one active fixture, with how many fixtures offer each market type. */
  async activeLeagues(): Promise<ActiveLeagueView[]> {
    const counts = await this.#repo.countEventsByType(ACTIVE_FIXTURE_STATUSES);
    return (await this.leagues())
      .filter((l) => l.active)
      .map((l) => ({
        ...l,
        eventsByType: Object.fromEntries(
          counts.filter((c) => c.leagueId === l.leagueId).map((c) => [String(c.type), c.events]),
        ),
      }));
  }

  teams(filter: { leagueId?: number }): Promise<TeamView[]> {
    return this.#repo.listTeams(filter);
  }

  activeFixtures(filter: { leagueId?: number; sportId?: number }): Promise<FixtureView[]> {
    return this.#repo.listFixtures({ statuses: ACTIVE_FIXTURE_STATUSES, ...filter });
  }

  async fixtureStatuses(eventIds: readonly string[]): Promise<Record<string, number>> {
    const fixtures = await this.#repo.getFixtures(eventIds);
    return Object.fromEntries(fixtures.map((f) => [f.eventId, f.status]));
  }

  async liveScores(eventIds: readonly string[]): Promise<{ score: LiveScoreRecord; fixture: FixtureView }[]> {
    const fixtures = new Map((await this.#repo.getFixtures(eventIds)).map((f) => [f.eventId, f]));
    return (await this.#repo.getLiveScores(eventIds)).flatMap((score) => {
      const fixture = fixtures.get(score.eventId);
      return fixture ? [{ score, fixture }] : [];
    });
  }

  async activeMarkets(
    filter: ActiveMarketsFilter,
  ): Promise<{ markets: MarketView[]; nextKey: string | null }> {
    const pageSize = filter.pageSize ?? CATALOG_LIMITS.marketsPageSize;
    const after = filter.paginationKey === undefined ? undefined : decodePaginationKey(filter.paginationKey);
    if (after === null)
      throw badRequest('BAD_PAGINATION_KEY', 'paginationKey is not a key this server issued');
    const rows = await this.#repo.listMarkets({
      fixtureStatuses: ACTIVE_FIXTURE_STATUSES,
      ...(filter.onlyMainLine ? { onlyMainLine: true } : {}),
      ...(filter.eventId !== undefined ? { eventId: filter.eventId } : {}),
      ...(filter.leagueId !== undefined ? { leagueId: filter.leagueId } : {}),
      ...(filter.sportIds !== undefined ? { sportIds: filter.sportIds } : {}),
      ...(filter.types !== undefined ? { types: filter.types } : {}),
      ...(filter.liveOnly ? { liveFixtureStatuses: LIVE_STATUSES } : {}),
      order: { by: 'gameTime', ...(after ? { after } : {}) },
      limit: pageSize + 1,
    });
    const markets = rows.slice(0, pageSize);
    const last = markets.at(-1);
    const nextKey =
      rows.length > pageSize && last
        ? encodePaginationKey({
            gameTime: last.fixture.gameTime,
            eventId: last.eventId,
            type: last.type,
            marketHash: last.marketHash,
          })
        : null;
    return { markets, nextKey };
  }

  /** Markets by hash, whatever their status; unknown hashes are left out. */
  async findMarkets(marketHashes: readonly string[]): Promise<MarketView[]> {
    const found = await this.#repo.findMarkets(marketHashes);
    if (found.length === marketHashes.length) return found;
    const known = new Set<string>(found.map((m) => m.marketHash));
    for (const hash of marketHashes) {
      if (known.has(hash)) continue;
      const parlay = await this.#parlays(hash);
      if (parlay) found.push(parlay);
    }
    return found;
  }

  /**
   * "Popular" until trade volume exists: the main-line markets of fixtures in play first, then of the
   * soonest upcoming fixtures (game time, then event, then market type). Top 10.
   */
  popularMarkets(): Promise<MarketView[]> {
    return this.#repo.listMarkets({
      fixtureStatuses: ACTIVE_FIXTURE_STATUSES,
      onlyMainLine: true,
      order: { by: 'liveFirst', liveStatuses: LIVE_STATUSES },
      limit: CATALOG_LIMITS.popularMarkets,
    });
  }

  /** Active fixtures with a team name containing `query` (case-insensitive), soonest first, at most 8. */
  async search(query: string): Promise<SearchHit[]> {
    const fixtures = await this.#repo.searchFixtures({
      text: query,
      statuses: ACTIVE_FIXTURE_STATUSES,
      limit: CATALOG_LIMITS.searchResults,
    });
    const types = await this.#repo.activeMarketTypes(fixtures.map((f) => f.eventId));
    return fixtures.map((fixture) => ({ fixture, marketTypes: types.get(fixture.eventId) ?? [] }));
  }

  // ---- operator writes ----------------------------------------------------------------------

  async createLeague(input: CreateLeagueInput): Promise<LeagueRecord> {
    const label = input.label.trim();
    if (!label) throw badRequest('BAD_LEAGUE_LABEL', 'label must not be blank');
    if (!(await this.#repo.getSport(input.sportId)))
      throw notFound(ErrorCode.SPORT_NOT_FOUND, `no sport with id ${input.sportId}`);
    const league = await this.#repo.insertLeague({
      sportId: input.sportId,
      label,
      liveDelayMs: input.liveDelaySeconds === undefined ? null : Math.round(input.liveDelaySeconds * 1000),
      createdAt: this.#clock.now(),
    });
    if (!league) throw conflict('LEAGUE_EXISTS', `sport ${input.sportId} already has a league "${label}"`);
    return league;
  }

  async createFixture(input: CreateFixtureInput): Promise<FixtureView> {
    const teamOneName = input.teamOneName.trim();
    const teamTwoName = input.teamTwoName.trim();
    if (!teamOneName || !teamTwoName) throw badRequest('BAD_TEAM_NAME', 'team names must not be blank');
    if (teamOneName.toLowerCase() === teamTwoName.toLowerCase())
      throw badRequest('SAME_TEAMS', 'teamOneName and teamTwoName must differ');
    if (!(await this.#repo.getLeague(input.leagueId)))
      throw notFound(ErrorCode.LEAGUE_NOT_FOUND, `no league with id ${input.leagueId}`);
    const now = this.#clock.now();
    const teamOne = await this.#repo.ensureTeam(input.leagueId, teamOneName, now);
    const teamTwo = await this.#repo.ensureTeam(input.leagueId, teamTwoName, now);
    const created = await this.#repo.insertFixture({
      leagueId: input.leagueId,
      teamOneId: teamOne.teamId,
      teamTwoId: teamTwo.teamId,
      gameTime: input.gameTime,
      status: FIXTURE_STATUS.notStarted,
      createdAt: now,
      updatedAt: now,
    });
    const fixture = (await this.#repo.getFixture(created.eventId))!;
    this.#emit({ type: 'fixture', fixture });
    return fixture;
  }

  /**
   * Creates a market. A quarter-line market (line x.25 or x.75) is linked to its two legs, the markets of
   * the same event and type at the whole and the half line around it; a leg the event does not have yet is
   * created first (same call, outcome names derived from the quarter line's, never a main line).
   */
  async createMarket(input: CreateMarketInput): Promise<MarketView> {
    const info = marketTypeInfo(input.type);
    if (!info) throw badRequest('UNKNOWN_MARKET_TYPE', `market type ${input.type} is not supported`);
    let line: string | null = null;
    if (info.hasLine) {
      if (input.line === undefined)
        throw badRequest('LINE_REQUIRED', `market type ${input.type} needs a line`);
      try {
        line = canonicalLine(input.line);
      } catch (error) {
        if (error instanceof LineError) throw badRequest('BAD_LINE', error.message);
        throw error;
      }
    } else if (input.line !== undefined) {
      throw badRequest('LINE_NOT_ALLOWED', `market type ${input.type} has no line`);
    }
    const outcomeOneName = input.outcomeOneName.trim();
    const outcomeTwoName = input.outcomeTwoName.trim();
    if (!outcomeOneName || !outcomeTwoName)
      throw badRequest('BAD_OUTCOME_NAME', 'outcome names must not be blank');
    if (outcomeOneName === outcomeTwoName)
      throw badRequest('SAME_OUTCOMES', 'outcomeOneName and outcomeTwoName must differ');
    if (input.minBetSize !== undefined && input.minBetSize <= 0n)
      throw badRequest('BAD_MIN_BET_SIZE', 'minBetSize must be positive');

    const fixture = await this.#repo.getFixture(input.eventId);
    if (!fixture) throw notFound(ErrorCode.FIXTURE_NOT_FOUND, `no fixture with eventId ${input.eventId}`);
    if (!isActiveFixtureStatus(fixture.status))
      throw conflict('FIXTURE_CLOSED', `fixture ${input.eventId} has status ${fixture.status}`);

    const marketHash = computeMarketHash({
      eventId: fixture.eventId,
      type: input.type,
      line,
      outcomeOneName,
      outcomeTwoName,
    });
    const exists = () => conflict(ErrorCode.MARKET_EXISTS, `market ${marketHash} already exists`);
    // Checked before any leg is created, so a repeated request creates nothing.
    if (await this.#repo.getMarket(marketHash)) throw exists();
    const mainLine = input.mainLine ?? !(await this.#repo.hasMainLine(fixture.eventId, input.type));
    const quarterLineLegs =
      line !== null && isQuarterLine(line)
        ? await this.#quarterLineLegs({ ...input, line, outcomeOneName, outcomeTwoName }, fixture)
        : null;
    const now = this.#clock.now();
    const inserted = await this.#repo.insertMarket({
      marketHash,
      eventId: fixture.eventId,
      type: input.type,
      line,
      outcomeOneName,
      outcomeTwoName,
      outcomeVoidName: info.voidName,
      mainLine,
      liveEnabled: input.liveEnabled ?? true,
      bettingDelayMs:
        input.bettingDelaySeconds === undefined ? null : Math.round(input.bettingDelaySeconds * 1000),
      minBetSize: input.minBetSize ?? EXCHANGE_LIMITS.orderSizeMinimumBaseUnits,
      status: 'ACTIVE',
      outcome: null,
      reportedDate: null,
      quarterLineLegs,
      createdAt: now,
      updatedAt: now,
    });
    if (!inserted) throw exists();
    return this.#emitCreated(marketHash, mainLine);
  }

  /** The whole-line and half-line markets of a quarter line, the missing ones created. */
  async #quarterLineLegs(
    parent: CreateMarketInput & { line: string },
    fixture: FixtureView,
  ): Promise<[`0x${string}`, `0x${string}`]> {
    const { whole, half } = quarterLineLegLines(parent.line);
    const ofEvent = await this.#repo.listMarketsOfEvent(fixture.eventId);
    const leg = async (legLine: string): Promise<`0x${string}`> => {
      const sameLine = ofEvent.filter((m) => m.type === parent.type && m.line === legLine);
      // An existing open market of that line is the leg (the main line first, then the oldest).
      const open = sameLine
        .filter(isMarketActive)
        .sort((a, b) => Number(b.mainLine) - Number(a.mainLine) || a.createdAt - b.createdAt)[0];
      if (open) return open.marketHash;
      if (sameLine.length > 0) {
        throw conflict(
          'QUARTER_LINE_LEG_CLOSED',
          `the ${legLine} market of event ${fixture.eventId} is closed or resolved: a ${parent.line} market needs it open`,
        );
      }
      const created = await this.createMarket({
        eventId: fixture.eventId,
        type: parent.type,
        line: legLine,
        ...legOutcomeNames({
          type: parent.type,
          line: parent.line,
          outcomeOneName: parent.outcomeOneName,
          outcomeTwoName: parent.outcomeTwoName,
          teamOneName: fixture.teamOneName,
          teamTwoName: fixture.teamTwoName,
          legLine,
        }),
        mainLine: false,
        ...(parent.minBetSize !== undefined ? { minBetSize: parent.minBetSize } : {}),
        ...(parent.bettingDelaySeconds !== undefined
          ? { bettingDelaySeconds: parent.bettingDelaySeconds }
          : {}),
        ...(parent.liveEnabled !== undefined ? { liveEnabled: parent.liveEnabled } : {}),
      });
      return created.marketHash;
    };
    return [await leg(whole), await leg(half)];
  }

  async #emitCreated(marketHash: `0x${string}`, mainLine: boolean): Promise<MarketView> {
    const market = (await this.#repo.getMarket(marketHash))!;
    this.#emit({ type: 'market', market });
    // A new main line (possibly replacing the previous one, now demoted); moneylines too, like every main line.
    if (mainLine) {
      this.#emit({ type: 'mainLine', eventId: market.eventId, marketType: market.type, marketHash });
    }
    return market;
  }

  async recordScore(
    eventId: string,
    input: LiveScoreInput,
  ): Promise<{ score: LiveScoreRecord; fixture: FixtureView }> {
    const fixture = await this.#repo.getFixture(eventId);
    if (!fixture) throw notFound(ErrorCode.FIXTURE_NOT_FOUND, `no fixture with eventId ${eventId}`);
    const previous = await this.#repo.getLiveScore(eventId);
    const score = nextLiveScore({ eventId, previous, input, now: this.#clock.now() });
    await this.#repo.upsertLiveScore(score);
    this.#emit({ type: 'liveScore', fixture, liveScore: score });
    return { score, fixture };
  }

  /**
   * Sets a fixture's status. Markets follow: a fixture leaving the active statuses (finished,
   * cancelled, postponed) takes its markets off the active list; a `market` event is emitted for
   * every market whose listed status changed. Leaving the active statuses closes the fixture's markets
   * in the engine for good, so a fixture with a market in the engine cannot come back to an active
   * status (409): its markets would be listed while the engine refuses every order on them. One whose
   * markets never met an order can: nothing was closed.
   */
  async setFixtureStatus(eventId: string, status: number): Promise<FixtureView> {
    const before = await this.#repo.getFixture(eventId);
    if (!before) throw notFound(ErrorCode.FIXTURE_NOT_FOUND, `no fixture with eventId ${eventId}`);
    const marketsBefore = await this.#repo.listMarketsOfEvent(eventId);
    if (
      !isActiveFixtureStatus(before.status) &&
      isActiveFixtureStatus(status) &&
      marketsBefore.some((market) => this.#inEngine(market.marketHash))
    ) {
      throw conflict(
        'FIXTURE_CLOSED',
        `fixture ${eventId} is ${fixtureStatusName(before.status)} and its markets are closed for trading: ` +
          `it cannot go back to ${fixtureStatusName(status)} (status ${status}); a game played later ` +
          'is a new fixture with new markets',
      );
    }
    const fixture = (await this.#repo.updateFixtureStatus(eventId, status, this.#clock.now()))!;
    this.#emit({ type: 'fixture', fixture });
    for (const market of marketsBefore) {
      const after: MarketView = { ...market, fixture };
      if (isMarketActive(after) !== isMarketActive(market)) this.#emit({ type: 'market', market: after });
    }
    return fixture;
  }

  /**
   * Records a market's result (0 void, 1, 2); the market stops trading. Settlement is the trading side's.
   * A quarter-line market is refused (409): it follows its legs. Resolving a leg stops its quarter-line
   * markets trading; once both legs of one are resolved it is settled (its `reportedDate` set, no outcome).
   */
  async resolveMarket(marketHash: string, outcome: 0 | 1 | 2): Promise<MarketView> {
    const existing = await this.#repo.getMarket(marketHash);
    if (!existing) throw notFound(ErrorCode.MARKET_NOT_FOUND, `no market with hash ${marketHash}`);
    if (existing.quarterLineLegs !== null) throw quarterLineNotResolvable(existing);
    const market = await this.#repo.resolveMarket(marketHash, outcome, this.#clock.now());
    if (!market) throw notFound(ErrorCode.MARKET_NOT_FOUND, `no market with hash ${marketHash}`);
    this.#emit({ type: 'market', market });
    await this.#followLeg(market);
    return market;
  }

  /**
   * Quarter-line markets brought in line with their legs' results (after a stop between a leg's result and
   * its quarter lines' update): at a start, by `Trading.reconcileResolutions`.
   */
  async followResolvedLegs(): Promise<void> {
    for (const parent of await this.#repo.listQuarterLineMarketsToFollow()) await this.#followLegs(parent);
  }

  /** The quarter-line markets of a leg just resolved follow it. */
  async #followLeg(leg: MarketView): Promise<void> {
    for (const parent of await this.#repo.listQuarterLineParents(leg.marketHash))
      await this.#followLegs(parent);
  }

  /** A quarter-line market with a leg resolved stops trading; once both are resolved it is settled. */
  async #followLegs(parent: MarketView): Promise<void> {
    const legs = await this.#repo.findMarkets(parent.quarterLineLegs!);
    const settled = legs.length === 2 && legs.every((l) => l.outcome !== null);
    if (parent.status !== 'ACTIVE' && (!settled || parent.reportedDate !== null)) return;
    const reportedDate = settled ? Math.max(...legs.map((l) => l.reportedDate ?? 0)) : null;
    const closed = await this.#repo.closeQuarterLineMarket(
      parent.marketHash,
      reportedDate,
      this.#clock.now(),
    );
    if (closed) this.#emit({ type: 'market', market: closed });
  }

  /** A change another node of the cluster made (`cluster/catalog-changes.ts`): as if made here, but heard. */
  changedElsewhere(event: CatalogEvent): void {
    this.#emit(event, 'elsewhere');
  }

  #emit(event: CatalogEvent, origin: 'here' | 'elsewhere' = 'here'): void {
    // Scores change no trading state; anything else may (status, delays, resolution), so start afresh.
    if (event.type !== 'liveScore') {
      this.#generation += 1;
      this.#tradingStates.clear();
    }
    this.#events.emit(event, origin);
  }
}
