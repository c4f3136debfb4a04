import type { SafeTransactionData } from '@oddsbook/protocol';
import type { MaybePromise } from '../lib/maybe-promise.js';
import type { Address, Hash } from './chain-types.js';

/**
 * - `pending`: collecting confirmations.
 * - `submitted`: threshold reached, the Safe transaction is on its way to a block.
 * - `executed`: landed successfully.
 * - `failed`: landed and reverted (the Safe's nonce was not consumed; prepare again).
 * - `replaced`: a later prepare at the same nonce took its place, or another transaction used the nonce.
 */
export type MultisigStatus = 'pending' | 'submitted' | 'executed' | 'failed' | 'replaced';

export type MultisigRecord = {
  safeTxHash: Hash;
  safe: Address;
  nonce: number;
  /** The Safe's threshold at this nonce (it can only change by using the nonce). */
  requiredThreshold: number;
  transaction: SafeTransactionData;
  status: MultisigStatus;
  submissionTxHash: Hash | null;
  executionTxHash: Hash | null;
  failure: string | null;
  createdAt: number;
  updatedAt: number;
};

export type MultisigConfirmation = {
  safeTxHash: Hash;
  owner: Address;
  /** Normalised (v 27/28) 65-byte EIP-712 signature. */
  signature: Hash;
  createdAt: number;
};

/** The add-signer bookkeeping (`MultisigCoordinator`). A local store answers at once, a remote one with promises. */
export interface MultisigStore {
  get(safeTxHash: Hash): MaybePromise<MultisigRecord | null>;
  /** Records in `pending` or `submitted`, optionally of one Safe, oldest first. */
  listOpen(safe?: Address): MaybePromise<MultisigRecord[]>;
  /** Upserts `record` and marks every other `pending` record of the same Safe and nonce `replaced`, atomically. */
  putReplacingAtNonce(record: MultisigRecord): MaybePromise<void>;
  update(
    safeTxHash: Hash,
    patch: Partial<
      Omit<MultisigRecord, 'safeTxHash' | 'safe' | 'nonce' | 'requiredThreshold' | 'transaction'>
    >,
  ): MaybePromise<void>;
  /** False when this owner already confirmed this transaction (nothing written). */
  addConfirmation(confirmation: MultisigConfirmation): MaybePromise<boolean>;
  /** In the order they were recorded. */
  confirmations(safeTxHash: Hash): MaybePromise<MultisigConfirmation[]>;
}

export class MemoryMultisigStore implements MultisigStore {
  private readonly records = new Map<Hash, MultisigRecord>();
  private readonly confirms = new Map<Hash, MultisigConfirmation[]>();

  get(safeTxHash: Hash): MultisigRecord | null {
    return structuredClone(this.records.get(safeTxHash) ?? null);
  }

  listOpen(safe?: Address): MultisigRecord[] {
    return [...this.records.values()]
      .filter((r) => (r.status === 'pending' || r.status === 'submitted') && (!safe || r.safe === safe))
      .sort((x, y) => x.createdAt - y.createdAt || (x.safeTxHash < y.safeTxHash ? -1 : 1))
      .map((r) => structuredClone(r));
  }

  putReplacingAtNonce(record: MultisigRecord): void {
    for (const r of this.records.values()) {
      if (
        r.safe === record.safe &&
        r.nonce === record.nonce &&
        r.status === 'pending' &&
        r.safeTxHash !== record.safeTxHash
      ) {
        r.status = 'replaced';
        r.updatedAt = record.updatedAt;
      }
    }
    this.records.set(record.safeTxHash, structuredClone(record));
  }

  update(safeTxHash: Hash, patch: Partial<MultisigRecord>): void {
    const r = this.records.get(safeTxHash);
    if (r) Object.assign(r, structuredClone(patch));
  }

  addConfirmation(confirmation: MultisigConfirmation): boolean {
    const list = this.confirms.get(confirmation.safeTxHash) ?? [];
    if (list.some((c) => c.owner === confirmation.owner)) return false;
    list.push(structuredClone(confirmation));
    this.confirms.set(confirmation.safeTxHash, list);
    return true;
  }

  confirmations(safeTxHash: Hash): MultisigConfirmation[] {
    return structuredClone(this.confirms.get(safeTxHash) ?? []);
  }
}
