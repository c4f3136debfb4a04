import type { SafeTransactionData } from '@oddsbook/protocol';
import type {
  Address,
  ChainBlock,
  ChainReceipt,
  ChainTx,
  ChainTxKind,
  Hash,
  ProxyStatus,
  SafeState,
} from './chain-types.js';

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
}

/**
 * The chain's blocks as its own store has them, read at once (synchronously): only a chain whose store is
 * local has it (the embedded chain). The chain link reads from it the escrow receipts of the blocks it has
 * not passed on yet (those that landed while the exchange was down, or that the sequencer did not take).
 */
export interface ChainHistory {
  /** The number of the last block written (0 before the first). */
  headNumber(): number;
  /** The receipts of the transactions of `kind` in the blocks (after, through], in chain order. */
  receiptsBetween(after: number, through: number, kind: ChainTxKind): ChainReceipt[];
}

/** Fault injection, for tests and the operator's `/admin/faults`. Only the embedded chain has it. */
export interface ChainFaults {
  /** The next proxy deployment's transaction lands with status `failed`. */
  failNextDeployment(): Promise<void>;
}

export function supportsFaults(chain: Chain): chain is Chain & ChainFaults {
  return typeof (chain as Partial<ChainFaults>).failNextDeployment === 'function';
}
