import type { SafeTransactionData } from '@oddsbook/protocol';
import type { SettlementBatch, SettlementItemResult } from './settlement-types.js';

export type Address = `0x${string}`;
export type Hash = `0x${string}`;

export const CHAIN_IDS = { mainnet: 4162, testnet: 79479957 } as const;

/** What a transaction does. Amounts are base-token units (6 decimals). `memo` correlates (e.g. a trade id). */
export type ChainTxPayload =
  | { kind: 'mint'; to: Address; amount: bigint; memo: string | null }
  | { kind: 'transfer'; from: Address; to: Address; amount: bigint; memo: string | null }
  | { kind: 'escrow'; from: Address; amount: bigint; memo: string | null }
  | { kind: 'release'; to: Address; amount: bigint; memo: string | null }
  | { kind: 'deploySafe'; safe: Address; owner: Address; saltNonce: bigint; injectedFailure: boolean }
  | {
      kind: 'execSafeTx';
      safe: Address;
      safeTxHash: Hash;
      transaction: SafeTransactionData;
      /** Packed static signatures, ascending by owner, as `execTransaction` takes them. */
      signatures: Hash;
    }
  /** A settlement transaction: its items are applied at mining one by one (see `SettlementItemResult`). */
  | ({ kind: 'settle' } & SettlementBatch);

export type ChainTxKind = ChainTxPayload['kind'];

/** A submitted transaction. `hash` is keccak256 of its canonical content (chain id, sequence, payload). */
export type ChainTx = ChainTxPayload & { hash: Hash; seq: number; submittedAt: number };

/** A submitted settlement transaction: its batch, with the transaction's hash, sequence and time. */
export type SettleTx = Extract<ChainTx, { kind: 'settle' }>;

export type ReceiptStatus = 'success' | 'failed';

export type ChainReceipt = {
  transactionHash: Hash;
  blockNumber: number;
  blockHash: Hash;
  transactionIndex: number;
  status: ReceiptStatus;
  /** Why it failed: Safe's own codes (GS0xx) for Safe calls, else e.g. INSUFFICIENT_BALANCE. */
  error: string | null;
  tx: ChainTx;
  /**
   * A `settle` transaction's item results, in item order (retries first). Only settle receipts have it; a
   * settle transaction itself always succeeds: its items fail, not it.
   */
  items?: readonly SettlementItemResult[];
};

export type ChainBlock = {
  number: number;
  hash: Hash;
  parentHash: Hash;
  /** Milliseconds since the epoch, from the injected clock. */
  timestamp: number;
  transactions: Hash[];
};

export type SafeState = {
  address: Address;
  /** Safe's `getOwners()` order: the most recently added owner first. */
  owners: Address[];
  threshold: number;
  nonce: number;
  deployedBlock: number;
};

/** The spec's proxy deployment states; `none` before the first deployment request. */
export type ProxyState = 'none' | 'pending' | 'deployed' | 'failed';

export type ProxyDeployment = {
  safe: Address;
  owner: Address;
  saltNonce: bigint;
  state: Exclude<ProxyState, 'none'>;
  /** The latest deployment transaction. */
  txHash: Hash;
};

export type ProxyStatus = {
  address: Address;
  owner: Address;
  state: ProxyState;
  /** True while a deployment transaction waits for its block. */
  pending: boolean;
  deployed: boolean;
  txHash: Hash | null;
};
