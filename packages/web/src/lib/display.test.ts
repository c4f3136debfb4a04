import { ODDS_SCALE } from '@oddsbook/protocol';
import { describe, expect, it } from 'vitest';
import {
  allOddsFormats,
  americanOdds,
  decimalOdds,
  formatOdds,
  impliedProbability,
  marketLabel,
  marketTypeLabel,
  shortHex,
  storedOddsFormat,
  storeOddsFormat,
  tokenAmount,
} from './display.js';

const percent = (p: bigint) => (p * ODDS_SCALE) / 100n;

describe('display', () => {
  it('shows implied probability exactly, with at least two decimals, from bigint alone', () => {
    expect(impliedProbability(percent(55n))).toBe('55.00 %');
    expect(impliedProbability(55_125_000_000_000_000_000n)).toBe('55.125 %');
    expect(impliedProbability(125_000_000_000_000_000n)).toBe('0.125 %');
    expect(impliedProbability(55_500_000_000_000_000_000n)).toBe('55.50 %');
    expect(impliedProbability(ODDS_SCALE - 1n)).toBe('100.00 %'); // a blended price: rounded at the sixth
    expect(impliedProbability(55_123_456_789_000_000_000n)).toBe('55.123457 %');
  });

  it('rounds implied probability half up when asked for a number of decimals', () => {
    expect(impliedProbability(125_000_000_000_000_000n, 2)).toBe('0.13 %');
    expect(impliedProbability(55_125_000_000_000_000_000n, 3)).toBe('55.125 %');
    expect(impliedProbability(ODDS_SCALE - 1n, 2)).toBe('100.00 %');
  });

  it('shows American odds, never promising more than the bet pays', () => {
    expect(americanOdds(percent(50n))).toBe('+100.00');
    expect(americanOdds(percent(45n))).toBe('+122.22'); // 122.222… rounded down
    expect(americanOdds(55_125_000_000_000_000_000n)).toBe('-122.85'); // 122.8412… rounded up
    expect(americanOdds(percent(80n))).toBe('-400.00');
    expect(americanOdds(125_000_000_000_000_000n)).toBe('+79900.00');
    expect(americanOdds(0n)).toBe('-');
    expect(americanOdds(ODDS_SCALE)).toBe('-');
  });

  it('writes odds in the chosen format, decimal with three decimals', () => {
    const odds = 55_125_000_000_000_000_000n;
    expect(formatOdds(odds, 'probability')).toBe('55.125 %');
    expect(formatOdds(odds, 'decimal')).toBe('1.814'); // 1.81405…
    expect(formatOdds(odds, 'american')).toBe('-122.85');
    expect(allOddsFormats(percent(45n))).toBe('45.00 % = decimal 2.222 = American +122.22');
  });

  it('keeps the odds format chosen, probability until one is', () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
    };
    expect(storedOddsFormat(storage)).toBe('probability');
    storeOddsFormat('american', storage);
    expect(storedOddsFormat(storage)).toBe('american');
    store.set('oddsbook.oddsFormat', 'fractional');
    expect(storedOddsFormat(storage)).toBe('probability');
  });

  it('labels markets by their type from the record', () => {
    const m = { line: null, isQuarterLineMarket: false, outcomeOneName: 'A', outcomeTwoName: 'B' };
    expect(marketTypeLabel({ ...m, type: 52 })).toBe('Moneyline');
    expect(marketTypeLabel({ ...m, type: 226 })).toBe('Moneyline');
    expect(marketTypeLabel({ ...m, type: 1 })).toBe('Match result');
    expect(marketTypeLabel({ ...m, type: 2, line: 2.5 })).toBe('Total 2.5');
    expect(marketTypeLabel({ ...m, type: 3, line: -1.5 })).toBe('Handicap -1.5');
    expect(marketTypeLabel({ ...m, type: 3, line: -0.75, isQuarterLineMarket: true })).toBe(
      'Handicap -0.75 (quarter line)',
    );
    expect(marketTypeLabel({ ...m, type: 0 })).toBe('Parlay');
    expect(marketLabel({ ...m, type: 28, line: 210.5 })).toBe('Total 210.5: A / B');
  });

  it('shows decimal odds rounded down, so a display never promises more than the bet pays', () => {
    expect(decimalOdds(percent(50n))).toBe('2.00');
    expect(decimalOdds(percent(55n))).toBe('1.81'); // 1.8181…
    expect(decimalOdds(percent(45n))).toBe('2.22'); // 2.2222…
    expect(decimalOdds(125_000_000_000_000_000n)).toBe('800.00');
    expect(decimalOdds(0n)).toBe('-');
    expect(decimalOdds(55_125_000_000_000_000_000n, 3)).toBe('1.814');
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
