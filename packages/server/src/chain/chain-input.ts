import { getAddress, isAddress } from 'viem';
import { AppError } from '../errors/app-error.js';
import type { TokenTxRequest } from './chain.js';
import type { Address, ChainTxPayload } from './chain-types.js';

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

/** Checks a token transaction request and gives its payload. */
export function tokenPayload(r: TokenTxRequest): ChainTxPayload {
  const memo = r.memo ?? null;
  switch (r.kind) {
    case 'mint':
      return { kind: 'mint', to: address(r.to, 'to'), amount: positive(r.amount), memo };
    case 'transfer':
      return {
        kind: 'transfer',
        from: address(r.from, 'from'),
        to: address(r.to, 'to'),
        amount: positive(r.amount),
        memo,
      };
    case 'escrow':
      return { kind: 'escrow', from: address(r.from, 'from'), amount: positive(r.amount), memo };
    case 'release':
      return { kind: 'release', to: address(r.to, 'to'), amount: positive(r.amount), memo };
    default:
      throw new AppError({
        code: 'INVALID_TRANSACTION',
        statusCode: 400,
        message: `not a token transaction: ${(r as { kind?: unknown }).kind}`,
      });
  }
}
