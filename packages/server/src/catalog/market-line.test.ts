import { describe, expect, it } from 'vitest';
import { canonicalLine, isQuarterLine, LineError, lineNumber } from './market-line.js';

describe('market lines', () => {
  it.each([
    [-0.75, '-0.75'],
    ['-0.750', '-0.75'],
    [220.5, '220.5'],
    ['0220.50', '220.5'],
    [0, '0'],
    ['-0', '0'],
    [-0, '0'],
    [3, '3'],
    ['2.25', '2.25'],
    [999999.9999, '999999.9999'],
  ])('canonicalizes %s as %s', (input, expected) => {
    expect(canonicalLine(input)).toBe(expected);
  });

  it.each([
    ['1.5.5'],
    [''],
    ['abc'],
    ['+1.5'],
    [1e9],
    [0.12345],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    ['1e3'],
  ])('refuses %s', (input) => {
    expect(() => canonicalLine(input)).toThrow(LineError);
  });

  it('flags .25 and .75 lines as quarter lines', () => {
    expect(['-0.75', '2.25', '0.25', '-10.75'].map(isQuarterLine)).toEqual([true, true, true, true]);
    expect(['-0.5', '2', '0', '2.125', null].map(isQuarterLine)).toEqual([false, false, false, false, false]);
  });

  it('puts lines on the wire as numbers, exactly', () => {
    expect(lineNumber('-0.75')).toBe(-0.75);
    expect(lineNumber('220.5')).toBe(220.5);
    expect(lineNumber(null)).toBeNull();
  });
});
