import { formatTokenAmount, ODDS_SCALE } from '@oddsbook/protocol';

/** An amount in base units as a token amount: 5000000 -> "5". */
export const usdc = (baseUnits: string | bigint) => formatTokenAmount(BigInt(baseUnits));

/** Implied probability x 10^20 as a percentage with up to 3 decimals: 52500000000000000000 -> "52.5%". */
export function percent(percentageOdds: string | bigint): string {
  const thousandths = (BigInt(percentageOdds) * 100_000n) / ODDS_SCALE;
  const whole = thousandths / 1000n;
  const fraction = (thousandths % 1000n).toString().padStart(3, '0').replace(/0+$/, '');
  return `${whole}${fraction ? `.${fraction}` : ''}%`;
}

/** Decimal odds (what a unit stake returns) to 2 decimals, computed in integers: 52.5% -> "1.90". */
export function decimalOdds(percentageOdds: string | bigint): string {
  const p = BigInt(percentageOdds);
  if (p === 0n) return '-';
  const hundredths = (ODDS_SCALE * 100n) / p;
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
}

/** A plain-text table: columns padded to their widest cell. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '(none)';
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export const shortHash = (hash: string) =>
  hash.length > 14 ? `${hash.slice(0, 10)}…${hash.slice(-4)}` : hash;

/** JSON with bigints as decimal strings. */
export const json = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
