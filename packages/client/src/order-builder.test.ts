import { ODDS_SCALE, tickToOdds } from '@oddsbook/protocol';
import { describe, expect, it } from 'vitest';
import { roundToLadder } from './order-builder.js';

const step = 125;
const tick = (k: number) => tickToOdds(k, step);

describe('roundToLadder', () => {
  it('keeps ladder odds, and rounds others down (default), up, or to the nearest tick', () => {
    expect(roundToLadder(tick(400), step)).toBe(tick(400));
    const between = tick(400) + 1n;
    expect(roundToLadder(between, step)).toBe(tick(400));
    expect(roundToLadder(between, step, 'up')).toBe(tick(401));
    expect(roundToLadder(between, step, 'nearest')).toBe(tick(400));
    expect(roundToLadder(tick(401) - 1n, step, 'nearest')).toBe(tick(401));
    // Exactly half way goes up.
    expect(roundToLadder(tick(400) + tick(1) / 2n, step, 'nearest')).toBe(tick(401));
  });

  it('refuses odds that round to 0 or to 1', () => {
    expect(roundToLadder(1n, step)).toBeNull();
    expect(roundToLadder(ODDS_SCALE - 1n, step, 'up')).toBeNull();
    expect(roundToLadder(ODDS_SCALE - 1n, step)).toBe(tick(799));
  });
});
