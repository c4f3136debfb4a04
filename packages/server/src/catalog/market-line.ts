/**
 * Market lines are kept as canonical decimal text ("-0.75", "220.5", "0") so they never lose
 * precision; the wire carries them as JSON numbers, as production does.
 */
const LINE_PATTERN = /^(-?)(\d{1,6})(?:\.(\d{1,4}))?$/;

export class LineError extends Error {
  override name = 'LineError';
}

/** Canonical text of a line given as a JSON number or a decimal string; throws LineError when invalid. */
export function canonicalLine(input: number | string): string {
  const text = typeof input === 'number' ? numberText(input) : input.trim();
  const match = LINE_PATTERN.exec(text);
  if (!match) throw new LineError(`line must be a decimal with at most 6 integer and 4 fraction digits`);
  const [, sign, whole, fraction = ''] = match;
  const integer = String(Number(whole));
  const decimals = fraction.replace(/0+$/, '');
  const magnitude = decimals ? `${integer}.${decimals}` : integer;
  return magnitude === '0' ? '0' : `${sign}${magnitude}`;
}

function numberText(value: number): string {
  if (!Number.isFinite(value)) throw new LineError('line must be a finite number');
  // Shortest round-trip text; exponent forms (1e-7, 1e21) are outside the line range anyway.
  return String(value);
}

/** A quarter line (.25 or .75): flagged `isQuarterLineMarket`, settled by two leg markets (quarter-line.ts). */
export function isQuarterLine(line: string | null): boolean {
  if (line === null) return false;
  const fraction = line.split('.')[1] ?? '';
  return fraction === '25' || fraction === '75';
}

export const lineNumber = (line: string | null): number | null => (line === null ? null : Number(line));
