import { describe, expect, it } from 'vitest';
import { createLadder, gcd, ladderSizeFromStepSize, ODDS_SCALE, tickOfOdds } from './ladder.js';
import { hashId, mul32 } from './order-index.js';

describe('ladder', () => {
  it.each([
    [125, 800],
    [100, 1000],
    [1000, 100],
    [250, 400],
  ])('oddsLadderStepSize %i gives N = %i', (step, n) => {
    expect(ladderSizeFromStepSize(step)).toBe(n);
  });

  it.each([0, -125, 3, 12.5])('refuses step %s', (step) => {
    expect(() => ladderSizeFromStepSize(step)).toThrow(RangeError);
  });

  it('maps ticks to exact percentageOdds: k * 10^20 / N', () => {
    const ladder = createLadder(800);
    expect(ladder.step).toBe(125_000_000_000_000_000n);
    expect(ladder.odds[1]).toBe(125_000_000_000_000_000n);
    expect(ladder.odds[400]).toBe(ODDS_SCALE / 2n);
    expect(ladder.odds[799]).toBe(99_875_000_000_000_000_000n);
    for (let k = 1; k < 800; k++) expect(tickOfOdds(ladder, ladder.odds[k]!)).toBe(k);
  });

  it.each([
    0n,
    ODDS_SCALE,
    ODDS_SCALE + 125_000_000_000_000_000n,
    1n,
    50_000_000_000_000_000_001n,
    -125_000_000_000_000_000n,
  ])('has no tick for %s', (odds) => {
    expect(tickOfOdds(createLadder(800), odds)).toBe(0);
  });

  it.each([8, 100, 400, 800, 1000, 1024, 65536 / 16])('finds every tick through its table at N = %i', (n) => {
    const ladder = createLadder(n);
    expect(ladder.tickTable).toBeDefined();
    for (let k = 1; k < n; k++) expect(tickOfOdds(ladder, ladder.odds[k]!)).toBe(k);
  });

  it('refuses odds that share their low 64 bits with a tick', () => {
    const ladder = createLadder(800);
    const wrap = 1n << 64n;
    for (const k of [1, 2, 147, 400, 799]) {
      expect(tickOfOdds(ladder, ladder.odds[k]! + wrap)).toBe(0);
      expect(tickOfOdds(ladder, ladder.odds[k]! - wrap)).toBe(0);
      expect(tickOfOdds(ladder, ladder.odds[k]! + 4n * wrap)).toBe(0);
    }
  });

  it('finds ticks on ladders whose step is not exact in floating point', () => {
    const ladder = createLadder(1024);
    for (let k = 1; k < 1024; k++) expect(tickOfOdds(ladder, ladder.odds[k]!)).toBe(k);
  });

  it('cuts lots so that maker : taker = k : (N - k) in lowest terms', () => {
    const ladder = createLadder(800);
    expect([ladder.makerLot[400], ladder.takerLot[400]]).toEqual([1n, 1n]);
    expect([ladder.makerLot[500], ladder.takerLot[500]]).toEqual([5n, 3n]);
    expect([ladder.makerLot[1], ladder.takerLot[1]]).toEqual([1n, 799n]);
    expect([ladder.makerLot[600], ladder.takerLot[600]]).toEqual([3n, 1n]);
    for (let k = 1; k < 800; k++) {
      const a = ladder.makerLot[k]!;
      const b = ladder.takerLot[k]!;
      expect(a * BigInt(800 - k)).toBe(b * BigInt(k));
      expect(gcd(Number(a), Number(b))).toBe(1);
    }
  });
});

describe('hashes', () => {
  it('mul32 is Math.imul', () => {
    // biome-ignore lint/style/noRestrictedGlobals: the test compares with the built-in
    const imul = Math.imul;
    const xs = [0, 1, -1, 0x7fffffff, -0x80000000, 0x45d9f3b, 2654435761 | 0, 123456789, -987654321];
    for (const a of xs) for (const b of xs) expect(mul32(a, b)).toBe(imul(a, b));
  });

  it('hashId spreads ids that share a long prefix or suffix', () => {
    const prefix = new Set<number>();
    const suffix = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      prefix.add(hashId(`0x${'0'.repeat(56)}${i.toString(16).padStart(8, '0')}`) & 1023);
      suffix.add(hashId(`0x${i.toString(16).padStart(8, '0')}${'0'.repeat(56)}`) & 1023);
    }
    expect(prefix.size).toBeGreaterThan(500);
    expect(suffix.size).toBeGreaterThan(500);
  });
});
