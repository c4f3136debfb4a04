import { getAddress, isAddress } from 'viem';
import { badRequest } from '../errors/app-error.js';

/** Checksums an address from the wire; a malformed one, or a mixed-case one with a wrong checksum, is a 400. */
export function parseAddress(value: string, field = 'address'): `0x${string}` {
  if (!isAddress(value)) throw badRequest('INVALID_ADDRESS', `${field} is not a valid address`);
  return getAddress(value);
}
