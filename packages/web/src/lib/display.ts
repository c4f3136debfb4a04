import { formatTokenAmount, ODDS_SCALE } from '@oddsbook/protocol';

/** a / b rounded half up, for non-negative bigints. */
function divRound(a: bigint, b: bigint): bigint {
  return (a * 2n + b) / (2n * b);
}

function fixed(scaled: bigint, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const whole = scaled / scale;
  if (decimals === 0) return whole.toString();
  return `${whole}.${(scaled % scale).toString().padStart(decimals, '0')}`;
}

/** percentageOdds (probability x 10^20) as a percentage with `decimals` places: 55 % -> "55.00 %". */
export function impliedProbability(odds: bigint, decimals = 2): string {
  return `${fixed(divRound(odds * 100n * 10n ** BigInt(decimals), ODDS_SCALE), decimals)} %`;
}

/**
 * percentageOdds as decimal odds (what one unit staked returns, stake included), rounded down so a
 * display never promises more than the bet pays: 55 % -> "1.81", 50 % -> "2.00".
 */
export function decimalOdds(odds: bigint, decimals = 2): string {
  if (odds <= 0n) return '-';
  return fixed((ODDS_SCALE * 10n ** BigInt(decimals)) / odds, decimals);
}

/** Base units as a token amount with at least two decimals and every significant one: 1500000 -> "1.50". */
export function tokenAmount(baseUnits: bigint | string): string {
  const text = formatTokenAmount(BigInt(baseUnits));
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

/** 0x1234…abcd */
export function shortHex(value: string, keep = 6): string {
  return value.length <= keep * 2 + 2 ? value : `${value.slice(0, keep + 2)}…${value.slice(-keep + 2)}`;
}
