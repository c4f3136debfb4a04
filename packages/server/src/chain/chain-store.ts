import type { MaybePromise } from '../lib/maybe-promise.js';
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
  /** The mempool: submitted, not yet mined, oldest first. */
  pending: ChainTx[];
  balances: Map<Address, bigint>;
  safes: SafeState[];
  deployments: ProxyDeployment[];
  meta: Map<string, string>;
};

/**
 * How a block's write ended (`ChainStore.appendBlock`):
 * - nothing: committed and durable on return;
 * - `{ synced }`: committed on return, durable once `synced` resolves (a commit whose sync runs off the
 *   event loop);
 * - a promise: committed and durable once it resolves; nothing is written when it rejects.
 */
export type BlockWrite = undefined | { readonly synced: Promise<void> } | Promise<void>;

/**
 * Durable state of the embedded chain. Each write is atomic: a transaction enters the mempool together with
 * its side effects (e.g. a deployment turning `pending`), and a block lands together with its receipts and
 * every state change, and leaves the mempool in the same write. The chain makes one write at a time and
 * keeps what it needs at once in memory (the snapshot `load` gives at its start, then its own writes);
 * everything else is read from the store when asked for.
 *
 * A store on the exchange's own disk answers at once; one over the network (PostgreSQL) answers with
 * promises: the chain awaits only those.
 */
export interface ChainStore {
  load(): MaybePromise<ChainSnapshot>;
  /** Adds transactions to the mempool (in this order) with their side effects, in one write. */
  addPending(txs: readonly ChainTx[], changes: StateChanges): MaybePromise<void>;
  /** Lands a block with its receipts and every state change, in one write (see `BlockWrite`). */
  appendBlock(block: ChainBlock, receipts: readonly ChainReceipt[], changes: StateChanges): BlockWrite;
  /**
   * Runs `write` (synchronous) once a write would not wait on the event loop for another connection (the
   * WAL checkpointer's restart): at once, or later (a promise of its result). Without it: at once.
   */
  whenWritable?<T>(write: () => T): T | Promise<T>;
  /** Releases what the store holds open besides the database, which stays with its owner. */
  close?(): MaybePromise<void>;
  putMeta(changes: ReadonlyMap<string, string>): MaybePromise<void>;
  /** Which of `ids` landed in a block already (the durable index of landed settlement items). */
  landedItems(ids: readonly string[]): MaybePromise<Set<string>>;
  getBlock(number: number): MaybePromise<ChainBlock | null>;
  getTransaction(hash: Hash): MaybePromise<ChainTx | null>;
  getReceipt(hash: Hash): MaybePromise<ChainReceipt | null>;
  /** The receipts of the transactions of `kind` in the blocks (after, through], in chain order. */
  receiptsBetween(after: number, through: number, kind: ChainTxKind): MaybePromise<ChainReceipt[]>;
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
      pending: [...this.mempool.values()],
      balances: this.balances,
      safes: [...this.safes.values()],
      deployments: [...this.deployments.values()],
      meta: this.meta,
    });
  }

  addPending(txs: readonly ChainTx[], changes: StateChanges): void {
    const seqs = new Set([...this.txs.values()].map((tx) => tx.seq));
    for (const tx of txs) {
      if (this.txs.has(tx.hash) || seqs.has(tx.seq))
        throw new Error(`transaction ${tx.hash} is stored already`);
      seqs.add(tx.seq);
    }
    for (const tx of txs) {
      this.txs.set(tx.hash, structuredClone(tx));
      this.mempool.set(tx.hash, structuredClone(tx));
    }
    this.apply(changes);
  }

  appendBlock(block: ChainBlock, receipts: readonly ChainReceipt[], changes: StateChanges): undefined {
    if (this.blocks.has(block.number)) throw new Error(`block ${block.number} is stored already`);
    for (const r of receipts) {
      if (!this.txs.has(r.transactionHash) || this.receipts.has(r.transactionHash))
        throw new Error(`transaction ${r.transactionHash} is not pending`);
    }
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
