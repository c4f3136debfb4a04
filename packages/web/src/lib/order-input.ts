import {
  formatTokenAmount,
  ladderSize,
  ODDS_SCALE,
  oddsToTick,
  parseTokenAmount,
  tickToOdds,
} from '@oddsbook/protocol';
import { formatOdds, type OddsFormat, tokenAmount } from './display.js';

/** percentageOdds is probability x 10^20, so a percentage with 18 decimals is the same integer. */
const PERCENT_DECIMALS = 18;
/** Decimal and American odds are read with this many decimals (more than any display shows). */
const READ_DECIMALS = 18;
const ONE = 10n ** BigInt(READ_DECIMALS);

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

/** A non-negative decimal number as an 18-decimal fixed-point bigint, or null when it is not one. */
function readNumber(text: string): bigint | null {
  try {
    return parseTokenAmount(text, READ_DECIMALS);
  } catch {
    return null;
  }
}

/** The probability (percentageOdds, exact) that decimal or American odds stand for; throws when they cannot. */
function impliedOdds(text: string, format: 'decimal' | 'american'): bigint {
  const trimmed = text.trim();
  if (format === 'decimal') {
    const d = readNumber(trimmed);
    if (d === null || d <= ONE) throw new Error('Give decimal odds above 1, e.g. 1.8 or 2.222.');
    return (ODDS_SCALE * ONE) / d;
  }
  const sign = trimmed.startsWith('-') ? -1 : 1;
  const a = readNumber(trimmed.replace(/^[+-]/, ''));
  if (a === null || a < 100n * ONE) throw new Error('Give American odds of +100 or more, or -100 or less.');
  const hundred = 100n * ONE;
  // +A: stake 100 to win A, probability 100 / (A + 100); -A: stake A to win 100, probability A / (A + 100).
  return sign > 0 ? (ODDS_SCALE * hundred) / (a + hundred) : (ODDS_SCALE * a) / (a + hundred);
}

/**
 * Odds typed in `format` -> percentageOdds on the ladder. A probability must be a ladder step exactly.
 * Decimal and American odds cannot all be written exactly: text that reads as a tick's own display
 * ("1.814", "-122.85") is that tick; other text goes to the nearest tick, which the form then shows.
 */
export function parseOdds(text: string, format: OddsFormat, ladderStepSize: number): bigint {
  if (format === 'probability') return parsePercentOdds(text, ladderStepSize);
  const implied = impliedOdds(text, format);
  const wanted = readNumber(text.trim().replace(/^\+/, '').replace(/^-/, ''));
  const negative = text.trim().startsWith('-');
  const ticks = ladderSize(ladderStepSize);
  let nearest = 0n;
  for (let tick = 1; tick < ticks; tick++) {
    const odds = tickToOdds(tick, ladderStepSize);
    const shown = formatOdds(odds, format);
    if (readNumber(shown.replace(/^[+-]/, '')) === wanted && shown.startsWith('-') === negative) return odds;
    const distance = (o: bigint) => (o > implied ? o - implied : implied - o);
    if (nearest === 0n || distance(odds) < distance(nearest)) nearest = odds;
  }
  return nearest;
}

/** percentageOdds -> the text the odds field shows in `format` ("55.125", "1.814", "-122.85"). */
export function oddsText(odds: bigint, format: OddsFormat): string {
  if (format === 'probability') return percentText(odds);
  return formatOdds(odds, format);
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

/**
 * The stake checked before signing: at least the market's minimum (and the exchange's), at most what the
 * balance leaves free beside the open orders. Returns the problem in plain words, or null.
 */
export function stakeProblem(
  stake: bigint,
  limits: { minimum: bigint; free: bigint | undefined },
): string | null {
  if (stake < limits.minimum)
    return `The stake is below this market's minimum of ${tokenAmount(limits.minimum)} USDC.`;
  if (limits.free !== undefined && stake > limits.free)
    return `The stake is more than the ${tokenAmount(limits.free)} USDC your balance leaves free beside your open orders.`;
  return null;
}

/** What a winning bet returns, stake included: stake / probability, rounded down to a base unit. */
export function potentialReturn(stake: bigint, odds: bigint): bigint {
  return (stake * ODDS_SCALE) / odds;
}

/** The expiry choices of a resting (GTC) order; `gameStart` only while the game has not started. */
export type ExpiryChoice = 'gameStart' | '1h' | '1d' | '7d' | '30d';
const EXPIRY_SECONDS: Record<Exclude<ExpiryChoice, 'gameStart'>, number> = {
  '1h': 3600,
  '1d': 86_400,
  '7d': 7 * 86_400,
  '30d': 30 * 86_400,
};
export const EXPIRY_LABELS: Record<ExpiryChoice, string> = {
  gameStart: 'When the game starts',
  '1h': 'In 1 hour',
  '1d': 'In 1 day',
  '7d': 'In 7 days',
  '30d': 'In 30 days',
};
/**
 * The game must start at least this long after now for "when the game starts" to be offered: the
 * exchange refuses an expiry inside the betting delay plus 2 s.
 */
const GAME_START_MARGIN_S = 120;

/** The expiries to offer for a game starting at `gameTime` (unix seconds), the default first. */
export function expiryChoices(gameTime: number, nowSeconds: number): ExpiryChoice[] {
  const pregame = gameTime > nowSeconds + GAME_START_MARGIN_S;
  return [...(pregame ? (['gameStart'] as const) : []), '1d', '1h', '7d', '30d'];
}

/** The order's expiry (unix seconds) for a choice. */
export function expiryOf(choice: ExpiryChoice, gameTime: number, nowSeconds: number): number {
  return choice === 'gameStart' ? gameTime : nowSeconds + EXPIRY_SECONDS[choice];
}

/** An IOC or FOK order is over at once: it lives this long past the betting delay, never more. */
const IMMEDIATE_LIFETIME_S = 60;

export function immediateExpiry(bettingDelaySeconds: number, nowSeconds: number): number {
  return nowSeconds + Math.ceil(bettingDelaySeconds) + IMMEDIATE_LIFETIME_S;
}
