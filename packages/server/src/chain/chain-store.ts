import type {
  Address,
  ChainBlock,
  ChainReceipt,
  ChainTx,
  ChainTxKind,
  Hash,
  ProxyDeployment,
  SafeState,
} from './chain-types.js';

/** State that changed; written together with the block or transaction that changed it. */
export type StateChanges = {
  balances?: ReadonlyMap<Address, bigint>;
  safes?: readonly SafeState[];
  deployments?: readonly ProxyDeployment[];
  meta?: ReadonlyMap<string, string>;
  /** Settlement items that landed (status `success`), with the transaction that landed them. */
  landedItems?: readonly LandedItem[];
};

export type LandedItem = { readonly id: string; readonly txHash: Hash };

export type ChainSnapshot = {
  head: ChainBlock | null;
  /** One past the highest stored transaction sequence number (0 when there is none). */
  nextSeq: number;
  balances: Map<Address, bigint>;
  safes: SafeState[];
  deployments: ProxyDeployment[];
  meta: Map<string, string>;
};

/**
 * Durable state of the embedded chain. Each write is atomic: a transaction enters the mempool
 * together with its side effects (e.g. a deployment turning `pending`), and a block lands together
 * with its receipts and every state change, and leaves the mempool in the same write.
 *
 * The store, not memory, is the truth about the mempool: a submission made inside a caller's
 * transaction on the same database (the sequencer escrows stakes inside its batch transaction) commits
 * or rolls back with it, and a rolled-back submission is never mined.
 */
export interface ChainStore {
  load(): ChainSnapshot;
  /** Submitted, not yet mined, oldest first. */
  pendingTransactions(limit?: number): ChainTx[];
  /** Adds transactions to the mempool (in this order) with their side effects, in one write. */
  addPending(txs: readonly ChainTx[], changes: StateChanges): void;
  /**
   * Lands a block with its receipts and every state change, in one write. Returns a promise when the write
   * is committed and reaches the disk off the event loop: the block is durable once it resolves, and nobody
   * may be told of it before. Returns nothing when the block is durable on return.
   */
  appendBlock(
    block: ChainBlock,
    receipts: readonly ChainReceipt[],
    changes: StateChanges,
  ): Promise<void> | undefined;
  /**
   * Runs `write` (synchronous) once a write would not wait on the event loop for another connection (the
   * WAL checkpointer's restart): at once, or later (a promise of its result). Without it: at once.
   */
  whenWritable?<T>(write: () => T): T | Promise<T>;
  /** Releases what the store holds open besides the database, which stays with its owner. */
  close?(): void;
  putMeta(changes: ReadonlyMap<string, string>): void;
  /** One meta value as the store has it now (inside a caller's transaction: as that transaction sees it). */
  getMeta(key: string): string | null;
  /** Which of `ids` landed in a block already (the durable index of landed settlement items). */
  landedItems(ids: readonly string[]): Set<string>;
  getBlock(number: number): ChainBlock | null;
  getTransaction(hash: Hash): ChainTx | null;
  getReceipt(hash: Hash): ChainReceipt | null;
  /** The receipts of the transactions of `kind` in the blocks (after, through], in chain order. */
  receiptsBetween(after: number, through: number, kind: ChainTxKind): ChainReceipt[];
}

/** Keeps everything in memory (tests, ephemeral runs). Same semantics as the SQLite store. */
export class MemoryChainStore implements ChainStore {
  private head: ChainBlock | null = null;
  private readonly blocks = new Map<number, ChainBlock>();
  private readonly txs = new Map<Hash, ChainTx>();
  private readonly receipts = new Map<Hash, ChainReceipt>();
  private readonly mempool = new Map<Hash, ChainTx>();
  private readonly balances = new Map<Address, bigint>();
  private readonly safes = new Map<Address, SafeState>();
  private readonly deployments = new Map<Address, ProxyDeployment>();
  private readonly meta = new Map<string, string>();
  private readonly landed = new Map<string, Hash>();

  load(): ChainSnapshot {
    let nextSeq = 0;
    for (const tx of this.txs.values()) nextSeq = Math.max(nextSeq, tx.seq + 1);
    return structuredClone({
      head: this.head,
      nextSeq,
      balances: this.balances,
      safes: [...this.safes.values()],
      deployments: [...this.deployments.values()],
      meta: this.meta,
    });
  }

  pendingTransactions(limit = Number.POSITIVE_INFINITY): ChainTx[] {
    return structuredClone([...this.mempool.values()].slice(0, limit));
  }

  addPending(txs: readonly ChainTx[], changes: StateChanges): void {
    for (const tx of txs) {
      this.txs.set(tx.hash, structuredClone(tx));
      this.mempool.set(tx.hash, structuredClone(tx));
    }
    this.apply(changes);
  }

  appendBlock(block: ChainBlock, receipts: readonly ChainReceipt[], changes: StateChanges): undefined {
    this.blocks.set(block.number, structuredClone(block));
    this.head = structuredClone(block);
    for (const r of receipts) {
      this.receipts.set(r.transactionHash, structuredClone(r));
      this.mempool.delete(r.transactionHash);
    }
    this.apply(changes);
  }

  putMeta(changes: ReadonlyMap<string, string>): void {
    this.apply({ meta: changes });
  }

  getMeta(key: string): string | null {
    return this.meta.get(key) ?? null;
  }

  landedItems(ids: readonly string[]): Set<string> {
    return new Set(ids.filter((id) => this.landed.has(id)));
  }

  getBlock(number: number): ChainBlock | null {
    return structuredClone(this.blocks.get(number) ?? null);
  }

  getTransaction(hash: Hash): ChainTx | null {
    return structuredClone(this.txs.get(hash) ?? null);
  }

  getReceipt(hash: Hash): ChainReceipt | null {
    return structuredClone(this.receipts.get(hash) ?? null);
  }

  receiptsBetween(after: number, through: number, kind: ChainTxKind): ChainReceipt[] {
    const found: ChainReceipt[] = [];
    for (let number = after + 1; number <= through; number++) {
      for (const hash of this.blocks.get(number)?.transactions ?? []) {
        const receipt = this.receipts.get(hash);
        if (receipt?.tx.kind === kind) found.push(structuredClone(receipt));
      }
    }
    return found;
  }

  private apply(changes: StateChanges): void {
    for (const [k, v] of changes.balances ?? []) this.balances.set(k, v);
    for (const s of changes.safes ?? []) this.safes.set(s.address, structuredClone(s));
    for (const d of changes.deployments ?? []) this.deployments.set(d.safe, structuredClone(d));
    for (const [k, v] of changes.meta ?? []) this.meta.set(k, v);
    for (const item of changes.landedItems ?? []) this.landed.set(item.id, item.txHash);
  }
}
