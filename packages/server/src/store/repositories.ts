/**
 * The storage contract. Every repository method is asynchronous so that a PostgreSQL implementation
 * can satisfy the same interface; the embedded SQLite implementation answers synchronously underneath.
 */

export type Account = { address: `0x${string}`; createdAt: number };

export type ApiKeyRecord = {
  id: string;
  address: `0x${string}`;
  /** sha-256 of the key, hex. The key itself is never stored. */
  keyHash: string;
  label: string | null;
  createdAt: number;
  revokedAt: number | null;
};

export interface AccountRepository {
  /** Creates the account when it does not exist yet; returns it either way. */
  ensure(address: `0x${string}`, now: number): Promise<Account>;
  get(address: `0x${string}`): Promise<Account | null>;
}

export interface ApiKeyRepository {
  insert(record: ApiKeyRecord): Promise<void>;
  /** Every key that is not revoked, for the in-memory authenticator. */
  listActive(): Promise<ApiKeyRecord[]>;
  listForAccount(address: `0x${string}`): Promise<ApiKeyRecord[]>;
  /** The key `id`, revoked or not; null when there is none. */
  get(id: string): Promise<ApiKeyRecord | null>;
  /** Marks the key revoked; returns the record, or null when there is no such key. */
  revoke(id: string, now: number): Promise<ApiKeyRecord | null>;
}

// ---- Browser sessions and sign-in nonces --------------------------------------------------------

/** A browser session as stored: the hash of its token, never the token. */
/**
 * Secrets of the exchange's own (the realtime token key, the sign-in nonce key), generated once and kept, so
 * that what was issued before a restart stays valid after it, and every node of a cluster signs alike.
 */
export interface ServerSecretRepository {
  /** The secret kept under `name`; when there is none yet, `fresh` is kept and given (the first to ask wins). */
  keep(name: string, fresh: string, now: number): Promise<string>;
}

export type StoredWebSession = {
  /** sha-256 of the session token, base64. */
  tokenHash: string;
  address: `0x${string}`;
  /** The client network it was opened from (sessions per network are bounded). */
  client: string;
  createdAt: number;
  expiresAt: number;
};

/** A sign-in nonce that opened a session: refused from then on, until it expires. */
export type ConsumedNonce = {
  /** The nonce's random part, hex. */
  id: string;
  /** Its issue stamp (issue ms x 1000 + sequence): nonces stamped at or below a watermark are refused. */
  stamp: number;
  expiresAt: number;
};

export interface WebSessionRepository {
  /**
   * Records a sign-in: its nonce consumed, its session opened and the sessions it ended deleted, all or
   * none. A nonce consumed already (by another node on the same database) records nothing: 'nonce-used'.
   */
  signedIn(signIn: {
    nonce: ConsumedNonce;
    session: StoredWebSession;
    ended: readonly string[];
  }): Promise<'recorded' | 'nonce-used'>;
  /** The live session of a token hash at `now` (one opened by another node, say), or null. */
  session(tokenHash: string, now: number): Promise<StoredWebSession | null>;
  /** Deletes a session (sign-out); nothing when there is none. */
  deleteSession(tokenHash: string): Promise<void>;
  /** The sessions live at `now` that end last, at most `limit`, in the order they end. */
  sessions(now: number, limit: number): Promise<StoredWebSession[]>;
  /**
   * The consumed nonces live at `now` with the highest stamps, at most `limit`, lowest stamp first; and
   * the highest stamp of the live ones left out (null when none is).
   */
  consumedNonces(now: number, limit: number): Promise<{ nonces: ConsumedNonce[]; watermark: number | null }>;
  /** Forgets the sessions and consumed nonces expired at `now`. */
  deleteExpired(now: number): Promise<void>;
}

// ---- Sports catalog --------------------------------------------------------------------------

export type SportRecord = { sportId: number; label: string };

export type LeagueRecord = {
  leagueId: number;
  sportId: number;
  label: string;
  /** The league's own live betting delay, overriding its sport's; null when it has none. */
  liveDelayMs: number | null;
  createdAt: number;
};

export type TeamRecord = { teamId: number; leagueId: number; name: string; createdAt: number };

export type FixtureRecord = {
  eventId: string;
  leagueId: number;
  teamOneId: number;
  teamTwoId: number;
  /** Unix seconds. */
  gameTime: number;
  status: number;
  createdAt: number;
  updatedAt: number;
};

/** A fixture with the names and ids of what it belongs to. */
export type FixtureView = FixtureRecord & {
  teamOneName: string;
  teamTwoName: string;
  leagueLabel: string;
  leagueLiveDelayMs: number | null;
  sportId: number;
  sportLabel: string;
};

export type MarketRecord = {
  marketHash: `0x${string}`;
  eventId: string;
  type: number;
  /** Canonical decimal text, null for a type without a line. */
  line: string | null;
  outcomeOneName: string;
  outcomeTwoName: string;
  outcomeVoidName: string;
  mainLine: boolean;
  liveEnabled: boolean;
  /** The market's own live betting delay; null follows league, sport, default. */
  bettingDelayMs: number | null;
  minBetSize: bigint;
  status: 'ACTIVE' | 'INACTIVE';
  outcome: 0 | 1 | 2 | null;
  /** Unix seconds. */
  reportedDate: number | null;
  /**
   * A quarter-line market (line .25 or .75): its two leg markets of the same event and type, the whole
   * line first and the half line second. Null for every other market.
   */
  quarterLineLegs: readonly [`0x${string}`, `0x${string}`] | null;
  createdAt: number;
  updatedAt: number;
};

export type MarketView = MarketRecord & {
  fixture: FixtureView;
  /** A parlay market (`parlays/`): its legs' markets, in the order of the request. */
  parlayLegs?: readonly MarketView[];
};

export type LiveScorePeriodRecord = {
  label: string;
  isFinished: boolean;
  teamOneScore: string;
  teamTwoScore: string;
};

export type LiveScoreRecord = {
  eventId: string;
  teamOneScore: number;
  teamTwoScore: number;
  currentPeriod: string;
  periodTime: string;
  periods: LiveScorePeriodRecord[];
  extra: string;
  createdAt: number;
  updatedAt: number;
};

/** Keyset position in the `(gameTime, eventId, type, marketHash)` order of market listings. */
export type MarketCursor = { gameTime: number; eventId: string; type: number; marketHash: string };

export type MarketQuery = {
  /** Markets count only when their fixture has one of these statuses. */
  fixtureStatuses: readonly number[];
  onlyMainLine?: boolean;
  eventId?: string;
  leagueId?: number;
  sportIds?: readonly number[];
  types?: readonly number[];
  /** Only live-enabled markets of fixtures with one of these statuses. */
  liveFixtureStatuses?: readonly number[];
  /** Only markets with a betting delay of their own (`bettingDelayMs` set). */
  ownBettingDelay?: boolean;
  /** `gameTime` (default, keyset-paged after `after`) or `liveFirst` (fixtures in `liveStatuses` first, then by game time). */
  order?: { by: 'gameTime'; after?: MarketCursor } | { by: 'liveFirst'; liveStatuses: readonly number[] };
  limit: number;
};

export interface CatalogRepository {
  listSports(): Promise<SportRecord[]>;
  getSport(sportId: number): Promise<SportRecord | null>;

  /** Inserts a league; null when the sport already has a league with that label. */
  insertLeague(league: Omit<LeagueRecord, 'leagueId'>): Promise<LeagueRecord | null>;
  getLeague(leagueId: number): Promise<LeagueRecord | null>;
  listLeagues(): Promise<LeagueRecord[]>;
  /** Per league and market type: how many fixtures with one of `fixtureStatuses` have an active market of it. */
  countEventsByType(
    fixtureStatuses: readonly number[],
  ): Promise<{ leagueId: number; type: number; events: number }[]>;
  /** Leagues with at least one fixture in one of `fixtureStatuses`. */
  leaguesWithFixtures(fixtureStatuses: readonly number[]): Promise<number[]>;

  /** Returns the league's team of that name, creating it when new. */
  ensureTeam(leagueId: number, name: string, now: number): Promise<TeamRecord>;
  listTeams(filter: { leagueId?: number }): Promise<TeamRecord[]>;

  /** Inserts a fixture and gives it its event id (`L` + number). */
  insertFixture(fixture: Omit<FixtureRecord, 'eventId'>): Promise<FixtureRecord>;
  getFixture(eventId: string): Promise<FixtureView | null>;
  listFixtures(filter: {
    statuses: readonly number[];
    leagueId?: number;
    sportId?: number;
  }): Promise<FixtureView[]>;
  /** Fixtures among `eventIds` (unknown ids are left out). */
  getFixtures(eventIds: readonly string[]): Promise<FixtureView[]>;
  countFixtures(): Promise<number>;
  updateFixtureStatus(eventId: string, status: number, now: number): Promise<FixtureView | null>;
  /** Fixtures with a team whose name contains `text` (compared case-folded), by game time. */
  searchFixtures(options: {
    text: string;
    statuses: readonly number[];
    limit: number;
  }): Promise<FixtureView[]>;

  /**
   * Inserts a market; when it is the main line, the other markets of the same event and type stop
   * being main lines in the same transaction (their hashes are returned). Null when the hash exists.
   */
  insertMarket(market: MarketRecord): Promise<{ demoted: `0x${string}`[] } | null>;
  getMarket(marketHash: string): Promise<MarketView | null>;
  /** Records the outcome and makes the market INACTIVE; null when there is no such market. */
  resolveMarket(marketHash: string, outcome: 0 | 1 | 2, now: number): Promise<MarketView | null>;
  findMarkets(marketHashes: readonly string[]): Promise<MarketView[]>;
  /** Quarter-line markets not settled yet (no `reportedDate`) with at least one leg resolved. */
  listQuarterLineMarketsToFollow(): Promise<MarketView[]>;
  /** The quarter-line markets that have `legHash` as one of their legs. */
  listQuarterLineParents(legHash: string): Promise<MarketView[]>;
  /**
   * A quarter-line market stops trading (INACTIVE); `reportedDate` (unix seconds) once both its legs are
   * resolved. Null when there is no such market.
   */
  closeQuarterLineMarket(
    marketHash: string,
    reportedDate: number | null,
    now: number,
  ): Promise<MarketView | null>;
  listMarkets(query: MarketQuery): Promise<MarketView[]>;
  listMarketsOfEvent(eventId: string): Promise<MarketView[]>;
  /** Active market type ids per event, ascending. */
  activeMarketTypes(eventIds: readonly string[]): Promise<Map<string, number[]>>;
  hasMainLine(eventId: string, type: number): Promise<boolean>;

  upsertLiveScore(score: LiveScoreRecord): Promise<void>;
  getLiveScore(eventId: string): Promise<LiveScoreRecord | null>;
  getLiveScores(eventIds: readonly string[]): Promise<LiveScoreRecord[]>;
}
