import { describe, expect, it } from 'vitest';
import { bookInFrame, isNewerBook } from './book.js';

const P = (percent: number) => (BigInt(percent * 1000) * 10n ** 20n) / 100_000n;

describe('bookInFrame', () => {
  // Makers: 10 USDC on outcome one at 55 %, 5 USDC on outcome two at 40 %.
  const book = {
    outcomeOne: [{ percentageOdds: P(55).toString(), size: '10000000' }],
    outcomeTwo: [{ percentageOdds: P(40).toString(), size: '5000000' }],
  };

  it('keeps the maker frame as published', () => {
    const view = bookInFrame(book, 'maker', 125);
    expect(view.outcomeOne).toEqual([{ percentageOdds: P(55), size: 10_000_000n }]);
    expect(view.outcomeTwo).toEqual([{ percentageOdds: P(40), size: 5_000_000n }]);
  });

  it("shows each outcome as a taker betting it gets it: the other side at 1 - p, in the taker's stake", () => {
    const view = bookInFrame(book, 'taker', 125);
    // Betting outcome one takes the outcome-two maker: 60 %, up to 5 x 0.6 / 0.4 = 7.5 USDC.
    expect(view.outcomeOne).toEqual([{ percentageOdds: P(60), size: 7_500_000n }]);
    // Betting outcome two takes the outcome-one maker: 45 %, up to 10 x 0.45 / 0.55 = 8.181818 (rounded down).
    expect(view.outcomeTwo).toEqual([{ percentageOdds: P(45), size: 8_181_818n }]);
  });

  it('replaces a book only with a newer version', () => {
    expect(isNewerBook(null, { version: '00000000000000000001' })).toBe(true);
    expect(isNewerBook({ version: '00000000000000000009' }, { version: '00000000000000000010' })).toBe(true);
    expect(isNewerBook({ version: '00000000000000000010' }, { version: '00000000000000000010' })).toBe(false);
    expect(isNewerBook({ version: '00000000000000000010' }, { version: '00000000000000000009' })).toBe(false);
  });
});
