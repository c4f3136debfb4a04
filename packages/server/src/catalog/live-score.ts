import type { LiveScorePeriodRecord, LiveScoreRecord } from '../store/repositories.js';

export type LiveScoreInput = {
  teamOneScore: number;
  teamTwoScore: number;
  currentPeriod?: string;
  periodTime?: string;
};

/** "-1" is production's value for "no period clock". */
export const NO_PERIOD_TIME = '-1';

/**
 * The next live-score record of a fixture. Totals are what the operator sends; per-period scores are
 * derived: entering a new period finishes the previous ones, and the current period holds the total
 * minus what the finished periods scored.
 */
export function nextLiveScore(options: {
  eventId: string;
  previous: LiveScoreRecord | null;
  input: LiveScoreInput;
  now: number;
}): LiveScoreRecord {
  const { previous, input, now } = options;
  const currentPeriod = input.currentPeriod ?? previous?.currentPeriod ?? '';
  const periods: LiveScorePeriodRecord[] = (previous?.periods ?? []).map((p) => ({
    ...p,
    isFinished: p.isFinished || (currentPeriod !== '' && p.label !== currentPeriod),
  }));
  if (currentPeriod !== '') {
    const finished = periods.filter((p) => p.isFinished && p.label !== currentPeriod);
    const sum = (side: 'teamOneScore' | 'teamTwoScore') =>
      finished.reduce((total, p) => total + Number(p[side]), 0);
    const current: LiveScorePeriodRecord = {
      label: currentPeriod,
      isFinished: false,
      teamOneScore: String(Math.max(0, input.teamOneScore - sum('teamOneScore'))),
      teamTwoScore: String(Math.max(0, input.teamTwoScore - sum('teamTwoScore'))),
    };
    const index = periods.findIndex((p) => p.label === currentPeriod);
    if (index === -1) periods.push(current);
    else periods[index] = current;
  }
  return {
    eventId: options.eventId,
    teamOneScore: input.teamOneScore,
    teamTwoScore: input.teamTwoScore,
    currentPeriod,
    periodTime: input.periodTime ?? NO_PERIOD_TIME,
    periods,
    extra: previous?.extra ?? '{}',
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
  };
}
