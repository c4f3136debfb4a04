import { describe, expect, it } from 'vitest';
import { nextLiveScore } from './live-score.js';

describe('nextLiveScore', () => {
  it('starts a record, defaults periodTime to "-1" and keeps no period when none is named', () => {
    const score = nextLiveScore({
      eventId: 'L1',
      previous: null,
      input: { teamOneScore: 0, teamTwoScore: 0 },
      now: 5,
    });
    expect(score).toEqual({
      eventId: 'L1',
      teamOneScore: 0,
      teamTwoScore: 0,
      currentPeriod: '',
      periodTime: '-1',
      periods: [],
      extra: '{}',
      createdAt: 5,
      updatedAt: 5,
    });
  });

  it('derives per-period scores from totals and finishes earlier periods', () => {
    let score = nextLiveScore({
      eventId: 'L1',
      previous: null,
      input: { teamOneScore: 28, teamTwoScore: 24, currentPeriod: 'Q1', periodTime: '00:10' },
      now: 1,
    });
    score = nextLiveScore({
      eventId: 'L1',
      previous: score,
      input: { teamOneScore: 30, teamTwoScore: 31, currentPeriod: 'Q2' },
      now: 2,
    });
    score = nextLiveScore({
      eventId: 'L1',
      previous: score,
      input: { teamOneScore: 51, teamTwoScore: 49 },
      now: 3,
    });
    expect(score.currentPeriod).toBe('Q2');
    expect(score.periodTime).toBe('-1');
    expect(score.periods).toEqual([
      { label: 'Q1', isFinished: true, teamOneScore: '28', teamTwoScore: '24' },
      { label: 'Q2', isFinished: false, teamOneScore: '23', teamTwoScore: '25' },
    ]);
    expect(score.createdAt).toBe(1);
    expect(score.updatedAt).toBe(3);
  });

  it('never shows a negative period score when a total is corrected downwards', () => {
    const q1 = nextLiveScore({
      eventId: 'L1',
      previous: null,
      input: { teamOneScore: 3, teamTwoScore: 1, currentPeriod: '1st' },
      now: 1,
    });
    const q2 = nextLiveScore({
      eventId: 'L1',
      previous: q1,
      input: { teamOneScore: 2, teamTwoScore: 1, currentPeriod: '2nd' },
      now: 2,
    });
    expect(q2.periods[1]).toEqual({ label: '2nd', isFinished: false, teamOneScore: '0', teamTwoScore: '0' });
  });
});
