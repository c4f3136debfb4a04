/**
 * Quarter-line markets and their legs: a quarter-line market linked to its legs, its fills split on the
 * legs' positions, and closed when a leg closes or is resolved.
 */
import { cancelInMarket } from './cancels.js';
import type { EngineState } from './engine-state.js';
import type { QuarterLineLeg } from './events.js';
import { type MarketBook, MarketStatus, splitStake } from './market-book.js';
import { reportRefund } from './refunds.js';

export function linkLegs(market: MarketBook, whole: MarketBook, half: MarketBook): void {
  market.legs = [whole, half];
  whole.parents.push(market);
  half.parents.push(market);
}

/** A leg closing or resolved: its open quarter-line markets stop trading (their orders cancelled). */
export function closeParents(s: EngineState, leg: MarketBook): void {
  for (const parent of leg.parents) {
    if (parent.status !== MarketStatus.OPEN) continue;
    parent.status = MarketStatus.CLOSED;
    s.pending[s.eventCount++] = {
      type: 'marketClosed',
      marketHash: parent.marketHash,
      eventId: parent.eventId,
    };
    cancelInMarket(s, parent, undefined, 'EVENT_LIFECYCLE');
  }
}

/**
 * A quarter-line fill on its legs: half of each stake (`splitStake`) on each leg's positions, each half's
 * pot the sum of the two halves. Leaves the refunds in `legRefunds`: maker and taker on the whole line,
 * then on the half line; returns the halves (the fill event's `legs`).
 */
export function fillLegs(
  s: EngineState,
  legs: readonly [MarketBook, MarketBook],
  maker: number,
  taker: number,
  makerStakeField: number,
  makerStake: bigint,
  takerStake: bigint,
): readonly [QuarterLineLeg, QuarterLineLeg] {
  const takerStakeField = 1 - makerStakeField;
  const makerHalves = splitStake(makerStake);
  const takerHalves = splitStake(takerStake);
  const part = (i: 0 | 1): QuarterLineLeg => {
    const leg = legs[i];
    const m = makerHalves[i];
    const t = takerHalves[i];
    s.legRefunds[2 * i] = leg.fill(leg.positionSlot(maker), makerStakeField, m, m + t);
    s.legRefunds[2 * i + 1] = leg.fill(leg.positionSlot(taker), takerStakeField, t, m + t);
    return { marketHash: leg.marketHash, makerStake: m, takerStake: t };
  };
  return [part(0), part(1)];
}

/** Reports the refunds `fillLegs` left in `legRefunds`, leg by leg, maker first. */
export function reportLegRefunds(
  s: EngineState,
  legs: readonly [MarketBook, MarketBook],
  maker: number,
  taker: number,
  matchId: string,
  makerOrderId: string,
  takerOrderId: string,
): void {
  const r = s.legRefunds;
  for (let i = 0; i < 2; i++) {
    const leg = legs[i]!;
    if (r[2 * i] !== 0n) {
      reportRefund(s, leg, maker, leg.findPositionSlot(maker), r[2 * i]!, matchId, true, makerOrderId);
    }
    if (r[2 * i + 1] !== 0n) {
      reportRefund(s, leg, taker, leg.findPositionSlot(taker), r[2 * i + 1]!, matchId, false, takerOrderId);
    }
  }
}
