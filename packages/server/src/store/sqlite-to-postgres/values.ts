import { createHash } from 'node:crypto';

/** How a PostgreSQL column takes a SQLite value, by the column's type. */
export type ValueKind = 'integer' | 'decimal' | 'boolean' | 'bytea' | 'json' | 'float' | 'text';

/** The kind of a PostgreSQL column, from its `udt_name` and `numeric_scale` (information_schema.columns). */
export function valueKind(udtName: string, numericScale: number | null): ValueKind {
  switch (udtName) {
    case 'int2':
    case 'int4':
    case 'int8':
      return 'integer';
    case 'numeric':
      return numericScale === 0 ? 'integer' : 'decimal';
    case 'bool':
      return 'boolean';
    case 'bytea':
      return 'bytea';
    case 'json':
    case 'jsonb':
      return 'json';
    case 'float4':
    case 'float8':
      return 'float';
    default:
      // text, varchar and anything else: PostgreSQL's input function for the type decides (and refuses).
      return 'text';
  }
}

export class UnconvertibleValue extends Error {
  override name = 'UnconvertibleValue';
}

const WHOLE_NUMBER = /^-?[0-9]+$/;

/**
 * A SQLite value, read with `safeIntegers` (an INTEGER is a bigint, never a rounded number), as the text
 * PostgreSQL's input function reads for a column of `kind`; a BLOB for a bytea column stays a Buffer (sent
 * as a binary parameter). Anything that would change on the way is refused: a whole-number column never takes
 * a fraction (NUMERIC(78,0) would round it), a boolean only 0 or 1, a REAL only a float column.
 */
export function toPostgres(value: unknown, kind: ValueKind): string | Buffer | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') {
    if (kind === 'boolean') {
      if (value === 0n) return 'f';
      if (value === 1n) return 't';
      throw new UnconvertibleValue(`${value} is not a boolean (0 or 1)`);
    }
    if (kind === 'bytea' || kind === 'json')
      throw new UnconvertibleValue(`the integer ${value} is not ${kind}`);
    return value.toString();
  }
  if (typeof value === 'number') {
    if (kind === 'float') return String(value);
    throw new UnconvertibleValue(`the real number ${value} would not go into a ${kind} column exactly`);
  }
  if (typeof value === 'string') {
    if (kind === 'integer' && !WHOLE_NUMBER.test(value))
      throw new UnconvertibleValue(`"${value.slice(0, 40)}" is not a whole number`);
    if (kind === 'boolean' || kind === 'bytea')
      throw new UnconvertibleValue(`the text "${value.slice(0, 40)}" is not ${kind}`);
    return value;
  }
  if (Buffer.isBuffer(value)) {
    if (kind !== 'bytea') throw new UnconvertibleValue(`a blob of ${value.length} bytes is not ${kind}`);
    return value;
  }
  throw new UnconvertibleValue(`a ${typeof value} is not a SQLite value`);
}

/**
 * One form of a value for both sides of the comparison: what `toPostgres` gives for SQLite, and PostgreSQL's
 * text output (a bytea read as the hex of its SHA-256, which PostgreSQL computes itself) for PostgreSQL.
 */
export function canonical(value: string | Buffer | null, kind: ValueKind): string | null {
  if (value === null) return null;
  if (Buffer.isBuffer(value)) return createHash('sha256').update(value).digest('hex');
  switch (kind) {
    case 'integer':
      return BigInt(value).toString();
    case 'float':
      return String(Number(value));
    case 'json':
      return stableJson(JSON.parse(value));
    default:
      return value;
  }
}

/** JSON with the keys of every object sorted: jsonb keeps no key order. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The contents of a table whatever the order of its rows: the count, and the sum (mod 2^256) of each row's
 * SHA-256 over its canonical values.
 */
export class TableDigest {
  rows = 0;
  private sum = 0n;

  add(values: readonly (string | null)[]): void {
    this.rows += 1;
    const hash = createHash('sha256').update(JSON.stringify(values)).digest('hex');
    this.sum = (this.sum + BigInt(`0x${hash}`)) & ((1n << 256n) - 1n);
  }

  get hex(): string {
    return this.sum.toString(16).padStart(64, '0');
  }
}
