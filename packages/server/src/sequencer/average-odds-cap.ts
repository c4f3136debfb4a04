import { type BookLevels, ODDS_SCALE } from '../engine/index.js';
import type { PlaceOrderInput } from './inputs.js';

/**
 * A v2 fill's slippage rule as an engine order (`POST /orders/fill/v2`): the taker's stake-weighted implied
 * probability, sum(stake) / sum(pot), must stay at or below `bound` = desiredOdds x 100 / (100 - oddsSlippage).
 * A taker takes the book best price first, so its average only worsens as it takes more: it takes whole levels
 * while the average stays within the bound, then of the next level as much as keeps it within, and stops. The answer is that order with its stake cut to that amount and its limit at that last level, or
 * null when nothing can be taken.
 *
 * `levels` is the side the taker takes from (the other outcome's resting orders), best first; the engine then
 * matches the order as usual. The engine fills in whole lots, so a level may be taken a lot short, and the
 * amount it leaves is then taken at the last level: the average may pass the bound by less than a lot's price
 * difference, which is why the cut leaves one lot of the last level's price untaken.
 */
export function capToAverageOdds(
  order: PlaceOrderInput,
  limit: { desiredOdds: string; oddsSlippage: number },
  levels: BookLevels['outcomeOne'],
  ladderSize: number,
): PlaceOrderInput | null {
  const N = BigInt(ladderSize);
  const slippage = BigInt(limit.oddsSlippage);
  const desired = BigInt(limit.desiredOdds);
  // bound / 1e20 as the fraction boundNum / boundDen; no bound at all when slippage is 100 %.
  const boundNum = desired * 100n;
  const boundDen = (100n - slippage) * ODDS_SCALE;
  const unbounded = slippage >= 100n || boundNum >= boundDen;
  let stake = 0n;
  let pot = 0n;
  let lastTick = 0n;
  for (const level of levels) {
    if (stake >= order.totalBetSize) break;
    const k = BigInt(level.tick);
    const takerTick = N - k;
    // The taker stake that takes the whole level: maker size x (N - k) / k.
    const whole = (level.size * takerTick) / k;
    const room = order.totalBetSize - stake;
    const withinBound = unbounded || takerTick * boundDen <= boundNum * N;
    if (withinBound) {
      const x = whole < room ? whole : room;
      stake += x;
      pot += x + (x * k) / takerTick;
      lastTick = takerTick;
      continue;
    }
    // (stake + x) / (pot + x N / (N - k)) <= num / den  <=>  x (den (N - k) - num N) <= (num pot - den stake)(N - k)
    const headroom = (boundNum * pot - boundDen * stake) * takerTick;
    const perStake = boundDen * takerTick - boundNum * N;
    const most = headroom > 0n ? headroom / perStake : 0n;
    // The whole level still keeps the average within the bound: take it and look at the next.
    if (most >= whole && whole <= room) {
      stake += whole;
      pot += whole + (whole * k) / takerTick;
      lastTick = takerTick;
      continue;
    }
    let x = most - takerTick / gcd(k, takerTick);
    if (x > room) x = room;
    if (x > 0n) {
      stake += x;
      lastTick = takerTick;
    }
    break;
  }
  if (stake === 0n) return null;
  return {
    ...order,
    totalBetSize: stake,
    percentageOdds: (lastTick * ODDS_SCALE) / N,
  };
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}
