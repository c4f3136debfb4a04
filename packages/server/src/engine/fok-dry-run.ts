/**
 * The FOK dry run: what a walk would spend and get back (capital-efficiency refunds included) if it
 * filled, tracked without changing any order, position or balance.
 */
import type { EngineState } from './engine-state.js';
import { type MarketBook, splitStake } from './market-book.js';

/**
 * FOK dry run: adds one fill to what the walk has added to a party's position, `adds` = [stake, pot] on the
 * market, or [stake, pot] on each leg of a quarter-line market, its stake split as `fillLegs` splits it.
 */
export function dryAdd(market: MarketBook, adds: bigint[], own: bigint, other: bigint): void {
  if (market.legs === null) {
    adds[0]! += own;
    adds[1]! += own + other;
    return;
  }
  const [own0, own1] = splitStake(own);
  const [other0, other1] = splitStake(other);
  adds[0]! += own0;
  adds[1]! += own0 + other0;
  adds[2]! += own1;
  adds[3]! += own1 + other1;
}

/** FOK dry run: the refund a party would have had if `adds` (see `dryAdd`) were on its position. */
export function dryRefund(
  market: MarketBook,
  account: number,
  stakeField: number,
  adds: readonly bigint[],
): bigint {
  const legs = market.legs;
  if (legs === null) {
    return market.refundIfFilled(market.findPositionSlot(account), stakeField, adds[0]!, adds[1]!);
  }
  return (
    legs[0].refundIfFilled(legs[0].findPositionSlot(account), stakeField, adds[0]!, adds[1]!) +
    legs[1].refundIfFilled(legs[1].findPositionSlot(account), stakeField, adds[2]!, adds[3]!)
  );
}

/**
 * In the FOK dry run: what a maker betting on `makerSide` would have available after the fills the walk
 * has promised it so far, their stakes paid and their capital-efficiency refund received.
 */
export function dryAvailable(s: EngineState, market: MarketBook, maker: number, makerSide: number): bigint {
  const available = s.accounts.available.get(maker);
  const stake = s.spent.get(maker);
  if (stake === undefined) return available;
  return available - stake + dryRefund(market, maker, makerSide, s.spentAdds.get(maker)!);
}
