import { describe, expect, it } from 'vitest';
import { parsePercentOdds, parseStake, percentText, potentialReturn } from './order-input.js';

describe('order input', () => {
  it('reads a percentage exactly onto the ladder', () => {
    expect(parsePercentOdds('55', 125)).toBe(55n * 10n ** 18n);
    expect(parsePercentOdds('55.125', 125)).toBe(55_125n * 10n ** 15n);
    expect(() => parsePercentOdds('55.1', 125)).toThrow('multiple of 0.125 %');
    expect(() => parsePercentOdds('100', 125)).toThrow('between 0 and 100 %');
    expect(() => parsePercentOdds('0', 125)).toThrow('between 0 and 100 %');
    expect(() => parsePercentOdds('abc', 125)).toThrow('as a percentage');
    expect(() => parsePercentOdds('1e2', 125)).toThrow('as a percentage');
  });

  it('writes odds back as the percentage the form shows', () => {
    expect(percentText(45n * 10n ** 18n)).toBe('45');
    expect(percentText(55_125n * 10n ** 15n)).toBe('55.125');
  });

  it('reads stakes in USDC to base units, refusing more than 6 decimals or nothing', () => {
    expect(parseStake('10')).toBe(10_000_000n);
    expect(parseStake(' 10.5 ')).toBe(10_500_000n);
    expect(() => parseStake('0.0000001')).toThrow('at most 6 decimals');
    expect(() => parseStake('0')).toThrow('Give the stake');
    expect(() => parseStake('-1')).toThrow('Give the stake');
  });

  it('computes what a winning bet returns, rounded down to a base unit', () => {
    expect(potentialReturn(4_000_000n, 45n * 10n ** 18n)).toBe(8_888_888n);
    expect(potentialReturn(10_000_000n, 50n * 10n ** 18n)).toBe(20_000_000n);
  });
});
