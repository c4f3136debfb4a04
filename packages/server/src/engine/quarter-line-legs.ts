/** Quarter-line markets and their legs: fills split on the legs, parents closed with a leg. */
import type { MarketBook } from './market-book.js';

export function linkLegs(market: MarketBook, whole: MarketBook, half: MarketBook): void {
  market.legs = [whole, half];
  whole.parents.push(market);
  half.parents.push(market);
}
