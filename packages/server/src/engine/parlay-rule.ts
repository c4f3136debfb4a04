/**
 * The parlay rule (docs/parlays.md), pure: what a leg's result is for the bettor, and what the legs' results
 * make of the parlay. The bettor's side of a parlay market is outcome one.
 */
import type { MarketOutcome } from './commands.js';

export type LegResult = 'won' | 'lost' | 'void';

/** A resolved leg market's result for a bettor who needs outcome one (`pickOne`) or outcome two. */
export function legResult(outcome: MarketOutcome, pickOne: boolean): LegResult {
  if (outcome === 0) return 'void';
  return (outcome === 1) === pickOne ? 'won' : 'lost';
}

/**
 * A quarter-line leg from its two halves (whole line, half line): lost as soon as a half is lost, won when
 * both are won, void otherwise (a half pushed and none lost); null while that is not decided.
 */
export function quarterLineResult(halves: readonly (LegResult | null)[]): LegResult | null {
  if (halves.includes('lost')) return 'lost';
  if (halves.includes(null)) return null;
  return halves.every((h) => h === 'won') ? 'won' : 'void';
}

/**
 * The parlay's outcome from its legs' results (null: not graded yet): 2 as soon as a leg is lost, 1 once
 * every leg is won, 0 (void: every stake back) once every leg is graded, none lost and one void or pushed.
 */
export function parlayOutcome(legs: readonly (LegResult | null)[]): MarketOutcome | null {
  if (legs.includes('lost')) return 2;
  if (legs.includes(null)) return null;
  return legs.every((l) => l === 'won') ? 1 : 0;
}

export const BPS = 10_000n;

/** The fee on a winner's profit: `feeBps` of it, rounded down (rounding never makes money). */
export function parlayFee(profit: bigint, feeBps: number): bigint {
  return profit > 0n ? (profit * BigInt(feeBps)) / BPS : 0n;
}
