import { describe, expect, it } from 'vitest';
import { legOutcomeNames, quarterLineLegLines } from './quarter-line.js';

describe('quarterLineLegLines', () => {
  it('gives the whole line and the half line around a quarter line', () => {
    const legs = (line: string) => Object.values(quarterLineLegLines(line));
    expect(legs('-0.75')).toEqual(['-1', '-0.5']);
    expect(legs('-0.25')).toEqual(['0', '-0.5']);
    expect(legs('0.25')).toEqual(['0', '0.5']);
    expect(legs('2.25')).toEqual(['2', '2.5']);
    expect(legs('2.75')).toEqual(['3', '2.5']);
    expect(legs('-10.75')).toEqual(['-11', '-10.5']);
    expect(legs('220.25')).toEqual(['220', '220.5']);
  });

  it('refuses a line that is not a quarter', () => {
    expect(() => quarterLineLegLines('-0.5')).toThrow();
    expect(() => quarterLineLegLines('2')).toThrow();
  });
});

describe('legOutcomeNames', () => {
  const base = { type: 3, teamOneName: 'Arsenal', teamTwoName: 'Chelsea' };
  it('rewrites the line shown in the names, keeping its sign (none for 0)', () => {
    const parent = {
      ...base,
      line: '-0.75',
      outcomeOneName: 'Arsenal -0.75',
      outcomeTwoName: 'Chelsea +0.75',
    };
    expect(legOutcomeNames({ ...parent, legLine: '-1' })).toEqual({
      outcomeOneName: 'Arsenal -1',
      outcomeTwoName: 'Chelsea +1',
    });
    expect(legOutcomeNames({ ...parent, legLine: '-0.5' })).toEqual({
      outcomeOneName: 'Arsenal -0.5',
      outcomeTwoName: 'Chelsea +0.5',
    });
    const quarter = {
      ...base,
      line: '-0.25',
      outcomeOneName: 'Arsenal -0.25',
      outcomeTwoName: 'Chelsea 0.25',
    };
    expect(legOutcomeNames({ ...quarter, legLine: '0' })).toEqual({
      outcomeOneName: 'Arsenal 0',
      outcomeTwoName: 'Chelsea 0',
    });
    const total = {
      ...base,
      type: 2,
      line: '2.25',
      outcomeOneName: 'Over 2.25',
      outcomeTwoName: 'Under 2.25',
    };
    expect(legOutcomeNames({ ...total, legLine: '2.5' })).toEqual({
      outcomeOneName: 'Over 2.5',
      outcomeTwoName: 'Under 2.5',
    });
  });

  it('falls back to the type’s names when the line is not in them (or they would collide)', () => {
    const total = { ...base, type: 2, line: '2.75', outcomeOneName: 'Over', outcomeTwoName: 'Under' };
    expect(legOutcomeNames({ ...total, legLine: '3' })).toEqual({
      outcomeOneName: 'Over 3',
      outcomeTwoName: 'Under 3',
    });
    const spread = { ...base, line: '-0.25', outcomeOneName: 'Home', outcomeTwoName: 'Away' };
    expect(legOutcomeNames({ ...spread, legLine: '-0.5' })).toEqual({
      outcomeOneName: 'Arsenal -0.5',
      outcomeTwoName: 'Chelsea +0.5',
    });
    // "Arsenal 0" twice is not a market: the team handicaps are used.
    const same = { ...base, line: '0.25', outcomeOneName: 'X 0.25', outcomeTwoName: 'X +0.25' };
    expect(legOutcomeNames({ ...same, legLine: '0' })).toEqual({
      outcomeOneName: 'Arsenal 0',
      outcomeTwoName: 'Chelsea 0',
    });
  });
});
