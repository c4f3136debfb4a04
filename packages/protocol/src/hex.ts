import type { Hex } from 'viem';

export const MAX_UINT256 = (1n << 256n) - 1n;

const UINT_DECIMAL = /^(0|[1-9][0-9]{0,77})$/;
const UINT_HEX = /^0x[0-9a-fA-F]{1,64}$/;

/**
 * Parses a uint256 given as a bigint, a safe integer, a decimal string or a 0x-hex string.
 * `BigInt()` alone is too lenient for wire input (it accepts '', ' 1 ', '0b1', '0o7'), so the
 * accepted spellings are pinned here. Throws RangeError otherwise.
 */
export function parseUint256(value: string | bigint | number): bigint {
  let n: bigint;
  if (typeof value === 'bigint') n = value;
  else if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not a safe integer: ${value}`);
    n = BigInt(value);
  } else if (UINT_DECIMAL.test(value) || UINT_HEX.test(value)) n = BigInt(value);
  else throw new RangeError(`not a uint256: ${JSON.stringify(value)}`);
  if (n < 0n || n > MAX_UINT256) throw new RangeError(`out of uint256 range: ${n}`);
  return n;
}

/** True for a 0x-prefixed hex string of exactly `bytes` bytes. */
export function isHexOfSize(value: unknown, bytes: number): value is Hex {
  return typeof value === 'string' && value.length === 2 + 2 * bytes && /^0x[0-9a-fA-F]*$/.test(value);
}
