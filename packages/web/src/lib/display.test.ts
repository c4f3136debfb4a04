import { ODDS_SCALE } from '@oddsbook/protocol';
import { describe, expect, it } from 'vitest';
import { decimalOdds, impliedProbability, shortHex, tokenAmount } from './display.js';

const percent = (p: bigint) => (p * ODDS_SCALE) / 100n;

describe('display', () => {
  it('shows implied probability with two decimals, rounded half up, from bigint alone', () => {
    expect(impliedProbability(percent(55n))).toBe('55.00 %');
    expect(impliedProbability(125_000_000_000_000_000n)).toBe('0.13 %'); // 0.125 % rounds up
    expect(impliedProbability(55_125_000_000_000_000_000n, 3)).toBe('55.125 %');
    expect(impliedProbability(ODDS_SCALE - 1n)).toBe('100.00 %');
  });

  it('shows decimal odds rounded down, so a display never promises more than the bet pays', () => {
    expect(decimalOdds(percent(50n))).toBe('2.00');
    expect(decimalOdds(percent(55n))).toBe('1.81'); // 1.8181…
    expect(decimalOdds(percent(45n))).toBe('2.22'); // 2.2222…
    expect(decimalOdds(125_000_000_000_000_000n)).toBe('800.00');
    expect(decimalOdds(0n)).toBe('-');
  });

  it('shows token amounts exactly, with at least two decimals', () => {
    expect(tokenAmount(100_000_000n)).toBe('100.00');
    expect(tokenAmount('3999996')).toBe('3.999996');
    expect(tokenAmount(1_500_000n)).toBe('1.50');
    expect(tokenAmount(0n)).toBe('0.00');
    expect(tokenAmount(123_456_789_012_345_678_901_234_567n)).toBe('123456789012345678901.234567');
  });

  it('shortens hex', () => {
    expect(shortHex('0x70997970C51812dc3A010C7d01b50e0d17dc79C8')).toBe('0x709979…79C8');
    expect(shortHex('0x1234')).toBe('0x1234');
  });
});
