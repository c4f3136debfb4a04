import { ladderSize, tickToOdds } from '@oddsbook/protocol';
import { describe, expect, it } from 'vitest';
import { formatOdds, type OddsFormat } from './display.js';
import {
  expiryChoices,
  expiryOf,
  immediateExpiry,
  oddsText,
  parseOdds,
  parsePercentOdds,
  parseStake,
  percentText,
  potentialReturn,
  stakeProblem,
} from './order-input.js';

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

  it('reads decimal and American odds onto the ladder, every tick typed back as it is shown', () => {
    const ticks = ladderSize(125);
    for (const format of ['probability', 'decimal', 'american'] as OddsFormat[]) {
      for (let tick = 1; tick < ticks; tick++) {
        const odds = tickToOdds(tick, 125);
        expect(parseOdds(oddsText(odds, format), format, 125)).toBe(odds);
        expect(parseOdds(formatOdds(odds, format).replace(' %', ''), format, 125)).toBe(odds);
      }
    }
    expect(oddsText(55_125n * 10n ** 15n, 'probability')).toBe('55.125');
    expect(oddsText(55_125n * 10n ** 15n, 'decimal')).toBe('1.814');
    expect(oddsText(55_125n * 10n ** 15n, 'american')).toBe('-122.85');
  });

  it('takes decimal and American odds between ticks to the nearest tick', () => {
    expect(parseOdds('2', 'decimal', 125)).toBe(50n * 10n ** 18n);
    expect(parseOdds('1.8', 'decimal', 125)).toBe(55_500n * 10n ** 15n); // 55.555… %
    expect(parseOdds('+150', 'american', 125)).toBe(40n * 10n ** 18n);
    expect(parseOdds('150', 'american', 125)).toBe(40n * 10n ** 18n);
    expect(parseOdds('-150', 'american', 125)).toBe(60n * 10n ** 18n);
    expect(parseOdds('-100', 'american', 125)).toBe(50n * 10n ** 18n);
    expect(() => parseOdds('1', 'decimal', 125)).toThrow('above 1');
    expect(() => parseOdds('abc', 'decimal', 125)).toThrow('above 1');
    expect(() => parseOdds('+99', 'american', 125)).toThrow('+100 or more');
    expect(() => parseOdds('55.1', 'probability', 125)).toThrow('multiple of 0.125 %');
  });

  it('checks the stake against the market minimum and the free balance, naming both', () => {
    const limits = { minimum: 1_000_000n, free: 50_000_000n };
    expect(stakeProblem(10_000_000n, limits)).toBeNull();
    expect(stakeProblem(999_999n, limits)).toBe("The stake is below this market's minimum of 1.00 USDC.");
    expect(stakeProblem(50_000_001n, limits)).toBe(
      'The stake is more than the 50.00 USDC your balance leaves free beside your open orders.',
    );
    expect(stakeProblem(50_000_001n, { minimum: 1n, free: undefined })).toBeNull();
  });

  it('offers an expiry at the game start before the game, and durations always', () => {
    const now = 1_800_000_000;
    expect(expiryChoices(now + 86_400, now)).toEqual(['gameStart', '1d', '1h', '7d', '30d']);
    expect(expiryChoices(now - 60, now)).toEqual(['1d', '1h', '7d', '30d']);
    expect(expiryChoices(now + 60, now)).toEqual(['1d', '1h', '7d', '30d']);
    expect(expiryOf('gameStart', now + 86_400, now)).toBe(now + 86_400);
    expect(expiryOf('1h', now + 86_400, now)).toBe(now + 3600);
    expect(expiryOf('7d', 0, now)).toBe(now + 7 * 86_400);
    expect(immediateExpiry(5.5, now)).toBe(now + 66);
  });
});
