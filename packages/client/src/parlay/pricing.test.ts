import { type BookLevel, ODDS_SCALE, takerBook, tickToOdds } from '@oddsbook/protocol';
import { describe, expect, it } from 'vitest';
import { legProbability, parlayProbability, quoteParlay } from './pricing.js';

const step = 125;
const pct = (p: number) => (BigInt(Math.round(p * 1000)) * ODDS_SCALE) / 100_000n;
const level = (p: number) => ({ percentageOdds: pct(p).toString(), size: '10000000' });

describe('legProbability', () => {
  it("is half way between the best bid and ask of the bettor's outcome", () => {
    // Makers bet outcome one at 53 % and outcome two at 43 %: outcome one is bid 53, asked 57.
    const best = { outcomeOne: level(53), outcomeTwo: level(43) };
    expect(legProbability(best, true)).toBe(pct(55));
    expect(legProbability(best, false)).toBe(pct(45));
  });
  it('takes the one side there is, and gives up on an empty book', () => {
    expect(legProbability({ outcomeOne: level(40), outcomeTwo: null }, true)).toBe(pct(40));
    expect(legProbability({ outcomeOne: level(40), outcomeTwo: null }, false)).toBe(pct(60));
    expect(legProbability({ outcomeOne: null, outcomeTwo: null }, true)).toBeNull();
  });
});

describe('parlayProbability', () => {
  it('multiplies the legs: 55 % x 48 % is 26.4 % (the research example)', () => {
    expect(parlayProbability([pct(55), pct(48)])).toBe(pct(26.4));
    expect(parlayProbability([pct(50), pct(50), pct(50)])).toBe(pct(12.5));
    expect(() => parlayProbability([])).toThrow();
  });
});

describe('quoteParlay', () => {
  const legs = [
    { best: { outcomeOne: level(55), outcomeTwo: level(45) }, bettingOutcomeOne: true },
    { best: { outcomeOne: level(52), outcomeTwo: level(48) }, bettingOutcomeOne: false },
  ];
  it('adds the margin, rounds up onto the ladder, and lays it on outcome two', () => {
    const quote = quoteParlay({ legs, margin: pct(3), bettorStake: 10_000_000n, ladderStepSize: step });
    if (!quote.ok) throw new Error(quote.reason);
    expect(quote.fair).toBe(pct(26.4));
    expect(quote.bettorOdds).toBe(pct(29.5)); // 29.4 % rounded up to the 0.125 % ladder
    expect(quote.makerOdds).toBe(pct(70.5));
    // The maker covers the bettor's 10 USDC at 29.5 %: 10 x 70.5 / 29.5 = 23.898305..., rounded up.
    expect(quote.makerStake).toBe(23_898_306n);
  });
  it("lets the bettor take exactly the stake asked, as the exchange's taker book computes it", () => {
    for (const stake of [1n, 999_999n, 10_000_000n, 123_456_789n]) {
      const quote = quoteParlay({ legs, margin: pct(1.7), bettorStake: stake, ladderStepSize: step });
      if (!quote.ok) throw new Error(quote.reason);
      const book = {
        outcomeOne: [] as BookLevel[],
        outcomeTwo: [{ percentageOdds: quote.makerOdds.toString(), size: quote.makerStake.toString() }],
      };
      const taken = takerBook(book, step).outcomeOne[0]!;
      expect(BigInt(taken.percentageOdds)).toBe(quote.bettorOdds);
      expect(BigInt(taken.size)).toBeGreaterThanOrEqual(stake);
      // One base unit less of the maker would not cover it: the stake is the least that does.
      const less = takerBook(
        { ...book, outcomeTwo: [{ ...book.outcomeTwo[0]!, size: (quote.makerStake - 1n).toString() }] },
        step,
      ).outcomeOne[0]!;
      expect(BigInt(less.size)).toBeLessThan(stake);
    }
  });
  it('refuses what it cannot price', () => {
    const empty = [{ best: { outcomeOne: null, outcomeTwo: null }, bettingOutcomeOne: true }];
    expect(quoteParlay({ legs: empty, margin: 0n, bettorStake: 1n, ladderStepSize: step })).toEqual({
      ok: false,
      reason: 'leg 1 has nothing on its book to price it from',
    });
    const unknown = [{ best: undefined, bettingOutcomeOne: true }];
    expect(quoteParlay({ legs: unknown, margin: 0n, bettorStake: 1n, ladderStepSize: step }).ok).toBe(false);
    const sure = [{ best: { outcomeOne: level(99.9), outcomeTwo: null }, bettingOutcomeOne: true }];
    expect(quoteParlay({ legs: sure, margin: pct(1), bettorStake: 1n, ladderStepSize: step })).toEqual({
      ok: false,
      reason: 'the price with the margin reaches 100 %',
    });
    expect(quoteParlay({ legs, margin: -1n, bettorStake: 1n, ladderStepSize: step }).ok).toBe(false);
    expect(quoteParlay({ legs, margin: 0n, bettorStake: 0n, ladderStepSize: step }).ok).toBe(false);
  });
  it('keeps a price already on the ladder', () => {
    const quote = quoteParlay({
      legs: [{ best: { outcomeOne: level(50), outcomeTwo: level(50) }, bettingOutcomeOne: true }],
      margin: tickToOdds(1, step),
      bettorStake: 1_000_000n,
      ladderStepSize: step,
    });
    expect(quote.ok && quote.bettorOdds).toBe(pct(50.125));
  });
});
