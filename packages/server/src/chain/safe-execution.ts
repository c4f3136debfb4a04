import {
  parseAddSignerTransaction,
  type SafeTransactionData,
  SENTINEL_OWNER,
  safeDomain,
  safeTxHash,
  ZERO_ADDRESS,
} from '@oddsbook/protocol';
import { keccak256Buffer } from '../signing/native-crypto.js';
import { ACCEPT_HIGH_S, recoverSigner } from '../signing/recover-signer.js';
import type { Address, Hash, SafeState } from './chain-types.js';

export type SafeExecution = { ok: true; safe: SafeState } | { ok: false; error: string };

const ETH_SIGN_PREFIX = Buffer.from('\x19Ethereum Signed Message:\n32', 'latin1');

/**
 * Safe `checkNSignatures` for EOA signatures: the first `threshold` 65-byte static parts, each
 * recovering to an owner, in strictly ascending owner order. v 27/28 is an EIP-712 signature of the
 * hash, v 31/32 an eth_sign one. Contract (v 0) and approved-hash (v 1) signatures have no meaning
 * without msg.sender and contracts here, so they fail as on-chain they would for an unapproved hash.
 * High-s signatures count, as ecrecover takes them (signers such as AWS KMS produce them half the time).
 */
export function checkSafeSignatures(
  hash: Hash,
  signatures: Hash,
  owners: readonly Address[],
  threshold: number,
): string | null {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(signatures)) return 'GS020';
  if ((signatures.length - 2) / 2 < threshold * 65) return 'GS020';
  const digest = Buffer.from(hash.slice(2), 'hex');
  const ownerSet = new Set(owners.map((o) => o.toLowerCase()));
  let last = 0n;
  for (let i = 0; i < threshold; i++) {
    const part = signatures.slice(2 + i * 130, 2 + (i + 1) * 130);
    const v = Number.parseInt(part.slice(128), 16);
    let recovered: ReturnType<typeof recoverSigner>;
    if (v === 27 || v === 28) recovered = recoverSigner(digest, `0x${part}`, ACCEPT_HIGH_S);
    else if (v === 31 || v === 32) {
      const prefixed = keccak256Buffer(Buffer.concat([ETH_SIGN_PREFIX, digest]));
      recovered = recoverSigner(prefixed, `0x${part.slice(0, 128)}${(v - 4).toString(16)}`, ACCEPT_HIGH_S);
    } else if (v === 1) return 'GS025';
    else return 'GS026';
    if (!recovered.ok) return 'GS026';
    const owner = BigInt(recovered.signer);
    if (owner <= last || !ownerSet.has(recovered.signer.toLowerCase())) return 'GS026';
    last = owner;
  }
  return null;
}

/**
 * `execTransaction` of an add-owner Safe transaction against `safe`, with Safe's checks and error
 * codes. The Safe only supports `addOwnerWithThreshold` here (a CALL to itself with zero gas fields);
 * with safeTxGas = gasPrice = 0 a failing inner call reverts everything (GS013) and the nonce is kept.
 */
export function executeSafeTransaction(options: {
  chainId: number;
  safe: SafeState;
  transaction: SafeTransactionData;
  signatures: Hash;
}): SafeExecution {
  const { safe, transaction } = options;
  const hash = safeTxHash(safeDomain(options.chainId, safe.address), { ...transaction, nonce: safe.nonce });
  const sigError = checkSafeSignatures(hash, options.signatures, safe.owners, safe.threshold);
  if (sigError) return { ok: false, error: sigError };
  const call = parseAddSignerTransaction(safe.address, transaction);
  if (!call) return { ok: false, error: 'UNSUPPORTED_SAFE_CALL' };
  const owner = call.owner;
  const lower = owner.toLowerCase();
  if (lower === ZERO_ADDRESS || lower === SENTINEL_OWNER || lower === safe.address.toLowerCase()) {
    return { ok: false, error: 'GS013: GS203 invalid owner address' };
  }
  if (safe.owners.some((o) => o.toLowerCase() === lower)) {
    return { ok: false, error: 'GS013: GS204 address is already an owner' };
  }
  const ownerCount = safe.owners.length + 1;
  if (call.threshold > BigInt(ownerCount))
    return { ok: false, error: 'GS013: GS201 threshold exceeds owners' };
  if (call.threshold < 1n) return { ok: false, error: 'GS013: GS202 threshold must be at least 1' };
  return {
    ok: true,
    safe: {
      ...safe,
      owners: [owner, ...safe.owners],
      threshold: Number(call.threshold),
      nonce: safe.nonce + 1,
    },
  };
}
