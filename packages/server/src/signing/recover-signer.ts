import { checksumLowerHex } from './address-checksum.js';
import { ecdsaRecoverXY, keccak256Buffer } from './native-crypto.js';

/**
 * Stable codes of a signature check:
 * - `INVALID_SIGNATURE`: not 65 bytes of hex, v not in {0, 1, 27, 28}, r or s zero or out of range,
 *   or no public key recovers.
 * - `MALLEABLE_SIGNATURE`: s > n/2. ecrecover, viem and libsecp256k1 accept the twin (n - s, v ^ 1)
 *   of every signature; refusing high s keeps one signature per (message, key), so signatures can key
 *   dedup and replay indexes. Unless `acceptHighS` (a Safe's owner signatures: the Safe contract takes
 *   whatever ecrecover takes, and keys confirmations by owner, not by signature).
 */
export type SignatureErrorCode = 'INVALID_SIGNATURE' | 'MALLEABLE_SIGNATURE';

export type RecoverResult = { ok: true; signer: `0x${string}` } | { ok: false; code: SignatureErrorCode };

/** The option a Safe's owner signatures are recovered with. */
export const ACCEPT_HIGH_S = { acceptHighS: true } as const;

const HALF_N = Buffer.from('7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0', 'hex');
const SIGNATURE_HEX = /^0x[0-9a-fA-F]{130}$/;

const rs = Buffer.alloc(64);

/** Recovers the checksummed signer of a 32-byte digest from a 65-byte r‖s‖v hex signature. */
export function recoverSigner(
  digest: Uint8Array,
  signature: string,
  options?: { acceptHighS?: boolean },
): RecoverResult {
  if (typeof signature !== 'string' || !SIGNATURE_HEX.test(signature)) {
    return { ok: false, code: 'INVALID_SIGNATURE' };
  }
  rs.write(signature.slice(2, 130), 0, 'hex');
  const v = Number.parseInt(signature.slice(130, 132), 16);
  let recid: number;
  if (v === 27 || v === 28) recid = v - 27;
  else if (v === 0 || v === 1) recid = v;
  else return { ok: false, code: 'INVALID_SIGNATURE' };
  if (!options?.acceptHighS && Buffer.compare(rs.subarray(32, 64), HALF_N) > 0)
    return { ok: false, code: 'MALLEABLE_SIGNATURE' };
  let xy: Buffer;
  try {
    xy = ecdsaRecoverXY(rs, recid, digest);
  } catch {
    // libsecp256k1 throws for r or s of zero, r >= n, or a point that does not exist.
    return { ok: false, code: 'INVALID_SIGNATURE' };
  }
  const hash = keccak256Buffer(xy);
  return { ok: true, signer: checksumLowerHex(hash.toString('hex', 12, 32)) };
}
