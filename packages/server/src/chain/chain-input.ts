import { getAddress, isAddress } from 'viem';
import { AppError } from '../errors/app-error.js';
import type { Address } from './chain-types.js';

/** The checksummed address, or a 400 naming the field. */
export function address(value: string, field: string): Address {
  if (typeof value !== 'string' || !isAddress(value, { strict: false })) {
    throw new AppError({ code: 'INVALID_ADDRESS', statusCode: 400, message: `${field} is not an address` });
  }
  return getAddress(value);
}

export function positive(amount: bigint, field = 'amount'): bigint {
  if (typeof amount !== 'bigint' || amount <= 0n) {
    throw new AppError({
      code: 'INVALID_AMOUNT',
      statusCode: 400,
      message: `${field} must be a positive bigint`,
    });
  }
  return amount;
}
