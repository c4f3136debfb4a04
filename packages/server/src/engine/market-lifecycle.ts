/** Markets opened, closed and resolved (with the payouts of a resolution). */
import type { EngineState } from './engine-state.js';
import { MarketBook } from './market-book.js';

export function addMarket(s: EngineState, marketHash: string, eventId: string): MarketBook {
  const market = new MarketBook(s.markets.length, marketHash, eventId, s.ladder.size, s.capitalEfficiency);
  s.markets.push(market);
  s.marketByHash.set(marketHash, market);
  let list = s.marketsByEvent.get(eventId);
  if (list === undefined) {
    list = [];
    s.marketsByEvent.set(eventId, list);
  }
  list.push(market);
  return market;
}
