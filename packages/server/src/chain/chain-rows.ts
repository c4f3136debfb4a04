import type { SafeTransactionData } from '@oddsbook/protocol';
import type {
  Address,
  ChainBlock,
  ChainReceipt,
  ChainTx,
  Hash,
  ProxyDeployment,
  ReceiptStatus,
  SafeState,
} from './chain-types.js';
import type { MultisigConfirmation, MultisigRecord, MultisigStatus } from './multisig-store.js';
import type { SettlementItemResult } from './settlement-types.js';
import { decodePayload, encodePayload, toChainTx } from './tx-codec.js';

/**
 * The rows of the `chain_*` tables, alike in every store that has them (SQLite and PostgreSQL: same tables,
 * same columns): JSON lists and payloads as text, whole numbers beyond 2^53 (balances, salt nonces) as decimal
 * text, the rest as numbers.
 */
export type BlockRow = {
  number: number;
  hash: string;
  parent_hash: string;
  timestamp: number;
  tx_hashes: string;
};
export type TxRow = { hash: string; seq: number; payload: string; submitted_at: number };
export type ReceiptRow = TxRow & {
  block_number: number;
  block_hash: string;
  tx_index: number;
  status: ReceiptStatus;
  error: string | null;
  items: string | null;
};
export type SafeRow = {
  address: string;
  owners: string;
  threshold: number;
  nonce: number;
  deployed_block: number;
};
export type DeploymentRow = {
  safe: string;
  owner: string;
  salt_nonce: string;
  state: ProxyDeployment['state'];
  tx_hash: string;
};
export type MultisigRow = {
  safe_tx_hash: string;
  safe: string;
  nonce: number;
  threshold: number;
  tx: string;
  status: MultisigStatus;
  submission_tx_hash: string | null;
  execution_tx_hash: string | null;
  failure: string | null;
  created_at: number;
  updated_at: number;
};
export type ConfirmationRow = { safe_tx_hash: string; owner: string; signature: string; created_at: number };

export const blockFromRow = (r: BlockRow): ChainBlock => ({
  number: r.number,
  hash: r.hash as Hash,
  parentHash: r.parent_hash as Hash,
  timestamp: r.timestamp,
  transactions: JSON.parse(r.tx_hashes) as Hash[],
});

export const txFromRow = (r: TxRow): ChainTx =>
  toChainTx(decodePayload(r.payload), { hash: r.hash as Hash, seq: r.seq, submittedAt: r.submitted_at });

/** A transaction's columns: hash, seq, kind, payload, submitted_at. */
export function txColumns(tx: ChainTx): [string, number, string, string, number] {
  const { hash, seq, submittedAt, ...payload } = tx;
  return [hash, seq, tx.kind, encodePayload(payload), submittedAt];
}

export const receiptFromRow = (r: ReceiptRow): ChainReceipt => ({
  transactionHash: r.hash as Hash,
  blockNumber: r.block_number,
  blockHash: r.block_hash as Hash,
  transactionIndex: r.tx_index,
  status: r.status,
  error: r.error,
  tx: txFromRow(r),
  ...(r.items === null ? {} : { items: JSON.parse(r.items) as SettlementItemResult[] }),
});

/** A receipt's columns: tx_hash, block_number, block_hash, tx_index, status, error, items. */
export function receiptColumns(
  r: ChainReceipt,
): [string, number, string, number, ReceiptStatus, string | null, string | null] {
  return [
    r.transactionHash,
    r.blockNumber,
    r.blockHash,
    r.transactionIndex,
    r.status,
    r.error,
    r.items ? JSON.stringify(r.items) : null,
  ];
}

export const safeFromRow = (r: SafeRow): SafeState => ({
  address: r.address as Address,
  owners: JSON.parse(r.owners) as Address[],
  threshold: r.threshold,
  nonce: r.nonce,
  deployedBlock: r.deployed_block,
});

/** A Safe's columns: address, owners, threshold, nonce, deployed_block. */
export function safeColumns(safe: SafeState): [string, string, number, number, number] {
  return [safe.address, JSON.stringify(safe.owners), safe.threshold, safe.nonce, safe.deployedBlock];
}

export const deploymentFromRow = (r: DeploymentRow): ProxyDeployment => ({
  safe: r.safe as Address,
  owner: r.owner as Address,
  saltNonce: BigInt(r.salt_nonce),
  state: r.state,
  txHash: r.tx_hash as Hash,
});

/** A deployment's columns: safe, owner, salt_nonce, state, tx_hash. */
export function deploymentColumns(d: ProxyDeployment): [string, string, string, string, string] {
  return [d.safe, d.owner, d.saltNonce.toString(), d.state, d.txHash];
}

export const multisigFromRow = (r: MultisigRow): MultisigRecord => ({
  safeTxHash: r.safe_tx_hash as Hash,
  safe: r.safe as Address,
  nonce: r.nonce,
  requiredThreshold: r.threshold,
  transaction: JSON.parse(r.tx) as SafeTransactionData,
  status: r.status,
  submissionTxHash: r.submission_tx_hash as Hash | null,
  executionTxHash: r.execution_tx_hash as Hash | null,
  failure: r.failure,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** A multisig record's columns, in the table's order. */
export function multisigColumns(r: MultisigRecord): unknown[] {
  return [
    r.safeTxHash,
    r.safe,
    r.nonce,
    r.requiredThreshold,
    JSON.stringify(r.transaction),
    r.status,
    r.submissionTxHash,
    r.executionTxHash,
    r.failure,
    r.createdAt,
    r.updatedAt,
  ];
}

export const confirmationFromRow = (r: ConfirmationRow): MultisigConfirmation => ({
  safeTxHash: r.safe_tx_hash as Hash,
  owner: r.owner as Address,
  signature: r.signature as Hash,
  createdAt: r.created_at,
});

/** The columns `MultisigStore.update` may change, by field. */
export const MULTISIG_PATCH_COLUMNS = {
  status: 'status',
  submissionTxHash: 'submission_tx_hash',
  executionTxHash: 'execution_tx_hash',
  failure: 'failure',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
} as const;
