import type { Chain, ChainHistory, SubmittedTx } from '../chain/chain.js';
import type { Address, ChainBlock, ChainReceipt, Hash } from '../chain/chain-types.js';
import {
  movesNothing,
  type SettlementBatch,
  type SettlementItem,
  type SettlementItemResult,
} from '../chain/settlement-types.js';
import type { MaybePromise } from '../lib/maybe-promise.js';
import type { CommittedBatch } from '../sequencer/committed-batch.js';
import type { NotLandedItem, SequencerInput, SettledTx } from '../sequencer/inputs.js';
import { legacyEscrowsOf } from './legacy-escrows.js';
import { type EngineMoney, type ReconcileReport, reconcile } from './reconcile.js';
import { type SettlementFeed, toSubmitAgain } from './settlement-feed.js';
import {
  fillToReverse,
  isAbsorbed,
  SettlementItemStream,
  startsReversals,
  type WalletOf,
} from './settlement-items.js';

/** The chain as the driver uses it: settlement transactions, their cursor, blocks and stored receipts. */
export type SettlementChain = Pick<Chain, 'onBlock' | 'waitForReceipt' | 'escrowAddress'> &
  ChainHistory & {
    submitSettlement(batch: SettlementBatch): Promise<SubmittedTx>;
    /** The highest `lastSeq` of a settlement transaction submitted (pending or mined); 0 before any. */
    settlementSubmittedThrough(): number;
    /** Settlement transactions submitted and not yet mined, oldest first. */
    pendingSettlements(): readonly (SettlementBatch & { hash: Hash })[];
    /** Every wallet's and the escrow pool's mined balance. */
    balances(): ReadonlyMap<Address, bigint>;
  };

/** A mined settlement transaction: its batch and each item's result (retries first, then items). */
type SettleReceipt = ChainReceipt & {
  tx: { kind: 'settle' } & SettlementBatch;
  items: readonly SettlementItemResult[];
};

/** What is not settled yet (`SettlementDriver.backlog`). */
export type SettlementBacklog = {
  queuedItems: number;
  outstandingItems: number;
  inFlight: number;
  settledSeq: number;
};

/** What the metrics read of settlement: the leader's driver, or its remote client on an API node. */
export type SettlementStatus = { backlog(): MaybePromise<SettlementBacklog> };

export type SettlementDriverOptions = {
  chain: SettlementChain;
  feed: SettlementFeed;
  walletOf: WalletOf;
  /** The first journal seq the driver settles (the journal's `chainSettlement` feature): earlier ones never. */
  since: number;
  /**
   * Journals the chain's word, in order: a `settlement` input and, after it, a `reverseFill` per failed fill;
   * they are the receipts of the blocks (after, through]. May fail with `ReceiptsJournaled` (a chain node's
   * memo, ADR 0018): then what the journal holds is not handed on again.
   */
  submit: (
    inputs: readonly SequencerInput[],
    blocks: { after: number; through: number },
  ) => Promise<readonly { seq: number }[]>;
  /** A submission or receipt that could not be handed on (reported; the next block tries again). */
  onError: (error: unknown) => void;
};

/**
 * The journal holds the chain's receipts through block `through` already (an attempt answered too late, a
 * retry reaching a new sequencer leader): of the blocks handed on, those through it are not journaled again.
 */
export class ReceiptsJournaled extends Error {
  override name = 'ReceiptsJournaled';
  constructor(readonly through: number) {
    super(`the journal holds the chain's receipts through block ${through}`);
  }
}

/**
 * The chain side of trading (issue 33; docs/wallets.md, "Settlement"). Every committed entry's money moves
 * become settlement items (`settlement-items.ts`), submitted in journal order in settlement transactions,
 * one at a time: the next waits for the receipt of the one before, so no item runs ahead of a failure it
 * depends on. Items that did not land and are not fills (payouts, deposits, adjustments: they fail only
 * when the chain is faulty) and those skipped behind them are submitted again, alone, until they land; a
 * failed fill is reversed by the engine (`reverseFill`). Each receipt is journaled before the next
 * transaction goes: the journal says what the chain did.
 *
 * Crash safety: the chain keeps the highest seq submitted with each transaction (the cursor the driver
 * goes on from, `outboxSeq`); the projections keep the items still to resubmit and the last block whose
 * receipts are journaled; an item is applied once by its id, so submitting one again is harmless.
 */
export class SettlementDriver {
  /** The last seq whose items are submitted (or had none). */
  private submitted: number;
  /** The last seq handed on (its items in `queue` or submitted, but those of a run of reversals not all seen). */
  private queued: number;
  private readonly items: SettlementItemStream;
  private queue: SettlementItem[] = [];
  /** Items to submit again before anything else, in order. */
  private outstanding: SettlementItem[] = [];
  /**
   * The driver's settlement transactions submitted whose receipts are not yet journaled, oldest first (the
   * hash once the chain gave it). Receipts of transactions mined while the exchange was down are not among them.
   */
  private inFlight: { batch: SettlementBatch; hash: Hash | null }[] = [];
  /** Receipts being journaled: nothing is submitted until they are (they may say what to submit again). */
  private handingOn = 0;
  /** The last block whose receipts were handed on (or had none). */
  private seenBlock = 0;
  /** Receipts the sequencer refused: read back with the next committed batch. */
  private unjournaled = false;
  /** Every item of the entries through this seq has landed or been reversed. */
  private settledSeq: number;
  private waiters: { seq: number; resolve: () => void }[] = [];
  /** Receipts are journaled one block after the other. */
  private receiving: Promise<void> = Promise.resolve();
  private started = false;
  private stopped = false;
  private kickScheduled = false;
  /** The engine's money per account as of `queued` (from the entries' events), for reconciliation. */
  private readonly money = new Map<string, EngineMoney>();
  /** The last seq of the receipts journaled so far (their reversals must reach `queued` to be counted). */
  private journaledThrough = 0;
  private reconcileWaiters: ((report: ReconcileReport) => void)[] = [];
  /** The seq of a stored checkpoint the cursor has yet to reach (`submittedThrough`); 0: none. */
  private checkpointSeq = 0;

  constructor(private readonly o: SettlementDriverOptions) {
    this.submitted = Math.max(o.chain.settlementSubmittedThrough(), o.since - 1);
    this.queued = this.submitted;
    this.settledSeq = this.submitted;
    this.items = new SettlementItemStream(o.walletOf);
  }

  /** The last seq whose items are submitted: a start hands on the entries after it (`submitForBatch`). */
  outboxSeq(): number {
    return this.submitted;
  }

  /** The items of a committed batch's entries after the cursor join the queue (journal order). */
  submitForBatch(batch: Pick<CommittedBatch, 'entries' | 'lastSeq'>): void {
    if (batch.lastSeq <= this.queued) return;
    for (const entry of batch.entries) {
      if (entry.seq <= this.queued) continue;
      this.follow(entry.events);
      if (entry.seq < this.o.since) continue;
      for (const item of this.items.push(entry)) this.queue.push(item);
    }
    this.queued = batch.lastSeq;
    if (this.unjournaled && this.started && !this.stopped) this.catchUp(this.o.chain.headNumber());
    this.reconcileIfQuiet();
    this.kick();
  }

  /** The last seq whose items are all derived: before a run of reversals whose net items are still to come. */
  private derived(): number {
    const open = this.items.openSince();
    return open === null ? this.queued : open - 1;
  }

  /** The engine's money as the events leave it. */
  private follow(events: CommittedBatch['entries'][number]['events']): void {
    for (const e of events) {
      if (e.type === 'balanceChanged') {
        const owed = this.money.get(e.account)?.owed ?? 0n;
        this.money.set(e.account, { available: e.available, escrowed: e.escrowed, owed });
      } else if (e.type === 'debtChanged') {
        const m = this.money.get(e.account) ?? { available: 0n, escrowed: 0n, owed: 0n };
        this.money.set(e.account, { ...m, owed: e.owed });
      }
    }
  }

  /**
   * Reconciliation (issue 33): the engine's money against the chain's, at the next moment the two can be
   * compared exactly: no settlement transaction under way or unjournaled, and every journaled receipt's
   * entries (reversals) followed. At once when the driver is quiet.
   */
  reconcile(): Promise<ReconcileReport> {
    return new Promise((resolve) => {
      this.reconcileWaiters.push(resolve);
      this.reconcileIfQuiet();
    });
  }

  private reconcileIfQuiet(): void {
    // Exact only while every transaction under way is still unmined (a mined one's receipt is not journaled
    // yet: the engine does not know what failed), and every journaled receipt's entries are followed.
    if (this.reconcileWaiters.length === 0 || this.queued < this.journaledThrough) return;
    if (this.handingOn > 0 || this.unjournaled) return;
    if (this.o.chain.pendingSettlements().length !== this.inFlight.length) return;
    const underWay = this.inFlight.flatMap(({ batch }) => [...batch.retries, ...batch.items]);
    const report = reconcile({
      engine: this.money,
      walletOf: this.o.walletOf,
      pool: this.o.chain.escrowAddress,
      chain: this.o.chain.balances(),
      pending: [...underWay, ...this.outstanding, ...this.queue],
    });
    for (const resolve of this.reconcileWaiters.splice(0)) resolve(report);
  }

  /**
   * A checkpoint is stored at `seq`: the chain's cursor is to reach it, so that a start from that checkpoint
   * need not replay the entries before it for the chain's sake (recovery uses a checkpoint only at or before
   * every consumer's cursor). A transaction with items takes the cursor there on its own once the entries
   * through `seq` are handed on; when none comes (no money moves), an empty transaction moves it, at once
   * or at the next quiet moment (`moveCursorToCheckpoint`).
   */
  submittedThrough(seq: number): void {
    this.checkpointSeq = Math.max(this.checkpointSeq, seq);
    this.moveCursorToCheckpoint();
  }

  /**
   * The empty transaction that moves the cursor to the checkpoint's seq, sent only when it says nothing false:
   * every entry through that seq handed on (else their items, still to come, would be skipped by a start:
   * the cursor says they were submitted), none of their items queued, to submit again or under way, no run
   * of reversals open. Else it waits: called again whenever the driver is quiet (`sendNext`).
   */
  private moveCursorToCheckpoint(): void {
    const seq = this.checkpointSeq;
    if (seq <= this.submitted) {
      this.checkpointSeq = 0;
      return;
    }
    if (
      seq > this.queued ||
      this.inFlight.length > 0 ||
      this.queue.length > 0 ||
      this.outstanding.length > 0 ||
      this.items.openSince() !== null
    )
      return;
    this.checkpointSeq = 0;
    this.send({ firstSeq: this.submitted + 1, lastSeq: seq, retries: [], items: [] });
  }

  /** Every item of the entries through `seq` has landed (or its fill was reversed). */
  isSettled(seq: number): boolean {
    return this.settledThrough() >= seq;
  }

  /** Resolves once `isSettled(seq)`. */
  whenSettled(seq: number): Promise<void> {
    if (this.isSettled(seq)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  /** What is not settled yet, for metrics and reconciliation. */
  backlog(): SettlementBacklog {
    return {
      queuedItems: this.queue.length,
      outstandingItems: this.outstanding.length,
      inFlight: this.inFlight.length,
      settledSeq: this.settledThrough(),
    };
  }

  private settledThrough(): number {
    const idle = !this.busy() && this.queue.length === 0 && this.outstanding.length === 0;
    return idle ? this.derived() : this.settledSeq;
  }

  /**
   * Follows the chain: the items to resubmit and the receipts of the blocks after the last journaled one (those
   * mined while the exchange was down), then each new block's. Called once trading has caught up with the
   * journal, before anything else is committed. Returns `stop`. A chain node (ADR 0018) starts while the
   * journal goes on growing (`journalEnded: false`): a run of reversals open at its start is left open,
   * its remaining entries still to come.
   */
  async start(options: { journalEnded?: boolean } = {}): Promise<() => void> {
    this.started = true;
    // The journal ends here (a start hands on every entry first): reversals it lacks will never come.
    if (options.journalEnded !== false) for (const item of this.items.close()) this.queue.push(item);
    this.outstanding = toSubmitAgain(await this.o.feed.outstanding());
    // The projections are at `queued` now: a start catches both up with the journal before this.
    this.money.clear();
    for (const [account, money] of await this.o.feed.balances()) this.money.set(account, money);
    this.seenBlock = await this.o.feed.projectedBlock();
    const pending = this.o.chain.pendingSettlements();
    this.inFlight = pending.map((tx) => ({ batch: tx, hash: tx.hash }));
    for (const tx of pending) this.watch(tx.hash);
    const unsubscribe = this.o.chain.onBlock((block, receipts) => {
      if (!this.stopped) this.onBlock(block, receipts);
    });
    const head = this.o.chain.headNumber();
    if (head > this.seenBlock) this.catchUp(head);
    this.kick();
    return () => {
      this.stopped = true;
      unsubscribe();
    };
  }

  /**
   * Resolves once nothing is queued, outstanding or under way (every committed item landed or reversed and
   * journaled), or after `timeoutMs` (what is left is settled after the next start).
   */
  async idle(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.busy() || this.queue.length > 0 || this.outstanding.length > 0) {
      if (Date.now() >= deadline || this.stopped) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await this.drained();
  }

  /** Resolves once the receipts handed on so far are journaled. */
  async drained(): Promise<void> {
    let last: Promise<void> | undefined;
    while (last !== this.receiving) {
      last = this.receiving;
      await last;
    }
  }

  private kick(): void {
    if (!this.started || this.stopped || this.busy() || this.kickScheduled) return;
    this.kickScheduled = true;
    // Once per turn: the batches of a turn go in one transaction.
    setImmediate(() => {
      this.kickScheduled = false;
      this.sendNext();
    });
  }

  private sendNext(): void {
    if (this.stopped || this.busy()) return;
    if (this.outstanding.length > 0) {
      // Alone: nothing after them goes before they land.
      this.send({
        firstSeq: this.submitted + 1,
        lastSeq: this.submitted,
        retries: this.outstanding,
        items: [],
      });
      return;
    }
    if (this.queue.length === 0) {
      this.moveCursorToCheckpoint();
      this.releaseWaiters();
      return;
    }
    const items = this.queue;
    this.queue = [];
    this.send({ firstSeq: this.submitted + 1, lastSeq: this.derived(), retries: [], items });
  }

  /**
   * A transaction under way, or receipts not journaled yet: the next transaction waits (after a start, the
   * receipts of a transaction mined while the exchange was down may say what to submit again first).
   */
  private busy(): boolean {
    return this.inFlight.length > 0 || this.handingOn > 0 || this.unjournaled;
  }

  private send(batch: SettlementBatch): void {
    const underWay = { batch, hash: null as Hash | null };
    this.inFlight.push(underWay);
    this.submitted = Math.max(this.submitted, batch.lastSeq);
    this.o.chain.submitSettlement(batch).then(
      ({ txHash }) => {
        underWay.hash = txHash;
        this.watch(txHash);
      },
      (error: unknown) => {
        // The chain refused the transaction itself (a malformed batch: a bug); nothing was submitted.
        this.inFlight = this.inFlight.filter((b) => b !== underWay);
        this.o.onError(error);
      },
    );
  }

  /**
   * Asks for a submitted transaction's receipt, besides following the blocks: when its block's announcement
   * never comes (`dropNextBlockAnnouncement`, a listener that missed it), nothing else may ever be mined to
   * reveal the gap (the driver submits nothing more until this receipt is journaled), so its block is read
   * back from the chain at once.
   */
  private watch(txHash: Hash): void {
    this.o.chain.waitForReceipt(txHash).then(
      (receipt) => {
        if (!this.stopped && receipt.blockNumber > this.seenBlock) this.catchUp(receipt.blockNumber);
      },
      (error: unknown) => this.o.onError(error),
    );
  }

  private onBlock(block: ChainBlock, receipts: readonly ChainReceipt[]): void {
    if (block.number <= this.seenBlock) return;
    if (block.number !== this.seenBlock + 1) {
      // A block whose announcement never came (or receipts the sequencer did not take): read them back.
      this.catchUp(block.number);
      return;
    }
    this.seenBlock = block.number;
    this.handOn(block.number - 1, block.number, receipts);
  }

  /** Reads back the receipts of the blocks after the last one handed on, through `through`, and hands them on. */
  private catchUp(through: number): void {
    this.unjournaled = false;
    const after = this.seenBlock;
    this.seenBlock = through;
    this.handOn(after, through, async () =>
      [
        ...(await this.o.chain.receiptsBetween(after, through, 'settle')),
        ...(await this.o.chain.receiptsBetween(after, through, 'escrow')),
      ].sort((x, y) => x.blockNumber - y.blockNumber || x.transactionIndex - y.transactionIndex),
    );
  }

  /**
   * Journals the receipts of the blocks (after, block] (settlement and legacy escrows), given or read back
   * from the chain (in their turn: after the blocks before them are journaled); then the next transaction.
   */
  private handOn(
    after: number,
    block: number,
    receipts: readonly ChainReceipt[] | (() => Promise<readonly ChainReceipt[]>),
  ): void {
    const given = typeof receipts === 'function' ? null : this.inputsOf(block, receipts);
    if (given?.inputs.length === 0 && given.txs.length === 0) return;
    this.handingOn += 1;
    this.receiving = this.receiving.then(async () => {
      let handed: ReturnType<SettlementDriver['inputsOf']>;
      try {
        const all = typeof receipts === 'function' ? await receipts() : receipts;
        handed = given ?? this.inputsOf(block, all);
        if (handed.inputs.length > 0) {
          const entries = await this.o
            .submit(handed.inputs, { after, through: block })
            .catch(async (error) => {
              if (!(error instanceof ReceiptsJournaled)) throw error;
              // Those through `error.through` are journaled (all of them, or the rest go now): done with alike.
              if (error.through >= block) return [];
              const rest = this.inputsOf(
                block,
                all.filter((r) => r.blockNumber > error.through),
              );
              return rest.inputs.length > 0
                ? this.o.submit(rest.inputs, { after: error.through, through: block })
                : [];
            });
          this.journaledThrough = Math.max(this.journaledThrough, entries.at(-1)?.seq ?? 0);
        }
      } catch (error) {
        this.handingOn -= 1;
        // Not read back or not journaled (the sequencer's queue is full): every block after `after` is read
        // back from the chain with the next committed batch, or at the next block, whichever comes first. (No
        // block may come: the driver submits nothing until this receipt is journaled.)
        this.seenBlock = Math.min(this.seenBlock, after);
        this.unjournaled = true;
        this.o.onError(error);
        return;
      }
      this.handingOn -= 1;
      this.applied(handed.txs, handed.hashes);
    });
  }

  /** The sequencer inputs that journal receipts of the blocks through `block`: none when nothing in them settles. */
  private inputsOf(block: number, receipts: readonly ChainReceipt[]) {
    const settled = receipts.filter((r): r is SettleReceipt => r.tx.kind === 'settle');
    const escrows = legacyEscrowsOf(receipts);
    const inputs: SequencerInput[] = [];
    if (escrows.length > 0) inputs.push({ kind: 'escrows', block, escrows });
    const txs = settled.map(settledTx);
    // Journaling a checkpoint's empty transaction would only make the journal end after the checkpoint, and
    // the next stop take another one.
    const moving = txs.filter((_, i) => !movesNothing(settled[i]!.tx));
    if (moving.length > 0) inputs.push({ kind: 'settlement', block, txs: moving });
    for (const tx of txs) {
      for (const item of tx.notLanded) {
        if (isFailedFill(item) && item.fill)
          inputs.push({ kind: 'engine', command: { type: 'reverseFill', fill: fillToReverse(item.fill) } });
      }
    }
    return { inputs, txs, hashes: settled.map((r) => r.transactionHash) };
  }

  /** A receipt is journaled: what did not land is resubmitted next; the waiters of what did are released. */
  private applied(txs: readonly SettledTx[], hashes: readonly Hash[]): void {
    // After a failed fill, the payouts and adjustments that did not land go in its reversal's net items.
    const reversing = startsReversals(txs);
    const final = (item: NotLandedItem) => isFailedFill(item) || (reversing && isAbsorbed(item));
    // Under way no more (a transaction mined while the exchange was down never was).
    this.inFlight = this.inFlight.filter(({ hash }) => hash === null || !hashes.includes(hash));
    for (const tx of txs) {
      // Done with: what landed, and failed fills (the engine reverses them: a fill retried after a skip that
      // fails now must never be submitted again, or it would land after its reversal).
      const done = new Set(tx.landed.map((l) => l.id));
      for (const item of tx.notLanded) if (final(item)) done.add(item.id);
      this.outstanding = this.outstanding.filter((item) => !done.has(item.id));
      for (const item of tx.notLanded) {
        if (final(item)) continue;
        if (!this.outstanding.some((o) => o.id === item.id)) this.outstanding.push(withoutResult(item));
      }
      this.settledSeq = Math.max(this.settledSeq, tx.lastSeq);
    }
    // A skipped fill is not settled until it lands: nothing from its entry on is.
    const unsettled = this.outstanding.find((item) => item.kind === 'fill');
    if (unsettled?.fill) this.settledSeq = Math.min(this.settledSeq, unsettled.fill.seq - 1);
    this.releaseWaiters();
    this.reconcileIfQuiet();
    this.kick();
  }

  private releaseWaiters(): void {
    if (this.waiters.length === 0) return;
    const through = this.settledThrough();
    const waiting: typeof this.waiters = [];
    for (const waiter of this.waiters) {
      if (waiter.seq <= through) waiter.resolve();
      else waiting.push(waiter);
    }
    this.waiters = waiting;
  }
}

/** A mined settlement transaction as the journal records it. */
function settledTx(receipt: SettleReceipt): SettledTx {
  const { tx, items: results } = receipt;
  const all = [...tx.retries, ...tx.items];
  const notLanded: NotLandedItem[] = [];
  const landed: SettledTx['landed'][number][] = [];
  all.forEach((item, i) => {
    const result = results[i]!;
    if (result.status === 'failed' || result.status === 'skipped') {
      notLanded.push({ ...item, status: result.status, error: result.error });
    } else if (i < tx.retries.length) landed.push({ id: item.id, kind: item.kind });
  });
  return { firstSeq: tx.firstSeq, lastSeq: tx.lastSeq, notLanded, landed };
}

/** A fill that failed is final: the engine reverses it. */
function isFailedFill(item: NotLandedItem): boolean {
  return item.kind === 'fill' && item.status === 'failed';
}

function withoutResult(item: NotLandedItem): SettlementItem {
  const { status: _status, error: _error, ...rest } = item;
  return rest;
}
