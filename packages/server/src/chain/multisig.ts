import {
  addOwnerSafeTransaction,
  normalizeSafeEip712Signature,
  packSafeSignatures,
  parseAddSignerTransaction,
  type SafeTransactionData,
  type SafeTransactionDataInput,
  SENTINEL_OWNER,
  safeDomain,
  safeTxHash,
  safeTxTypedData,
  ZERO_ADDRESS,
} from '@oddsbook/protocol';
import { getAddress, isAddress, isHex } from 'viem';
import { AppError } from '../errors/app-error.js';
import { SerialQueue } from '../lib/maybe-promise.js';
import { ACCEPT_HIGH_S, recoverSigner } from '../signing/recover-signer.js';
import type { Chain } from './chain.js';
import type { Address, ChainReceipt, Hash, SafeState } from './chain-types.js';
import type { MultisigRecord, MultisigStore } from './multisig-store.js';

/**
 * Error codes of the add-signer flow and the HTTP status each maps to.
 *
 * | code | status | when |
 * |---|---|---|
 * | INVALID_REQUEST | 400 | an address, hash, threshold or the transaction data is malformed |
 * | SAFE_NOT_DEPLOYED | 409 | the Safe (proxy wallet) is not deployed yet |
 * | INVALID_NEW_SIGNER | 400 | new signer is the zero address, the sentinel 0x…01, or the Safe itself |
 * | SIGNER_ALREADY_OWNER | 400 | new signer is already an owner |
 * | INVALID_THRESHOLD | 400 | threshold outside 1..owners+1 |
 * | NONCE_IN_FLIGHT | 409 | a transaction at the Safe's current nonce is already submitted and has not landed |
 * | NOT_ADD_SIGNER | 400 | the signed transaction is not `addOwnerWithThreshold` from the Safe to itself with zero value, CALL and zero gas fields |
 * | SAFE_TX_HASH_MISMATCH | 400 | `safeTransactionData` does not hash to `safeTxHash` for this Safe and chain |
 * | SAFE_TX_NOT_FOUND | 400 | no prepare produced this `safeTxHash` |
 * | SAFE_TX_REPLACED | 409 | a later prepare at the same nonce replaced it, or another transaction used the nonce |
 * | SAFE_TX_FAILED | 409 | it landed and reverted (e.g. GS013); the nonce is unused, prepare again |
 * | SAFE_TX_ALREADY_EXECUTED | 409 | it already executed and this owner had not confirmed it |
 * | INVALID_SIGNATURE | 400 | not a 65-byte signature with v in {0,1,27,28}, or nothing recovers |
 * | SIGNER_MISMATCH | 400 | the signature recovers to someone other than `signerAddress` |
 * | SIGNER_NOT_OWNER | 403 | the signature recovers to an address that is not a current owner |
 *
 * Checking that `signerAddress` is the authenticated account (400) and that the Safe belongs to the
 * caller's account (403) is the HTTP layer's job: it knows the account, this module does not.
 */
export const MULTISIG_ERRORS = {
  INVALID_REQUEST: 400,
  SAFE_NOT_DEPLOYED: 409,
  INVALID_NEW_SIGNER: 400,
  SIGNER_ALREADY_OWNER: 400,
  INVALID_THRESHOLD: 400,
  NONCE_IN_FLIGHT: 409,
  NOT_ADD_SIGNER: 400,
  SAFE_TX_HASH_MISMATCH: 400,
  SAFE_TX_NOT_FOUND: 400,
  SAFE_TX_REPLACED: 409,
  SAFE_TX_FAILED: 409,
  SAFE_TX_ALREADY_EXECUTED: 409,
  INVALID_SIGNATURE: 400,
  SIGNER_MISMATCH: 400,
  SIGNER_NOT_OWNER: 403,
} as const;

export type MultisigErrorCode = keyof typeof MULTISIG_ERRORS;

export class MultisigError extends AppError {
  override name = 'MultisigError';
  declare readonly code: MultisigErrorCode;

  constructor(code: MultisigErrorCode, message?: string) {
    super({ code, statusCode: MULTISIG_ERRORS[code], message: message ?? code });
  }
}

/** The spec's SafeTxProgress. */
export type SafeTxProgress = {
  safeTxHash: Hash;
  confirmedBy: Address[];
  signedCount: number;
  requiredThreshold: number;
  isReadyToExecute: boolean;
  isExecuted: boolean;
  executionTxHash: Hash | null;
};

export type PreparedSafeTx = {
  safeTxHash: Hash;
  safeTransactionData: SafeTransactionData;
  typedData: ReturnType<typeof safeTxTypedData>;
};

export type PrepareInput = { safeAddress: string; newSignerAddress: string; threshold?: number };

export type ConfirmInput = {
  safeAddress: string;
  safeTxHash: string;
  /** As the execute route takes it: the fields the Safe hashes may be missing or malformed. */
  safeTransactionData: SafeTransactionDataInput;
  signature: string;
  /** When given, the signature must recover to it. */
  signerAddress?: string;
};

function parseAddress(value: unknown, field: string): Address {
  if (typeof value !== 'string' || !isAddress(value, { strict: false })) {
    throw new MultisigError('INVALID_REQUEST', `${field} is not an address`);
  }
  return getAddress(value);
}

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The transaction with every field the Safe hashes, or null when one is missing or malformed. */
function hashableTransaction(tx: SafeTransactionDataInput): SafeTransactionData | null {
  const { to, data, safeTxGas, baseGas, gasPrice, gasToken, refundReceiver } = tx;
  if (!isAddress(to, { strict: false }) || !isHex(data)) return null;
  if (safeTxGas === undefined || baseGas === undefined || gasPrice === undefined) return null;
  if (gasToken === undefined || !isAddress(gasToken, { strict: false })) return null;
  if (refundReceiver === undefined || !isAddress(refundReceiver, { strict: false })) return null;
  return { ...tx, to, data, safeTxGas, baseGas, gasPrice, gasToken, refundReceiver };
}

/** What the HTTP routes use of the coordinator: the leader's own, or its remote client on an API node. */
export type MultisigService = Pick<MultisigCoordinator, 'prepare' | 'confirm' | 'progress'>;

/**
 * Add-signer bookkeeping: prepare a Safe transaction, collect owner confirmations, submit it to the
 * chain at threshold and follow it until it lands. State lives in a MultisigStore so it survives
 * restarts; call `start()` once (before the chain starts producing blocks, ideally) to follow receipts
 * and to finish what a restart interrupted. Its steps (a prepare, a confirmation, a receipt) run one at a
 * time, each against what the one before left in the store.
 */
export class MultisigCoordinator {
  private readonly chain: Chain;
  private readonly store: MultisigStore;
  private readonly clock: { now(): number };
  private readonly onError: (error: unknown) => void;
  private unsubscribe: (() => void) | null = null;
  private readonly steps = new SerialQueue();

  constructor(options: {
    chain: Chain;
    store: MultisigStore;
    clock?: { now(): number };
    /** A receipt could not be recorded (the store failed); default: a process warning. */
    onError?: (error: unknown) => void;
  }) {
    this.chain = options.chain;
    this.store = options.store;
    this.clock = options.clock ?? { now: () => Date.now() };
    this.onError =
      options.onError ??
      ((error) =>
        process.emitWarning(`multisig receipt not recorded: ${(error as Error)?.stack ?? String(error)}`));
  }

  async start(): Promise<void> {
    if (!this.unsubscribe) {
      this.unsubscribe = this.chain.onReceipt((receipt) => {
        if (receipt.tx.kind !== 'execSafeTx') return;
        Promise.resolve(this.steps.run(() => this.onReceipt(receipt))).catch(this.onError);
      });
    }
    await this.steps.run(async () => {
      for (const record of await this.store.listOpen()) {
        if (record.status === 'submitted') await this.reconcile(record);
        else await this.maybeSubmit(record);
      }
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Resolves once every step given so far is done (a receipt recorded). */
  idle(): Promise<void> {
    return this.steps.idle();
  }

  async prepare(input: PrepareInput): Promise<PreparedSafeTx> {
    return this.steps.run(() => this.prepareNow(input));
  }

  private async prepareNow(input: PrepareInput): Promise<PreparedSafeTx> {
    const safeAddress = parseAddress(input.safeAddress, 'safeAddress');
    const newSigner = parseAddress(input.newSignerAddress, 'newSignerAddress');
    const safe = await this.chain.getSafe(safeAddress);
    if (!safe) throw new MultisigError('SAFE_NOT_DEPLOYED', 'the proxy wallet is not deployed yet');
    if (
      sameAddress(newSigner, ZERO_ADDRESS) ||
      sameAddress(newSigner, SENTINEL_OWNER) ||
      newSigner === safe.address
    ) {
      throw new MultisigError('INVALID_NEW_SIGNER');
    }
    if (safe.owners.includes(newSigner)) throw new MultisigError('SIGNER_ALREADY_OWNER');
    const threshold = input.threshold ?? safe.threshold;
    if (!Number.isSafeInteger(threshold) || threshold < 1 || threshold > safe.owners.length + 1) {
      throw new MultisigError(
        'INVALID_THRESHOLD',
        `threshold must be between 1 and ${safe.owners.length + 1}`,
      );
    }
    for (const open of await this.store.listOpen(safe.address)) {
      if (open.status === 'submitted') await this.reconcile(open);
      const current = (await this.store.get(open.safeTxHash))!;
      if (current.status === 'submitted' && current.nonce === safe.nonce) {
        throw new MultisigError(
          'NONCE_IN_FLIGHT',
          'a transaction at this nonce is already on its way to a block',
        );
      }
    }
    const transaction = addOwnerSafeTransaction({
      safe: safe.address,
      newOwner: newSigner,
      threshold,
      nonce: safe.nonce,
    });
    const domain = safeDomain(this.chain.chainId, safe.address);
    const hash = safeTxHash(domain, transaction);
    const existing = await this.store.get(hash);
    const now = this.clock.now();
    if (existing?.status !== 'pending') {
      // New, or the same transaction prepared again after being replaced or reverting: its
      // confirmations are signatures of the same hash, so they still count.
      await this.store.putReplacingAtNonce({
        safeTxHash: hash,
        safe: safe.address,
        nonce: safe.nonce,
        requiredThreshold: safe.threshold,
        transaction,
        status: 'pending',
        submissionTxHash: null,
        executionTxHash: null,
        failure: null,
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      });
    } else {
      await this.store.putReplacingAtNonce({ ...existing, updatedAt: now });
    }
    return {
      safeTxHash: hash,
      safeTransactionData: transaction,
      typedData: safeTxTypedData(domain, transaction),
    };
  }

  /**
   * Records one owner's signature. Idempotent: the same owner confirming again (same or another valid
   * signature) changes nothing and returns the current progress, so it doubles as a status read.
   */
  async confirm(input: ConfirmInput): Promise<SafeTxProgress> {
    return this.steps.run(() => this.confirmNow(input));
  }

  private async confirmNow(input: ConfirmInput): Promise<SafeTxProgress> {
    const safeAddress = parseAddress(input.safeAddress, 'safeAddress');
    if (typeof input.safeTxHash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(input.safeTxHash)) {
      throw new MultisigError('INVALID_REQUEST', 'safeTxHash is not a 32-byte hex string');
    }
    const claimed = input.safeTxHash.toLowerCase() as Hash;
    if (input.safeTransactionData === null || typeof input.safeTransactionData !== 'object') {
      throw new MultisigError('INVALID_REQUEST', 'safeTransactionData is missing');
    }
    const data = hashableTransaction(input.safeTransactionData);
    if (!data || !parseAddSignerTransaction(safeAddress, data)) throw new MultisigError('NOT_ADD_SIGNER');
    let hash: Hash;
    try {
      hash = safeTxHash(safeDomain(this.chain.chainId, safeAddress), data);
    } catch {
      throw new MultisigError('INVALID_REQUEST', 'safeTransactionData cannot be encoded');
    }
    if (hash !== claimed) throw new MultisigError('SAFE_TX_HASH_MISMATCH');

    let record = await this.store.get(hash);
    if (!record) throw new MultisigError('SAFE_TX_NOT_FOUND', 'no prepare produced this safeTxHash');
    record = await this.reconcile(record);

    const signature = normalizeSafeEip712Signature(input.signature as Hash);
    if (!signature) throw new MultisigError('INVALID_SIGNATURE');
    // A high-s signature counts as its low-s twin does, as in the Safe: confirmations are keyed by owner.
    const recovered = recoverSigner(Buffer.from(hash.slice(2), 'hex'), signature, ACCEPT_HIGH_S);
    if (!recovered.ok) throw new MultisigError('INVALID_SIGNATURE');
    const signer = recovered.signer;
    if (
      input.signerAddress !== undefined &&
      !sameAddress(parseAddress(input.signerAddress, 'signerAddress'), signer)
    ) {
      throw new MultisigError('SIGNER_MISMATCH', 'the signature was not made by signerAddress');
    }
    const confirmations = await this.store.confirmations(hash);
    if (confirmations.some((c) => c.owner === signer)) {
      // A repeat; also the moment to retry a submission an earlier call could not make.
      return this.progressOf(await this.maybeSubmit(record));
    }

    if (record.status === 'executed') throw new MultisigError('SAFE_TX_ALREADY_EXECUTED');
    if (record.status === 'replaced') throw new MultisigError('SAFE_TX_REPLACED');
    if (record.status === 'failed') throw new MultisigError('SAFE_TX_FAILED', `reverted: ${record.failure}`);
    const safe = await this.chain.getSafe(record.safe);
    if (!safe) throw new MultisigError('SAFE_NOT_DEPLOYED');
    if (safe.nonce !== record.nonce) {
      await this.store.update(hash, { status: 'replaced', updatedAt: this.clock.now() });
      throw new MultisigError('SAFE_TX_REPLACED', 'another transaction used this nonce');
    }
    if (!safe.owners.includes(signer)) throw new MultisigError('SIGNER_NOT_OWNER');

    await this.store.addConfirmation({
      safeTxHash: hash,
      owner: signer,
      signature,
      createdAt: this.clock.now(),
    });
    record = await this.maybeSubmit(record, safe);
    return this.progressOf(record);
  }

  async progress(safeTxHash: Hash): Promise<SafeTxProgress | null> {
    return this.steps.run(async () => {
      const record = await this.store.get(safeTxHash.toLowerCase() as Hash);
      return record ? this.progressOf(await this.reconcile(record)) : null;
    });
  }

  /** Submits the Safe transaction once enough current owners have confirmed. */
  private async maybeSubmit(record: MultisigRecord, known?: SafeState): Promise<MultisigRecord> {
    if (record.status !== 'pending') return record;
    const safe = known ?? (await this.chain.getSafe(record.safe));
    if (!safe || safe.nonce !== record.nonce) return record;
    const owners = new Set(safe.owners);
    const valid = (await this.store.confirmations(record.safeTxHash)).filter((c) => owners.has(c.owner));
    if (valid.length < safe.threshold) return record;
    const { txHash } = await this.chain.execSafeTransaction({
      safe: record.safe,
      transaction: record.transaction,
      signatures: packSafeSignatures(valid),
    });
    const patch = { status: 'submitted' as const, submissionTxHash: txHash, updatedAt: this.clock.now() };
    await this.store.update(record.safeTxHash, patch);
    return { ...record, ...patch };
  }

  /** Catches up with a submitted transaction's receipt (it may have landed while nobody listened). */
  private async reconcile(record: MultisigRecord): Promise<MultisigRecord> {
    if (record.status !== 'submitted' || !record.submissionTxHash) return record;
    const receipt = await this.chain.getReceipt(record.submissionTxHash);
    if (receipt) await this.onReceipt(receipt);
    return (await this.store.get(record.safeTxHash)) ?? record;
  }

  private async onReceipt(receipt: ChainReceipt): Promise<void> {
    const tx = receipt.tx;
    if (tx.kind !== 'execSafeTx') return;
    const record = await this.store.get(tx.safeTxHash.toLowerCase() as Hash);
    if (!record || record.status === 'executed') return;
    const now = this.clock.now();
    if (receipt.status === 'success') {
      await this.store.update(record.safeTxHash, {
        status: 'executed',
        executionTxHash: receipt.transactionHash,
        failure: null,
        updatedAt: now,
      });
      for (const other of await this.store.listOpen(record.safe)) {
        if (other.nonce === record.nonce && other.safeTxHash !== record.safeTxHash) {
          await this.store.update(other.safeTxHash, { status: 'replaced', updatedAt: now });
        }
      }
    } else if (record.submissionTxHash === receipt.transactionHash) {
      await this.store.update(record.safeTxHash, {
        status: 'failed',
        failure: receipt.error,
        updatedAt: now,
      });
    }
  }

  private async progressOf(record: MultisigRecord): Promise<SafeTxProgress> {
    const confirmedBy = (await this.store.confirmations(record.safeTxHash)).map((c) => c.owner);
    const isExecuted = record.status === 'executed';
    return {
      safeTxHash: record.safeTxHash,
      confirmedBy,
      signedCount: confirmedBy.length,
      requiredThreshold: record.requiredThreshold,
      isReadyToExecute: isExecuted || confirmedBy.length >= record.requiredThreshold,
      isExecuted,
      executionTxHash: isExecuted ? record.executionTxHash : null,
    };
  }
}
