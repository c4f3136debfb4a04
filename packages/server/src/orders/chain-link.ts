import type { Chain, ChainHistory, TokenTxRequest } from '../chain/chain.js';
import type { ChainBlock, ChainReceipt } from '../chain/chain-types.js';
import type { CommittedBatch } from '../sequencer/committed-batch.js';
import type { AppliedEntry, EscrowFills, EscrowReceipt, SequencerInput } from '../sequencer/inputs.js';
import type { EscrowFeed } from '../store/escrow-feed.js';

/** Memos that tie chain transactions to exchange records. */
export const chainMemo = {
  /**
   * The stakes of one account in one sequencer batch: its fills with `seq` in [firstSeq, lastSeq] (the
   * seqs of its first and last match in the batch; a batch's seqs are its own, so no other fill is in range).
   */
  escrow: (account: string, firstSeq: number, lastSeq: number) => `escrow:${account}:${firstSeq}-${lastSeq}`,
  payout: (marketHash: string, account: string) => `payout:${marketHash}:${account}`,
  /** The capital-efficiency refunds of one account with seq in [firstSeq, lastSeq] (their sum). */
  ceRefund: (account: string, firstSeq: number, lastSeq: number) => `ce:${account}:${firstSeq}-${lastSeq}`,
  deposit: (seq: number) => `deposit:${seq}`,
  withdrawal: (seq: number) => `withdrawal:${seq}`,
} as const;

/** The fills an escrow memo stands for; `fill:<id>` is the one-escrow-per-fill memo of older data dirs. */
export function parseEscrowMemo(memo: string | null): EscrowFills | null {
  if (!memo) return null;
  if (memo.startsWith('escrow:')) {
    const colon = memo.lastIndexOf(':');
    const range = memo.slice(colon + 1).match(/^(\d+)-(\d+)$/);
    const account = memo.slice('escrow:'.length, colon);
    if (!range || !account) return null;
    return { account, firstSeq: Number(range[1]), lastSeq: Number(range[2]) };
  }
  if (memo.startsWith('fill:')) return { fillId: memo.slice('fill:'.length) };
  return null;
}

/** The chain's escrow receipts as a sequencer input. */
export type EscrowsInput = Extract<SequencerInput, { kind: 'escrows' }>;

/** Where the receipts go: the sequencer (`trading.sequencer.submit`), which journals them like any input. */
export type SubmitReceipts = (input: EscrowsInput) => Promise<unknown>;

/** Chain requests of committed batches: a payout's step first escrows the fills before its seq. */
type OutboxStep = { escrowsBefore: number | null; requests: TokenTxRequest[] };

/** A submission made in the write under way, and its requests. */
type Sent = { requests: readonly TokenTxRequest[]; result: Promise<unknown> };

/**
 * The money side of trading on the chain. It writes no trading state: what the chain says of escrows
 * goes to the sequencer as an input, and the projector applies it.
 * - escrow: the stakes of the fills committed since the last flush, one escrow per account (the sum of its
 *   stakes, maker and taker sides), submitted together with `submitMany` by `flush`: on a timer (about twice
 *   per block, so a block carries each account's escrow once, whatever the number of batches) and before
 *   any payout. What was flushed is the projected fills up to the link's own durable cursor on them
 *   (`EscrowFeed.escrowedThrough`), written in the same transaction as the submissions: a fill is
 *   escrowed exactly once, also across a crash (the first flush after a start covers the fills committed
 *   before it).
 * - refunds: the engine moved each `ceRefund` from the account's escrow to its available balance at once;
 *   the chain releases it from escrow to the account's wallet with the same flush, right after its escrows
 *   (which cover the refund's own fill): one release per account of its projected refunds since the last
 *   flush (memo `ce:<account>:<firstSeq>-<lastSeq>`), with a cursor of its own (`EscrowFeed.releasedThrough`)
 *   in the same write, so exactly once across a crash too. A release paid later than the engine's refund
 *   only leaves escrow holding more meanwhile.
 * - for each committed batch (once projected), the other chain transactions that batch implies: payouts of
 *   resolved markets (after a flush of the fills before them) and deposits, written with the outbox cursor
 *   (the last seq whose requests are submitted) in one write: a start submits those of the batches after
 *   it again (`submitForBatch` with the replayed entries), and none twice.
 * - receipts: each block's escrow receipts, in chain order, are submitted as one `escrows` input (a block
 *   without escrows, none). The projector moves the accounts' watermarks for landed escrows and fails the
 *   fills and trades of failed ones, and records the block's number with them (`EscrowFeed.projectedBlock`):
 *   a start submits the receipts of the blocks after it, e.g. those that landed while the exchange was down.
 *   A submission the chain refused (its flush committed: the cursor has passed its fills, no later flush
 *   covers them) is submitted as failed escrows (`block` null): its fills turn FAILED. Receipts the
 *   sequencer does not take are submitted again with the next block (a block's, from the stored receipts).
 */
export class ChainLink {
  /** The last seq whose chain requests are submitted. */
  private outboxCursor: number;
  /** The last block whose escrow receipts are submitted (or had none). */
  private cursor = 0;
  private submitReceipts: SubmitReceipts | null = null;
  /** Submissions of the write under way (null: none under way). */
  private sent: Sent[] | null = null;
  /** Refused submissions whose failed escrows are not yet submitted. */
  private readonly refusing = new Set<Promise<unknown>>();
  /** Failed escrows of refused submissions the sequencer did not take: submitted again with the next block. */
  private unsent: EscrowReceipt[] = [];

  constructor(
    private readonly feed: EscrowFeed,
    /** The embedded chain: its stored blocks are read at a start and when a block was missed. */
    private readonly chain: Pick<Chain, 'submitMany' | 'onBlock'> & ChainHistory,
    private readonly walletOf: (account: `0x${string}`) => `0x${string}`,
    /**
     * A submission the chain refused (a broken invariant: stakes are always positive), or receipts the
     * sequencer did not take (the next block catches up): reported loudly.
     */
    private readonly onSubmitError: (error: unknown) => void = (error) =>
      console.error('chain submission refused', error),
  ) {
    this.outboxCursor = feed.outboxSeq();
  }

  /** The last seq whose chain requests (payouts, deposits) are submitted. */
  outboxSeq(): number {
    return this.outboxCursor;
  }

  /**
   * The chain requests of a committed batch, once it is projected: payouts (each after an escrow flush of
   * the fills before it, which it may pay from) and deposits, with the outbox cursor in one write. Entries at
   * or below the cursor are skipped. Escrows and refunds wait for `flush`.
   */
  submitForBatch(batch: Pick<CommittedBatch, 'entries' | 'lastSeq'>): void {
    if (batch.lastSeq <= this.outboxCursor) return;
    // Only a batch replayed at a start can straddle the cursor: a live one is wholly after it.
    const first = batch.entries[0];
    const fresh =
      first && first.seq > this.outboxCursor
        ? batch.entries
        : batch.entries.filter((e) => e.seq > this.outboxCursor);
    const steps = this.outboxOf(fresh);
    // A batch without chain requests leaves the cursor (a checkpoint moves it: `submittedThrough`).
    if (steps.length === 0) return;
    // Not waiting for the disk: a write lost to a power cut takes the submissions and the cursor with it (the
    // WAL keeps a prefix of the commits), and the start submits them again from the journal.
    this.sending(() =>
      this.feed.atomically(() => {
        for (const { escrowsBefore, requests } of steps) {
          if (escrowsBefore !== null) this.submitEscrows(escrowsBefore);
          if (requests.length > 0) this.submit(requests);
        }
        this.feed.setOutboxSeq(batch.lastSeq);
      }),
    );
    this.outboxCursor = batch.lastSeq;
  }

  /** Every batch through `seq` has been consumed (a checkpoint at `seq`): none is submitted again. */
  submittedThrough(seq: number): void {
    if (seq <= this.outboxCursor) return;
    this.feed.setOutboxSeq(seq);
    this.outboxCursor = seq;
  }

  private outboxOf(entries: readonly AppliedEntry[]): OutboxStep[] {
    const wallet = (account: string) => this.walletOf(account as `0x${string}`);
    const steps: OutboxStep[] = [];
    let current = null as OutboxStep | null;
    /** The step for requests that must follow the escrows of the fills with seq < `escrowsBefore`. */
    const stepAfterEscrows = (escrowsBefore: number): OutboxStep => {
      if (current?.escrowsBefore !== escrowsBefore) {
        current = { escrowsBefore, requests: [] };
        steps.push(current);
      }
      return current;
    };
    for (const entry of entries) {
      for (const event of entry.events) {
        if (event.type === 'payout' && event.payout > 0n) {
          // A resolution's payouts go together, after the escrows of the fills before it.
          stepAfterEscrows(entry.seq).requests.push({
            kind: 'release',
            to: wallet(event.account),
            amount: event.payout,
            memo: chainMemo.payout(event.marketHash, event.account),
          });
        } else if (event.type === 'balanceChanged' && entry.input.kind === 'engine') {
          const command = entry.input.command;
          // A deposit only adds money: it may go before escrows of earlier fills.
          if (command.type === 'credit' && command.account === event.account) {
            if (!current) {
              current = { escrowsBefore: null, requests: [] };
              steps.push(current);
            }
            current.requests.push({
              kind: 'mint',
              to: wallet(event.account),
              amount: command.amount,
              memo: chainMemo.deposit(entry.seq),
            });
          }
        }
      }
    }
    return steps;
  }

  /**
   * Submits the escrows of every fill committed since the last flush, one per account, then the releases of
   * the refunds committed since (their fills among those escrows), one per account, in one write.
   */
  flush(): void {
    // Not waiting for the disk (on the event loop): a flush lost to a power cut is not in any block either
    // (blocks are synced) and the first flush after the start submits those fills again.
    this.sending(() =>
      this.feed.atomically(() => {
        this.submitEscrows(Number.MAX_SAFE_INTEGER);
        this.submitRefunds();
      }),
    );
  }

  /** Releases the refunds after the refund cursor, one per account; moves the cursor past them. */
  private submitRefunds(): void {
    const refunds = this.feed.unreleasedRefunds();
    if (refunds.length === 0) return;
    const requests: TokenTxRequest[] = [];
    for (const [account, s] of sumsPerAccount(refunds, (refund) => refund.amount)) {
      requests.push({
        kind: 'release',
        to: this.walletOf(account as `0x${string}`),
        amount: s.amount,
        memo: chainMemo.ceRefund(account, s.firstSeq, s.lastSeq),
      });
    }
    this.submit(requests);
    this.feed.releasedThrough(refunds[refunds.length - 1]!.seq);
  }

  /** Escrows of the fills after the cursor with seq < `beforeSeq`; moves the cursor past them. */
  private submitEscrows(beforeSeq: number): void {
    const fills = this.feed.unescrowedFills(beforeSeq);
    if (fills.length === 0) return;
    // Fills are projected in seq order, so two flushes' ranges of one account never interleave.
    const requests: TokenTxRequest[] = [];
    for (const [account, s] of sumsPerAccount(fills, (fill) => fill.stake)) {
      requests.push({
        kind: 'escrow',
        from: this.walletOf(account as `0x${string}`),
        amount: s.amount,
        memo: chainMemo.escrow(account, s.firstSeq, s.lastSeq),
      });
    }
    this.submit(requests);
    this.feed.escrowedThrough(fills[fills.length - 1]!.position);
  }

  private submit(requests: readonly TokenTxRequest[]): void {
    const result = this.chain.submitMany(requests);
    if (this.sent) this.sent.push({ requests, result });
    else result.catch(this.onSubmitError);
  }

  /**
   * Runs a write that submits to the chain; once it has committed or rolled back, watches its submissions.
   * One the chain refused (all of it: submitMany is all or none) after its write committed has moved the
   * escrowed-fills cursor past its escrows' fills, so no later flush covers them: they turn FAILED, as if
   * the escrow had failed on chain, instead of staying MATCHED for ever. After a write that rolled back,
   * its fills are left to the next flush, which escrows them again: the refusal is only reported, as is a
   * refused payout or deposit (no fill to mark).
   */
  private sending(write: () => void): void {
    const sent: Sent[] = [];
    this.sent = sent;
    let committed = false;
    try {
      write();
      committed = true;
    } finally {
      this.sent = null;
      for (const { requests, result } of sent) {
        const refused = result.then(
          () => {},
          (error: unknown) => {
            if (committed) this.failRefusedEscrows(requests);
            this.onSubmitError(error);
          },
        );
        this.refusing.add(refused);
        const done = () => this.refusing.delete(refused);
        refused.then(done, done);
      }
    }
  }

  /** Resolves once the chain has answered every submission so far (and refusals are submitted). */
  async settled(): Promise<void> {
    while (this.refusing.size > 0) await Promise.allSettled([...this.refusing]);
  }

  /** A refused submission's escrows, submitted as failed. */
  private failRefusedEscrows(requests: readonly TokenTxRequest[]): void {
    const escrows: EscrowReceipt[] = [];
    for (const request of requests) {
      const fills = request.kind === 'escrow' ? parseEscrowMemo(request.memo ?? null) : null;
      if (fills) escrows.push({ ...fills, ok: false });
    }
    if (escrows.length > 0) this.sendRefused(escrows);
  }

  /** Failed escrows (with those not taken before), until the sequencer takes them. */
  private sendRefused(escrows: readonly EscrowReceipt[]): void {
    const all = [...this.unsent, ...escrows];
    this.unsent = [];
    if (!this.sendReceipts(null, all, () => this.unsent.push(...all))) this.unsent.push(...all);
  }

  /**
   * Flushes the escrows of committed fills now (those of before a crash too) and then every `flushMs`;
   * submits the receipts of the blocks that landed after the last one the projections applied (read once
   * the projector has caught up with the journal), then each new block's, through `submit`.
   */
  start(submit: SubmitReceipts, flushMs: number): () => void {
    this.submitReceipts = submit;
    this.cursor = this.feed.projectedBlock();
    let stopped = false;
    this.flush();
    const flushTimer = setInterval(() => {
      try {
        // Behind the write gate: while the WAL checkpointer restarts the WAL, off the event loop.
        const written = this.feed.whenWritable(() => {
          if (!stopped) this.flush();
        });
        if (written instanceof Promise) written.catch(this.onSubmitError);
      } catch (error) {
        this.onSubmitError(error);
      }
    }, flushMs);
    flushTimer.unref();
    const unsubscribe = this.chain.onBlock((block, receipts) => {
      if (!stopped) this.onBlock(block, receipts);
    });
    // Escrows whose receipts arrived while the exchange was down (or before a crash, before the projector
    // applied them): one input for all of them.
    const head = this.chain.headNumber();
    if (head > this.cursor) this.catchUp(head);
    return () => {
      stopped = true;
      clearInterval(flushTimer);
      unsubscribe();
    };
  }

  private onBlock(block: ChainBlock, receipts: readonly ChainReceipt[]): void {
    if (this.unsent.length > 0) this.sendRefused([]);
    if (block.number <= this.cursor) return;
    if (block.number !== this.cursor + 1) {
      // Receipts the sequencer did not take: catch up from the stored ones, this block's included.
      this.catchUp(block.number);
      return;
    }
    this.submitBlock(block.number, escrowsOf(receipts));
  }

  /** The escrow receipts of the blocks after the cursor through `through`, as one input. */
  private catchUp(through: number): void {
    this.submitBlock(through, escrowsOf(this.chain.receiptsBetween(this.cursor, through, 'escrow')));
  }

  /**
   * Submits a block's receipts and moves the cursor to it; a block without escrows only moves the cursor
   * (the projected one moves with the next receipts: a restart re-reads a few empty blocks). Receipts the
   * sequencer does not take leave the cursor (or put it back) before the block: the next one catches up.
   */
  private submitBlock(block: number, escrows: readonly EscrowReceipt[]): void {
    const before = this.cursor;
    if (
      escrows.length > 0 &&
      !this.sendReceipts(block, escrows, () => {
        this.cursor = Math.min(this.cursor, before);
      })
    )
      return;
    this.cursor = block;
  }

  /** Submits receipts to the sequencer; false (reported) when it does not take them. */
  private sendReceipts(
    block: number | null,
    escrows: readonly EscrowReceipt[],
    onRefused?: () => void,
  ): boolean {
    const submit = this.submitReceipts;
    if (!submit) {
      this.onSubmitError(new Error('escrow receipts before the chain link started'));
      return false;
    }
    try {
      submit({ kind: 'escrows', block, escrows }).catch((error: unknown) => {
        onRefused?.();
        this.onSubmitError(error);
      });
      return true;
    } catch (error) {
      this.onSubmitError(error);
      return false;
    }
  }
}

/**
 * The amounts of `items` (in seq order) summed per account, in order of each account's first item, with
 * the seqs of its first and last: what one escrow or release per account stands for (its memo's range).
 */
function sumsPerAccount<T extends { account: string; seq: number }>(
  items: readonly T[],
  amountOf: (item: T) => bigint,
): Map<string, { amount: bigint; firstSeq: number; lastSeq: number }> {
  const sums = new Map<string, { amount: bigint; firstSeq: number; lastSeq: number }>();
  for (const item of items) {
    const s = sums.get(item.account);
    if (s) {
      s.amount += amountOf(item);
      s.lastSeq = item.seq;
    } else sums.set(item.account, { amount: amountOf(item), firstSeq: item.seq, lastSeq: item.seq });
  }
  return sums;
}

/** The escrow receipts among a block's receipts (in their order), as the sequencer takes them. */
function escrowsOf(receipts: readonly ChainReceipt[]): EscrowReceipt[] {
  const escrows: EscrowReceipt[] = [];
  for (const r of receipts) {
    const fills = r.tx.kind === 'escrow' ? parseEscrowMemo(r.tx.memo) : null;
    if (fills) escrows.push({ ...fills, ok: r.status === 'success' });
  }
  return escrows;
}
