import { ODDS_SCALE } from './units.js';

/**
 * The odds ladder. `oddsLadderStepSize` is in units of 0.001 %: 125 means a 0.125 % step,
 * i.e. N = 100_000 / 125 = 800 ticks, tick k <-> implied probability k/N, percentageOdds = k * 10^20 / N.
 */
export const DEFAULT_ODDS_LADDER_STEP = 125;

const STEP_UNITS_PER_ONE = 100_000;

export function ladderSize(stepSize: number = DEFAULT_ODDS_LADDER_STEP): number {
  if (!Number.isInteger(stepSize) || stepSize <= 0 || STEP_UNITS_PER_ONE % stepSize !== 0) {
    throw new RangeError(`odds ladder step must divide ${STEP_UNITS_PER_ONE}: ${stepSize}`);
  }
  return STEP_UNITS_PER_ONE / stepSize;
}

/** Raw percentageOdds step: 125 -> 1.25e17. */
export function ladderStep(stepSize: number = DEFAULT_ODDS_LADDER_STEP): bigint {
  return ODDS_SCALE / BigInt(ladderSize(stepSize));
}

export function tickToOdds(tick: number, stepSize: number = DEFAULT_ODDS_LADDER_STEP): bigint {
  return BigInt(tick) * ladderStep(stepSize);
}

/** The tick of an on-ladder percentageOdds strictly between 0 and 1, or null when off the ladder. */
export function oddsToTick(odds: bigint, stepSize: number = DEFAULT_ODDS_LADDER_STEP): number | null {
  const step = ladderStep(stepSize);
  if (odds <= 0n || odds >= ODDS_SCALE || odds % step !== 0n) return null;
  return Number(odds / step);
}

/** Maker frame <-> taker frame: the taker's implied probability is 1 - the maker's. */
export function invertOdds(odds: bigint): bigint {
  return ODDS_SCALE - odds;
}

/** Rounds arbitrary odds down onto the ladder (makers round down). */
export function roundOddsDown(odds: bigint, stepSize: number = DEFAULT_ODDS_LADDER_STEP): bigint {
  const step = ladderStep(stepSize);
  return (odds / step) * step;
}
