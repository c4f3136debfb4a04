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

/** percentageOdds is probability x 10^20: as a percentage, the same integer with 18 decimals. */
const PERCENT_DECIMALS = 18;

/** Beyond this many decimals a percentage is rounded (a blended fill price); ladder odds never need it. */
const MAX_PERCENT_DECIMALS = 6;

/**
 * percentageOdds (probability x 10^20) as a percentage. Without `decimals`: with at least two decimals
 * and every significant one up to six, so ladder odds are exact (55 % -> "55.00 %", 55.125 % ->
 * "55.125 %") and a blended price is rounded half up at the sixth; with `decimals`: rounded half up to
 * that many.
 */
export function impliedProbability(odds: bigint, decimals?: number): string {
  if (decimals !== undefined)
    return `${fixed(divRound(odds * 100n * 10n ** BigInt(decimals), ODDS_SCALE), decimals)} %`;
  const rounded = divRound(odds, 10n ** BigInt(PERCENT_DECIMALS - MAX_PERCENT_DECIMALS));
  const [whole, fraction = ''] = formatTokenAmount(rounded, MAX_PERCENT_DECIMALS).split('.');
  return `${whole}.${fraction.padEnd(2, '0')} %`;
}

/**
 * percentageOdds as decimal odds (what one unit staked returns, stake included), rounded down so a
 * display never promises more than the bet pays: 55 % -> "1.81", 50 % -> "2.00".
 */
export function decimalOdds(odds: bigint, decimals = 2): string {
  if (odds <= 0n) return '-';
  return fixed((ODDS_SCALE * 10n ** BigInt(decimals)) / odds, decimals);
}

/**
 * percentageOdds as American (moneyline) odds with two decimals, never promising more than the bet pays:
 * below 50 % the profit on 100 staked, rounded down ("+122.22" at 45 %); from 50 % the stake that wins
 * 100, rounded up ("-122.85" at 55.125 %). 50 % is "+100.00".
 */
export function americanOdds(odds: bigint): string {
  if (odds <= 0n || odds >= ODDS_SCALE) return '-';
  const against = ODDS_SCALE - odds;
  if (odds * 2n <= ODDS_SCALE) return `+${fixed((10_000n * against) / odds, 2)}`;
  return `-${fixed((10_000n * odds + against - 1n) / against, 2)}`;
}

/** How the pages write odds: the bettor's choice, kept in this browser. */
export type OddsFormat = 'probability' | 'decimal' | 'american';
export const ODDS_FORMATS: readonly { format: OddsFormat; label: string }[] = [
  { format: 'probability', label: 'Probability (%)' },
  { format: 'decimal', label: 'Decimal' },
  { format: 'american', label: 'American' },
];
/**
 * Decimal odds are shown with three decimals: on the 0.125 % ladder, ticks differ by more than 0.001 in
 * decimal odds, so every tick reads differently and can be typed back.
 */
export const DECIMAL_ODDS_DECIMALS = 3;

/** percentageOdds in `format`: "55.125 %", "1.814", "-122.85". */
export function formatOdds(odds: bigint, format: OddsFormat): string {
  if (format === 'decimal') return decimalOdds(odds, DECIMAL_ODDS_DECIMALS);
  if (format === 'american') return americanOdds(odds);
  return impliedProbability(odds);
}

/** The same odds in every format, for a tooltip: "55.125 % = decimal 1.814 = American -122.85". */
export function allOddsFormats(odds: bigint): string {
  return `${impliedProbability(odds)} = decimal ${formatOdds(odds, 'decimal')} = American ${americanOdds(odds)}`;
}

const ODDS_FORMAT_KEY = 'oddsbook.oddsFormat';

/** The format the bettor chose last in this browser (probability until one is chosen). */
export function storedOddsFormat(
  storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage,
): OddsFormat {
  const value = storage?.getItem(ODDS_FORMAT_KEY);
  return ODDS_FORMATS.some((f) => f.format === value) ? (value as OddsFormat) : 'probability';
}

export function storeOddsFormat(
  format: OddsFormat,
  storage: Pick<Storage, 'setItem'> | undefined = globalThis.localStorage,
): void {
  storage?.setItem(ODDS_FORMAT_KEY, format);
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

/** The market fields a label is made of (a market record or a parlay leg). */
type LabelledMarket = {
  type: number;
  line: number | null;
  isQuarterLineMarket: boolean;
  outcomeOneName: string;
  outcomeTwoName: string;
};

/** Market type ids by kind (the production ids, as the exchange's catalog uses them). */
const MONEYLINE_TYPES: readonly number[] = [1, 52, 88, 226];
const TOTAL_TYPES: readonly number[] = [2, 28, 835];
const HANDICAP_TYPES: readonly number[] = [3, 201, 342];
const PARLAY_TYPE = 0;

/** What kind of market it is, from its record: "Moneyline", "Total 2.5", "Handicap -0.75 (quarter line)". */
export function marketTypeLabel(m: LabelledMarket): string {
  const line = m.line === null ? '' : ` ${m.line}`;
  const quarter = m.isQuarterLineMarket ? ' (quarter line)' : '';
  if (m.type === PARLAY_TYPE) return 'Parlay';
  if (MONEYLINE_TYPES.includes(m.type)) return m.type === 1 ? 'Match result' : 'Moneyline';
  if (TOTAL_TYPES.includes(m.type)) return `Total${line}${quarter}`;
  if (HANDICAP_TYPES.includes(m.type)) return `Handicap${line}${quarter}`;
  return `Market type ${m.type}${line}${quarter}`;
}

/** A market as the lists name it: its kind, then its two outcomes. */
export function marketLabel(m: LabelledMarket): string {
  return `${marketTypeLabel(m)}: ${m.outcomeOneName} / ${m.outcomeTwoName}`;
}
