/** Decimal-string <-> bigint codecs for money and odds on the wire. Never floats. */

const UINT_PATTERN = /^(0|[1-9][0-9]*)$/;

/** Largest uint256, the bound of every signed amount. */
export const UINT256_MAX = (1n << 256n) - 1n;

/** The base token has 6 decimals: 1 unit of token = 10^6 base units. */
export const BASE_TOKEN_DECIMALS = 6;

/** percentageOdds scale: implied probability x 10^20. */
export const ODDS_SCALE = 10n ** 20n;

export function isUintString(value: string): boolean {
  return value.length <= 78 && UINT_PATTERN.test(value) && BigInt(value) <= UINT256_MAX;
}

/** Parses a canonical unsigned decimal string (no sign, no leading zeros, no exponent). */
export function parseUint(value: string): bigint {
  if (!isUintString(value)) throw new RangeError(`not an unsigned decimal integer: ${value}`);
  return BigInt(value);
}

export function formatUint(value: bigint): string {
  if (value < 0n) throw new RangeError('negative amount');
  return value.toString();
}

/** Renders base units as a human token amount, e.g. 1500000n -> "1.5". */
export function formatTokenAmount(baseUnits: bigint, decimals = BASE_TOKEN_DECIMALS): string {
  const negative = baseUnits < 0n;
  const abs = negative ? -baseUnits : baseUnits;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const fraction = (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Parses a human token amount ("1.5") into base units; more decimals than the token has is an error. */
export function parseTokenAmount(value: string, decimals = BASE_TOKEN_DECIMALS): bigint {
  const match = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/.exec(value);
  if (!match) throw new RangeError(`not a token amount: ${value}`);
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) throw new RangeError(`more than ${decimals} decimals: ${value}`);
  return BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}
