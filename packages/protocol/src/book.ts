import { invertOdds, ladderSize, ladderStep } from './odds.js';
import type { BookLevel, BookSnapshot } from './schemas/trading.js';

/** Book versions are zero-padded decimal strings: the newer compares greater, as strings too. */
export function isNewerBook(
  current: { version: string } | null | undefined,
  next: { version: string },
): boolean {
  return !current || next.version > current.version;
}

/**
 * A maker-frame book (what `GET /orderbook-v3/snapshot` and the book channels publish) as a taker sees it,
 * exactly as the exchange's `showTakerPerspective`: each outcome lists what a taker betting it can take,
 * the other outcome's levels at 1 - the maker's probability, sizes in taker stake (maker size x (1 - p) / p,
 * rounded down), best (highest payout) first.
 */
export function takerBook<B extends Pick<BookSnapshot, 'outcomeOne' | 'outcomeTwo'>>(
  book: B,
  ladderStepSize: number,
): B {
  const step = ladderStep(ladderStepSize);
  const n = BigInt(ladderSize(ladderStepSize));
  const asTaker = (level: BookLevel): BookLevel => {
    const odds = BigInt(level.percentageOdds);
    const k = odds / step;
    return {
      percentageOdds: invertOdds(odds).toString(),
      size: ((BigInt(level.size) * (n - k)) / k).toString(),
    };
  };
  return { ...book, outcomeOne: book.outcomeTwo.map(asTaker), outcomeTwo: book.outcomeOne.map(asTaker) };
}
