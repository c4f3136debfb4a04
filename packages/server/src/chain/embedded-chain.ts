import { type SafeDeployment, type SafeTransactionData, safeDomain, safeTxHash } from '@oddsbook/protocol';
import { AppError, badRequest } from '../errors/app-error.js';
import { andThen, type MaybePromise, SerialQueue } from '../lib/maybe-promise.js';
import { type CommittedState, type MinedBlock, Overlay } from './block-overlay.js';
import { type BlockTimer, intervalBlockTimer } from './block-timer.js';
import type {
  Chain,
  ChainFaultState,
  ChainFaults,
  ChainHistory,
  ChainSettlements,
  DeploySafeResult,
  SubmittedTx,
  TokenTxRequest,
} from './chain.js';
import { address, tokenPayload } from './chain-input.js';
import {
  FAULT_CLASSES,
  META_BLOCKS_PAUSED,
  META_DROP_NEXT_ANNOUNCEMENT,
  META_FAIL_NEXT_DEPLOYMENT,
  META_NEXT_SEQ,
  META_SETTLEMENT_CURSOR,
  metaFailItems,
} from './chain-meta.js';
import type { ChainSnapshot, ChainStore, LandedItem, StateChanges } from './chain-store.js';
import type {
  Address,
  ChainBlock,
  ChainReceipt,
  ChainTx,
  ChainTxKind,
  ChainTxPayload,
  Hash,
  ProxyDeployment,
  ProxyStatus,
  SafeState,
  SettleTx,
} from './chain-types.js';
import { ProxyAddresses } from './proxy-addresses.js';
import { ReceiptWaiters } from './receipt-waiters.js';
import { executeSafeTransaction } from './safe-execution.js';
import { settlementPayload } from './settlement-batch.js';
import { applySettlement } from './settlement-mining.js';
import type { SettlementBatch, SettlementFaultClass } from './settlement-types.js';
import { blockHash, transactionHash } from './tx-codec.js';

export type EmbeddedChainOptions = {
  chainId: number;
  store: ChainStore;
  baseToken: Address;
  escrowAddress: Address;
  /** Default 500. */
  blockTimeMs?: number;
  /** Default: a real interval timer. Tests pass a ManualBlockTimer. */
  timer?: BlockTimer;
  clock?: { now(): number };
  /** Safe contracts used to derive proxy addresses; default v1.4.1 (SafeL2 singleton). */
  safeDeployment?: SafeDeployment;
  /** `saltNonce` of every proxy; default 0. */
  saltNonce?: bigint;
  maxTransactionsPerBlock?: number;
  /** A receipt or block listener threw; default: a process warning. */
  onListenerError?: (error: unknown) => void;
};

const ZERO_HASH: Hash = `0x${'0'.repeat(64)}`;

/**
 * An in-process chain: blocks on a timer, keccak-hashed transactions, receipts, a 6-decimal base token,
 * Safe proxy wallets (CREATE2 addresses, deployment as a transaction, add-owner multisig transactions
 * checked like Safe's `execTransaction`), settlement transactions (items applied one by one, all of an item
 * or none: settlement-mining.ts) and injected faults. Every change is persisted through the ChainStore before it
 * becomes visible, and the mempool too, so pending transactions complete after a restart.
 *
 * What a block or a submission needs is in memory (balances, Safes, deployments, the mempool, the settlement
 * cursor, the fault switches: the store's snapshot at the start, then every write the chain made); blocks,
 * transactions and receipts are read from the store. Writes go one at a time, in the order they were asked
 * for (a submission's checks run in its turn, against what the writes before it left), and memory follows
 * a write once the store has it: a write the store refuses changes nothing.
 */
export class EmbeddedChain implements Chain, ChainHistory, ChainSettlements, ChainFaults {
  readonly chainId: number;
  readonly baseToken: Address;
  readonly escrowAddress: Address;
  readonly blockTimeMs: number;

  /** Committed state (what the store has). */
  private readonly state: CommittedState = { balances: new Map(), safes: new Map(), deployments: new Map() };

  private readonly store: ChainStore;
  private readonly timer: BlockTimer;
  private readonly clock: { now(): number };
  private readonly saltNonce: bigint;
  private readonly maxTxPerBlock: number;
  private readonly onListenerError: (error: unknown) => void;
  private head: ChainBlock | null;
  private nextSeq: number;
  /** Submitted, not yet mined, in submission order (the sequence numbers' order). */
  private readonly mempool = new Map<Hash, ChainTx>();
  /** The highest `lastSeq` of the settlement transactions submitted (`settlementSubmittedThrough`). */
  private settlementCursor: number;
  /** The store's writes, one at a time. */
  private readonly writes = new SerialQueue();
  private failNextDeploymentFlag: boolean;
  private failSettlementItems: Record<SettlementFaultClass, number>;
  private blocksPaused: boolean;
  private dropNextAnnouncement: boolean;
  private running = false;
  /** From a block's write until it is announced (after its sync): the next block waits. */
  private mining = false;
  private landing: Promise<void> = Promise.resolve();
  private readonly proxyAddresses: ProxyAddresses;
  private readonly receiptListeners = new Set<(receipt: ChainReceipt) => void>();
  private readonly blockListeners = new Set<(block: ChainBlock, receipts: readonly ChainReceipt[]) => void>();
  private readonly waiters = new ReceiptWaiters();

  /** Opens the chain on its store's state, on any store (one that loads asynchronously too). */
  static async open(options: EmbeddedChainOptions): Promise<EmbeddedChain> {
    return new EmbeddedChain(options, await options.store.load());
  }

  /** On a store that loads at once (memory, SQLite), or on the snapshot given; `open` for any store. */
  constructor(options: EmbeddedChainOptions, loaded?: ChainSnapshot) {
    this.chainId = options.chainId;
    this.baseToken = address(options.baseToken, 'baseToken');
    this.escrowAddress = address(options.escrowAddress, 'escrowAddress');
    this.blockTimeMs = options.blockTimeMs ?? 500;
    this.store = options.store;
    this.timer = options.timer ?? intervalBlockTimer();
    this.clock = options.clock ?? { now: () => Date.now() };
    this.saltNonce = options.saltNonce ?? 0n;
    this.proxyAddresses = new ProxyAddresses({
      ...(options.safeDeployment ? { safeDeployment: options.safeDeployment } : {}),
      saltNonce: this.saltNonce,
    });
    this.maxTxPerBlock = options.maxTransactionsPerBlock ?? 5000;
    this.onListenerError =
      options.onListenerError ??
      ((error) => process.emitWarning(`chain listener failed: ${(error as Error)?.stack ?? String(error)}`));

    const snapshot = loaded ?? this.store.load();
    if (snapshot instanceof Promise) {
      snapshot.catch(() => {});
      throw new Error('the chain store loads asynchronously: open the chain with EmbeddedChain.open');
    }
    this.head = snapshot.head;
    for (const tx of snapshot.pending) this.mempool.set(tx.hash, tx);
    this.settlementCursor = Number(snapshot.meta.get(META_SETTLEMENT_CURSOR) ?? 0);
    this.state.balances = snapshot.balances;
    for (const s of snapshot.safes) this.state.safes.set(s.address, s);
    for (const d of snapshot.deployments) this.state.deployments.set(d.safe, d);
    // After the highest stored transaction: a submission's row is its own record of the counter, so the
    // counter costs no write of its own. (A rolled-back submission's number may be given again: it never existed.)
    this.nextSeq = Math.max(snapshot.nextSeq, Number(snapshot.meta.get(META_NEXT_SEQ) ?? 0));
    this.failNextDeploymentFlag = snapshot.meta.get(META_FAIL_NEXT_DEPLOYMENT) === '1';
    this.failSettlementItems = { escrow: 0, release: 0, payout: 0, deposit: 0 };
    for (const c of FAULT_CLASSES)
      this.failSettlementItems[c] = Number(snapshot.meta.get(metaFailItems(c)) ?? 0);
    this.blocksPaused = snapshot.meta.get(META_BLOCKS_PAUSED) === '1';
    this.dropNextAnnouncement = snapshot.meta.get(META_DROP_NEXT_ANNOUNCEMENT) === '1';
  }

  // ---- lifecycle and blocks ------------------------------------------------------------------

  start(): void {
    if (this.running) return;
    this.running = true;
    this.timer.start(this.blockTimeMs, () => this.mineBlock());
  }

  /** Stops producing blocks; resolves once a block being written is durable and announced, and every write is done. */
  async stop(): Promise<void> {
    this.running = false;
    this.timer.stop();
    await this.landing;
    await this.writes.idle();
    await this.store.close?.();
  }

  /**
   * Mines one block with the pending transactions (none: no block; empty blocks are not produced) and
   * announces it to listeners and waiters once it is durable: at once, when the store's commit reaches the
   * disk off the event loop, or when a remote store's commit is acknowledged (the promise). Its state is
   * applied once the store has committed the block; only what tells anyone of the block waits for it to be
   * durable. While the store cannot write without waiting (the WAL checkpointer restarting), the block is not
   * computed yet: it is computed and written in one turn once the store can write, and announced outside
   * that write. On a store that answers at once, all of it happens before this returns.
   * The timer calls it; tests and tools may call it directly. A block the store refused changes nothing:
   * its transactions stay pending for the next tick. While blocks are paused (`pauseBlocks`) nothing is mined.
   * One block at a time: a call while a block is being written or announced does nothing.
   */
  mineBlock(): Promise<void> | undefined {
    if (this.mining) return undefined;
    this.mining = true;
    const mine = () => this.writes.run(() => this.mineReported());
    const mined = (
      this.store.whenWritable ? this.store.whenWritable(mine) : mine()
    ) as MaybePromise<MinedBlock | null>;
    const landed = andThen(mined, (m) => this.land(m));
    if (!(landed instanceof Promise)) return undefined;
    this.landing = landed;
    return landed;
  }

  /** `mineNext`, a failure reported instead of thrown (its transactions stay pending). */
  private mineReported(): MaybePromise<MinedBlock | null> {
    const reported = (error: unknown) => {
      this.onListenerError(error);
      return null;
    };
    try {
      const mined = this.mineNext();
      return mined instanceof Promise ? mined.catch(reported) : mined;
    } catch (error) {
      return reported(error);
    }
  }

  /** Announces a mined block once it is durable; `mining` ends then, or at once when nothing was mined. */
  private land(mined: MinedBlock | null): Promise<void> | undefined {
    if (!mined) {
      this.mining = false;
      return undefined;
    }
    const { block, receipts, durable } = mined;
    const announce = () => {
      try {
        this.emit(block, receipts, mined.announce);
      } finally {
        this.mining = false;
      }
    };
    if (!durable) {
      announce();
      return undefined;
    }
    return durable.then(announce, (error: unknown) => {
      // The block is committed but its sync failed: the disk may not have it, so no one is told and no
      // block follows it (as the sequencer stops on a failed flush). A restart starts from what is on disk.
      this.running = false;
      this.timer.stop();
      this.onListenerError(error);
    });
  }

  /** Writes the next block and applies its state; null when nothing is pending or blocks are paused. */
  private mineNext(): MaybePromise<MinedBlock | null> {
    if (this.blocksPaused || this.mempool.size === 0) return null;
    const txs: ChainTx[] = [];
    for (const tx of this.mempool.values()) {
      if (txs.push(tx) === this.maxTxPerBlock) break;
    }
    // The block's settlement items that landed in earlier blocks: one look-up for the whole block.
    const ids = txs.flatMap((tx) =>
      tx.kind === 'settle' ? [...tx.retries, ...tx.items].map((item) => item.id) : [],
    );
    const landed = ids.length === 0 ? new Set<string>() : this.store.landedItems(ids);
    return andThen(landed, (landedBefore) => this.writeBlock(txs, landedBefore));
  }

  /** Computes the block of `txs` and writes it; applies its state once the store has it. */
  private writeBlock(txs: readonly ChainTx[], landedBefore: ReadonlySet<string>): MaybePromise<MinedBlock> {
    const number = (this.head?.number ?? 0) + 1;
    const header = {
      number,
      parentHash: this.head?.hash ?? ZERO_HASH,
      timestamp: Math.max(this.clock.now(), this.head?.timestamp ?? 0),
      transactions: txs.map((t) => t.hash),
    };
    const block: ChainBlock = { ...header, hash: blockHash(header, this.chainId) };
    const overlay = new Overlay(this.state);
    const settling = {
      ledger: overlay,
      escrow: this.escrowAddress,
      landedBefore: (ids: readonly string[]) => new Set(ids.filter((id) => landedBefore.has(id))),
      landedInBlock: new Set<string>(),
      landed: [] as LandedItem[],
      faults: { ...this.failSettlementItems },
    };
    const receipts = txs.map((tx, index): ChainReceipt => {
      const receipt = {
        transactionHash: tx.hash,
        blockNumber: number,
        blockHash: block.hash,
        transactionIndex: index,
        tx,
      };
      if (tx.kind === 'settle') {
        return { ...receipt, status: 'success', error: null, items: applySettlement(tx, settling) };
      }
      const error = this.apply(tx, overlay, number);
      return { ...receipt, status: error === null ? 'success' : 'failed', error };
    });
    // The faults this block used up, and a dropped announcement, are cleared in the block's own write.
    const meta = new Map<string, string>();
    for (const c of FAULT_CLASSES) {
      if (settling.faults[c] !== this.failSettlementItems[c])
        meta.set(metaFailItems(c), String(settling.faults[c]));
    }
    const announce = !this.dropNextAnnouncement;
    if (!announce) meta.set(META_DROP_NEXT_ANNOUNCEMENT, '0');
    const written = this.store.appendBlock(block, receipts, {
      ...overlay.changes(),
      meta,
      landedItems: settling.landed,
    });
    const applied = (durable: Promise<void> | undefined): MinedBlock => {
      for (const [k, v] of overlay.balances) this.state.balances.set(k, v);
      for (const [k, v] of overlay.safes) this.state.safes.set(k, v);
      for (const [k, v] of overlay.deployments) this.state.deployments.set(k, v);
      for (const tx of txs) this.mempool.delete(tx.hash);
      this.failSettlementItems = settling.faults;
      if (!announce) this.dropNextAnnouncement = false;
      this.head = block;
      return { block, receipts, durable, announce };
    };
    if (written instanceof Promise) return written.then(() => applied(undefined));
    return applied(written?.synced);
  }

  /** Transactions submitted and not yet mined, oldest first. */
  pendingTransactions(): readonly ChainTx[] {
    return [...this.mempool.values()];
  }

  async blockNumber(): Promise<number> {
    return this.head?.number ?? 0;
  }

  headNumber(): number {
    return this.head?.number ?? 0;
  }

  async receiptsBetween(after: number, through: number, kind: ChainTxKind): Promise<ChainReceipt[]> {
    return this.store.receiptsBetween(after, through, kind);
  }

  async getBlock(number: number): Promise<ChainBlock | null> {
    return this.store.getBlock(number);
  }

  async getTransaction(hash: Hash): Promise<ChainTx | null> {
    return this.store.getTransaction(hash);
  }

  async getReceipt(hash: Hash): Promise<ChainReceipt | null> {
    return this.store.getReceipt(hash);
  }

  waitForReceipt(hash: Hash, options: { timeoutMs?: number } = {}): Promise<ChainReceipt> {
    const stored = this.store.getReceipt(hash);
    if (stored && !(stored instanceof Promise)) return Promise.resolve(stored);
    // Waiting from before a remote read: a block that lands while it is under way is heard of, one before it read.
    const waiting = this.waiters.wait(hash, options);
    if (stored instanceof Promise) {
      stored.then((receipt) => {
        if (receipt) waiting.settle(receipt);
      }, waiting.fail);
    }
    return waiting.promise;
  }

  onReceipt(listener: (receipt: ChainReceipt) => void): () => void {
    this.receiptListeners.add(listener);
    return () => this.receiptListeners.delete(listener);
  }

  onBlock(listener: (block: ChainBlock, receipts: readonly ChainReceipt[]) => void): () => void {
    this.blockListeners.add(listener);
    return () => this.blockListeners.delete(listener);
  }

  // ---- proxy wallets ---------------------------------------------------------------------------

  proxyAddressFor(owner: Address): Address {
    return this.proxyAddresses.of(owner);
  }

  async getProxy(owner: Address): Promise<ProxyStatus> {
    const eoa = address(owner, 'owner');
    const safe = this.proxyAddressFor(eoa);
    const d = this.state.deployments.get(safe);
    const state = d?.state ?? 'none';
    return {
      address: safe,
      owner: eoa,
      state,
      pending: state === 'pending',
      deployed: state === 'deployed',
      txHash: d?.txHash ?? null,
    };
  }

  async deployProxy(owner: Address): Promise<DeploySafeResult> {
    const eoa = address(owner, 'owner');
    const safe = this.proxyAddressFor(eoa);
    return this.writes.run(() => {
      const existing = this.state.deployments.get(safe);
      if (existing && existing.state !== 'failed') return { safe, txHash: existing.txHash, submitted: false };
      const injectedFailure = this.failNextDeploymentFlag;
      const payload: ChainTxPayload = {
        kind: 'deploySafe',
        safe,
        owner: eoa,
        saltNonce: this.saltNonce,
        injectedFailure,
      };
      const submitted = this.submitNow([payload], (hash) => ({
        deployments: [{ safe, owner: eoa, saltNonce: this.saltNonce, state: 'pending', txHash: hash }],
        meta: injectedFailure ? new Map([[META_FAIL_NEXT_DEPLOYMENT, '0']]) : undefined,
      }));
      return andThen(submitted, ([tx]) => {
        this.failNextDeploymentFlag = false;
        this.state.deployments.set(safe, {
          safe,
          owner: eoa,
          saltNonce: this.saltNonce,
          state: 'pending',
          txHash: tx!.hash,
        });
        return { safe, txHash: tx!.hash, submitted: true };
      });
    });
  }

  async failNextDeployment(): Promise<void> {
    await this.putMeta(META_FAIL_NEXT_DEPLOYMENT, '1', () => {
      this.failNextDeploymentFlag = true;
    });
  }

  // ---- fault injection (besides failNextDeployment) --------------------------------------------

  async failNextSettlementItems(faultClass: SettlementFaultClass, count: number): Promise<void> {
    if (!FAULT_CLASSES.includes(faultClass)) {
      throw badRequest('INVALID_FAULT', `the fault class must be one of ${FAULT_CLASSES.join(', ')}`);
    }
    if (!Number.isSafeInteger(count) || count < 0) {
      throw badRequest('INVALID_FAULT', 'count must be a non-negative integer');
    }
    await this.putMeta(metaFailItems(faultClass), String(count), () => {
      this.failSettlementItems[faultClass] = count;
    });
  }

  async pauseBlocks(): Promise<void> {
    await this.putMeta(META_BLOCKS_PAUSED, '1', () => {
      this.blocksPaused = true;
    });
  }

  async resumeBlocks(): Promise<void> {
    await this.putMeta(META_BLOCKS_PAUSED, '0', () => {
      this.blocksPaused = false;
    });
  }

  async dropNextBlockAnnouncement(): Promise<void> {
    await this.putMeta(META_DROP_NEXT_ANNOUNCEMENT, '1', () => {
      this.dropNextAnnouncement = true;
    });
  }

  faults(): ChainFaultState {
    return {
      failNextDeployment: this.failNextDeploymentFlag,
      failSettlementItems: { ...this.failSettlementItems },
      blocksPaused: this.blocksPaused,
      dropNextBlockAnnouncement: this.dropNextAnnouncement,
    };
  }

  async getSafe(safe: Address): Promise<SafeState | null> {
    const s = this.state.safes.get(address(safe, 'safe'));
    return s ? structuredClone(s) : null;
  }

  async execSafeTransaction(options: {
    safe: Address;
    transaction: SafeTransactionData;
    signatures: Hash;
  }): Promise<SubmittedTx> {
    const safe = address(options.safe, 'safe');
    let hash: Hash;
    try {
      hash = safeTxHash(safeDomain(this.chainId, safe), options.transaction);
    } catch (cause) {
      throw new AppError({ code: 'INVALID_SAFE_TRANSACTION', statusCode: 400, cause });
    }
    if (typeof options.signatures !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(options.signatures)) {
      throw new AppError({
        code: 'INVALID_SIGNATURE',
        statusCode: 400,
        message: 'signatures must be hex bytes',
      });
    }
    return this.submit({
      kind: 'execSafeTx',
      safe,
      safeTxHash: hash,
      transaction: { ...options.transaction },
      signatures: options.signatures,
    });
  }

  // ---- base token ------------------------------------------------------------------------------

  async balanceOf(wallet: Address): Promise<bigint> {
    return this.state.balances.get(address(wallet, 'wallet')) ?? 0n;
  }

  /** Sum of every balance, escrow included: equals everything ever minted. */
  totalSupply(): bigint {
    let sum = 0n;
    for (const v of this.state.balances.values()) sum += v;
    return sum;
  }

  async mint(to: Address, amount: bigint, memo?: string): Promise<SubmittedTx> {
    return this.submit(tokenPayload({ kind: 'mint', to, amount, memo }));
  }

  async transfer(from: Address, to: Address, amount: bigint, memo?: string): Promise<SubmittedTx> {
    return this.submit(tokenPayload({ kind: 'transfer', from, to, amount, memo }));
  }

  async escrow(from: Address, amount: bigint, memo?: string): Promise<SubmittedTx> {
    return this.submit(tokenPayload({ kind: 'escrow', from, amount, memo }));
  }

  async release(to: Address, amount: bigint, memo?: string): Promise<SubmittedTx> {
    return this.submit(tokenPayload({ kind: 'release', to, amount, memo }));
  }

  async submitMany(requests: readonly TokenTxRequest[]): Promise<SubmittedTx[]> {
    // Every request is checked before anything is written: all or none.
    const payloads = requests.map(tokenPayload);
    if (payloads.length === 0) return [];
    const txs = await this.writes.run(() => this.submitNow(payloads));
    return txs.map((tx) => ({ txHash: tx.hash }));
  }

  // ---- settlement ------------------------------------------------------------------------------

  async submitSettlement(batch: SettlementBatch): Promise<SubmittedTx> {
    return this.writes.run(() => {
      const cursor = this.settlementCursor;
      const payload = settlementPayload(batch, { escrow: this.escrowAddress, cursor });
      const through = Math.max(cursor, batch.lastSeq);
      const submitted = this.submitNow([payload], () =>
        through > cursor ? { meta: new Map([[META_SETTLEMENT_CURSOR, String(through)]]) } : {},
      );
      return andThen(submitted, ([tx]) => {
        this.settlementCursor = through;
        return { txHash: tx!.hash };
      });
    });
  }

  /** Kept in memory after each write: the store has it with the settlement transaction that moved it. */
  settlementSubmittedThrough(): number {
    return this.settlementCursor;
  }

  pendingSettlements(): SettleTx[] {
    return [...this.mempool.values()].filter((tx): tx is SettleTx => tx.kind === 'settle');
  }

  balances(): Map<Address, bigint> {
    return new Map(this.state.balances);
  }

  // ---- internals -------------------------------------------------------------------------------

  /** Submits one transaction in its turn of the writes. */
  private async submit(payload: ChainTxPayload): Promise<SubmittedTx> {
    const [tx] = await this.writes.run(() => this.submitNow([payload]));
    return { txHash: tx!.hash };
  }

  /**
   * Persists transactions, in this order, into the mempool with one store write: their rows and the side
   * effects (given the first transaction's hash); then they are pending. The counter is the rows' own `seq`.
   * Called in a turn of `writes`.
   */
  private submitNow(
    payloads: readonly ChainTxPayload[],
    sideEffects?: (firstHash: Hash) => StateChanges,
  ): MaybePromise<ChainTx[]> {
    const submittedAt = this.clock.now();
    const first = this.nextSeq;
    const txs = payloads.map((payload, i): ChainTx => {
      const seq = first + i;
      return { ...payload, hash: transactionHash(this.chainId, seq, payload), seq, submittedAt };
    });
    return andThen(this.store.addPending(txs, sideEffects?.(txs[0]!.hash) ?? {}), () => {
      this.nextSeq = first + txs.length;
      for (const tx of txs) this.mempool.set(tx.hash, tx);
      return txs;
    });
  }

  /** Writes one meta value in its turn of the writes; `then` once the store has it. */
  private putMeta(key: string, value: string, then: () => void): MaybePromise<void> {
    return this.writes.run(() => andThen(this.store.putMeta(new Map([[key, value]])), then));
  }

  /**
   * Applies one transaction (a settlement's items: `applySettlement`) to the block's overlay; returns null on
   * success or the failure reason.
   */
  private apply(tx: Exclude<ChainTx, SettleTx>, o: Overlay, blockNumber: number): string | null {
    switch (tx.kind) {
      case 'mint':
        o.balances.set(tx.to, o.balance(tx.to) + tx.amount);
        return null;
      case 'transfer':
        return o.move(tx.from, tx.to, tx.amount) ? null : 'INSUFFICIENT_BALANCE';
      case 'escrow':
        return o.move(tx.from, this.escrowAddress, tx.amount) ? null : 'INSUFFICIENT_BALANCE';
      case 'release':
        return o.move(this.escrowAddress, tx.to, tx.amount) ? null : 'INSUFFICIENT_ESCROW';
      case 'deploySafe': {
        if (o.safe(tx.safe)) return 'ALREADY_DEPLOYED';
        const record: ProxyDeployment = {
          safe: tx.safe,
          owner: tx.owner,
          saltNonce: tx.saltNonce,
          state: tx.injectedFailure ? 'failed' : 'deployed',
          txHash: tx.hash,
        };
        o.deployments.set(tx.safe, record);
        if (tx.injectedFailure) return 'DEPLOYMENT_FAILED';
        o.safes.set(tx.safe, {
          address: tx.safe,
          owners: [tx.owner],
          threshold: 1,
          nonce: 0,
          deployedBlock: blockNumber,
        });
        return null;
      }
      case 'execSafeTx': {
        const safe = o.safe(tx.safe);
        if (!safe) return 'SAFE_NOT_DEPLOYED';
        if (Number(tx.transaction.nonce) !== safe.nonce) return 'GS026';
        const result = executeSafeTransaction({
          chainId: this.chainId,
          safe,
          transaction: tx.transaction,
          signatures: tx.signatures,
        });
        if (!result.ok) return result.error;
        o.safes.set(tx.safe, result.safe);
        return null;
      }
    }
  }

  /**
   * Tells waiters of their receipts and, unless the announcement is dropped (an injected fault), listeners
   * of the block. A waiter asked for its receipt (a real client polls for it), so a dropped announcement
   * does not keep it from one.
   */
  private emit(block: ChainBlock, receipts: readonly ChainReceipt[], announce: boolean): void {
    for (const receipt of receipts) {
      this.waiters.settle(receipt);
      if (!announce) continue;
      for (const listener of this.receiptListeners) {
        try {
          listener(receipt);
        } catch (error) {
          this.onListenerError(error);
        }
      }
    }
    if (!announce) return;
    for (const listener of this.blockListeners) {
      try {
        listener(block, receipts);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}
