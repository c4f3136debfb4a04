import type { SafeTransactionData } from '@oddsbook/protocol';
import type { MaybePromise } from '../lib/maybe-promise.js';
import type {
  Address,
  ChainBlock,
  ChainReceipt,
  ChainTx,
  ChainTxKind,
  Hash,
  ProxyStatus,
  SafeState,
  SettleTx,
} from './chain-types.js';
import type { SettlementBatch, SettlementFaultClass } from './settlement-types.js';

export type SubmittedTx = { txHash: Hash };

/** A base-token transaction to submit (the payload of `mint`, `transfer`, `escrow` or `release`). */
export type TokenTxRequest =
  | { kind: 'mint'; to: Address; amount: bigint; memo?: string }
  | { kind: 'transfer'; from: Address; to: Address; amount: bigint; memo?: string }
  | { kind: 'escrow'; from: Address; amount: bigint; memo?: string }
  | { kind: 'release'; to: Address; amount: bigint; memo?: string };

export type DeploySafeResult = {
  safe: Address;
  /** The pending or (when already deployed) the original deployment transaction. */
  txHash: Hash | null;
  /** False when nothing new was submitted: already deployed, or a deployment is already pending. */
  submitted: boolean;
};

/**
 * The chain as the exchange sees it. The embedded chain implements it; an adapter for a real EVM
 * (through viem) can implement it later without changing its callers. Every method may be slow on a
 * real chain, hence promises; writes return once the transaction is accepted, not mined.
 */
export interface Chain {
  readonly chainId: number;
  readonly baseToken: Address;
  /** The account holding matched stakes until payout. */
  readonly escrowAddress: Address;

  /** Starts block production. */
  start(): void;
  /** Stops block production; pending transactions stay pending (and persisted). */
  stop(): Promise<void>;

  blockNumber(): Promise<number>;
  getBlock(number: number): Promise<ChainBlock | null>;
  getTransaction(hash: Hash): Promise<ChainTx | null>;
  getReceipt(hash: Hash): Promise<ChainReceipt | null>;
  /** Resolves when the transaction lands (whatever its status); rejects after `timeoutMs` if given. */
  waitForReceipt(hash: Hash, options?: { timeoutMs?: number }): Promise<ChainReceipt>;
  /** Called once per receipt, in block order, after the block is durably stored. Returns unsubscribe. */
  onReceipt(listener: (receipt: ChainReceipt) => void): () => void;
  onBlock(listener: (block: ChainBlock, receipts: readonly ChainReceipt[]) => void): () => void;

  /** The counterfactual Safe address of an EOA's proxy wallet (CREATE2; known before deployment). */
  proxyAddressFor(owner: Address): Address;
  getProxy(owner: Address): Promise<ProxyStatus>;
  /** Submits the deployment; harmless when deployed or pending (returns the existing transaction). */
  deployProxy(owner: Address): Promise<DeploySafeResult>;
  /** Owners, threshold and nonce of a deployed Safe; null when not deployed. */
  getSafe(safe: Address): Promise<SafeState | null>;
  execSafeTransaction(options: {
    safe: Address;
    transaction: SafeTransactionData;
    signatures: Hash;
  }): Promise<SubmittedTx>;

  balanceOf(wallet: Address): Promise<bigint>;
  /** Faucet: creates `amount` base-token units in `to`. */
  mint(to: Address, amount: bigint, memo?: string): Promise<SubmittedTx>;
  transfer(from: Address, to: Address, amount: bigint, memo?: string): Promise<SubmittedTx>;
  /** Moves a matched stake from a wallet into escrow. */
  escrow(from: Address, amount: bigint, memo?: string): Promise<SubmittedTx>;
  /** Pays out (or refunds) from escrow to a wallet. */
  release(to: Address, amount: bigint, memo?: string): Promise<SubmittedTx>;
  /**
   * Submits token transactions in this order, all or none: every request is checked before any is
   * accepted. The same as one call per request, but the per-submission overhead is paid once (the
   * embedded chain writes them and its sequence counter in one store write).
   */
  submitMany(requests: readonly TokenTxRequest[]): Promise<SubmittedTx[]>;
  /**
   * Submits a settlement transaction (kind `settle`): the batch's retries, then its items, applied one by one
   * when it is mined (all of an item's moves or none; see `SettlementItemStatus`). The same store write
   * records `batch.lastSeq` as the settlement cursor (`ChainSettlements.settlementSubmittedThrough`): both are
   * kept, or neither. A malformed batch is refused (400):
   * addresses, positive amounts, known kinds, ids unique within the batch, a window after the cursor.
   */
  submitSettlement(batch: SettlementBatch): Promise<SubmittedTx>;
}

/**
 * The chain's blocks as its own store has them: only a chain whose store is the exchange's (the embedded
 * chain) has it. The chain link reads from it the escrow receipts of the blocks it has not passed on yet
 * (those that landed while the exchange was down, or that the sequencer did not take).
 */
export interface ChainHistory {
  /** The number of the last block written (0 before the first); known at once. */
  headNumber(): number;
  /** The receipts of the transactions of `kind` in the blocks (after, through], in chain order. */
  receiptsBetween(after: number, through: number, kind: ChainTxKind): Promise<ChainReceipt[]>;
}

/**
 * Settlement as a chain whose store is the exchange's has it at once (the embedded chain keeps it in memory,
 * after each write): for the settlement driver and reconciliation.
 */
export interface ChainSettlements {
  /** The highest `lastSeq` of the settlement transactions submitted, pending or mined; 0 before any. */
  settlementSubmittedThrough(): number;
  /** The settlement transactions submitted and not yet mined, oldest first. */
  pendingSettlements(): SettleTx[];
  /** Every address's mined base-token balance (wallets and the escrow pool, `escrowAddress`). */
  balances(): Map<Address, bigint>;
}

/** What is armed, as `ChainFaults.faults()` reads it. */
export type ChainFaultState = {
  /** The next proxy deployment fails. */
  failNextDeployment: boolean;
  /** How many of the next settlement items of each class fail (`INJECTED_FAULT`). */
  failSettlementItems: Record<SettlementFaultClass, number>;
  /** No block is produced until `resumeBlocks()` (persisted: a restart stays paused). */
  blocksPaused: boolean;
  /** The next block is stored but not announced to `onBlock` / `onReceipt` listeners. */
  dropNextBlockAnnouncement: boolean;
};

/** Fault injection, for tests and the operator's `/admin/faults`. Only the embedded chain has it. Every fault is persisted. */
export interface ChainFaults {
  /** The next proxy deployment's transaction lands with status `failed`. */
  failNextDeployment(): Promise<void>;
  /**
   * The next `count` settlement items of the class (`escrow`: fill items, `release`: adjustments, `payout`,
   * `deposit`) that are applied (not skipped, not duplicates) fail with `INJECTED_FAULT`. Replaces the class's
   * armed count (0 disarms it); each mined block uses it up in its own write.
   */
  failNextSettlementItems(faultClass: SettlementFaultClass, count: number): Promise<void>;
  /** Stalls block production: nothing is mined (not even by `mineBlock()`) until `resumeBlocks()`. */
  pauseBlocks(): Promise<void>;
  resumeBlocks(): Promise<void>;
  /**
   * The next mined block is stored as usual, and `waitForReceipt` callers get their receipts, but `onBlock` and
   * `onReceipt` listeners never hear of it: they see the next block's number skip it (`ChainHistory.receiptsBetween`
   * has its receipts).
   */
  dropNextBlockAnnouncement(): Promise<void>;
  /** At once on the embedded chain; a promise on a remote one (an API node asking the leader). */
  faults(): MaybePromise<ChainFaultState>;
}

export function supportsFaults(chain: Chain): chain is Chain & ChainFaults {
  return typeof (chain as Partial<ChainFaults>).failNextDeployment === 'function';
}
