/** Fixture statuses (gaps.md; production values). */
export const FIXTURE_STATUS = {
  notStarted: 1,
  inProgress: 2,
  finished: 3,
  cancelled: 4,
  postponed: 5,
  interrupted: 6,
  abandoned: 7,
  coverageLost: 8,
  aboutToStart: 9,
} as const;
export type FixtureStatus = (typeof FIXTURE_STATUS)[keyof typeof FIXTURE_STATUS];

/** Statuses listed by `GET /fixture/active`; markets of other fixtures are not active. */
export const ACTIVE_FIXTURE_STATUSES: readonly FixtureStatus[] = [1, 2, 6, 7, 8, 9];

/** Statuses in which orders are accepted: pregame (1, 9) and in play (2, live-enabled markets only). */
export const TRADING_FIXTURE_STATUSES: readonly FixtureStatus[] = [1, 2, 9];

export const isActiveFixtureStatus = (status: number): boolean =>
  (ACTIVE_FIXTURE_STATUSES as readonly number[]).includes(status);

export const isLiveFixtureStatus = (status: number): boolean => status === FIXTURE_STATUS.inProgress;

/** A status's name as FIXTURE_STATUS spells it ("finished"), for messages. */
export const fixtureStatusName = (status: number): string =>
  Object.entries(FIXTURE_STATUS).find(([, value]) => value === status)?.[0] ?? String(status);
