import { formatTokenAmount, ODDS_SCALE, oddsToTick, parseTokenAmount } from '@oddsbook/protocol';

/** percentageOdds is probability x 10^20, so a percentage with 18 decimals is the same integer. */
const PERCENT_DECIMALS = 18;

/** "55" or "55.125" (percent) -> percentageOdds, checked to be on the exchange's ladder. */
export function parsePercentOdds(text: string, ladderStepSize: number): bigint {
  let odds: bigint;
  try {
    odds = parseTokenAmount(text.trim(), PERCENT_DECIMALS);
  } catch {
    throw new Error('Give the probability as a percentage, e.g. 55 or 55.125.');
  }
  if (odds <= 0n || odds >= ODDS_SCALE) throw new Error('The probability must be between 0 and 100 %.');
  if (oddsToTick(odds, ladderStepSize) === null) {
    throw new Error(
      `The probability must be a multiple of ${formatTokenAmount(BigInt(ladderStepSize), 3)} %.`,
    );
  }
  return odds;
}

/** percentageOdds -> the percentage text the form shows ("55.125"). */
export function percentText(odds: bigint): string {
  return formatTokenAmount(odds, PERCENT_DECIMALS);
}

/** "10" or "10.5" (USDC) -> base units. */
export function parseStake(text: string): bigint {
  try {
    const stake = parseTokenAmount(text.trim());
    if (stake > 0n) return stake;
  } catch {
    // fall through to the plain message
  }
  throw new Error('Give the stake in USDC, e.g. 10 or 10.5 (at most 6 decimals).');
}

/** What a winning bet returns, stake included: stake / probability, rounded down to a base unit. */
export function potentialReturn(stake: bigint, odds: bigint): bigint {
  return (stake * ODDS_SCALE) / odds;
}
