import type { Address } from '../chain/chain-types.js';
import type { FillReversedEvent, PayoutEvent } from '../engine/index.js';
import type { FillRecord } from '../records/records.js';
import type { EscrowReceipt, NotLandedItem, SettlementInput } from '../sequencer/inputs.js';
import { isAbsorbed, reversalsItemId, startsReversals } from '../settlement/settlement-items.js';
import type { BatchProjection } from './batch-projection.js';
import type { CommittedState, OutstandingItem, PositionKey, ProjectionWrites } from './projection-store.js';

type SettlementWrites = Pick<ProjectionWrites, 'payouts' | 'paid' | 'locks' | 'outstanding' | 'block'>;

/**
 * What the chain's receipts and the reversals they cause change in the projections (issue 33), decided
 * from the rows read before the batch and the batch's own:
 * - a landed settlement transaction moves the watermark of every account with fills in its entries to its
 *   last seq (fills and trades under it show LOCKED: records/shown.ts), but for accounts with a skipped
 *   fill: theirs stops before it until it lands; watermarks only move forward;
 * - payouts of the settlement era are recorded at the resolution and paid when their item lands (a
 *   winner's trades show SETTLED then, not before); the first landing counts;
 * - items that did not land (other than failed fills) are kept, in order, for the driver to submit again;
 * - a reversed fill's rows turn FAILED, and so do the trades they belong to (unless SETTLED);
 * - receipts of escrows (journals from before settlement transactions): a landed one moves its account's
 *   watermark, a failed one fails the fills it covers still MATCHED above it and outside resolved markets,
 *   and their trades.
 */
export class SettlementProjection {
  private readonly payouts: (PositionKey & { seq: number })[] = [];
  private readonly paid = new Map<string, PositionKey & { at: number }>();
  private readonly locks = new Map<string, { account: string; throughSeq: number; at: number }>();
  private readonly outstandingOps: ({ add: OutstandingItem } | { remove: string })[] = [];
  private readonly outstanding: Map<string, string>;
  private readonly resolved = new Set<string>();
  private block: number | null = null;
  private windowAt = 0;
  private matchAt = 0;
  private escrowAt = 0;

  constructor(
    private readonly state: CommittedState,
    private readonly rows: BatchProjection,
    /** The first seq whose payouts the chain pays through settlement transactions. */
    private readonly since: number,
  ) {
    this.outstanding = new Map(state.outstanding.map(({ id, item }) => [id, item]));
  }

  writes(): SettlementWrites {
    return {
      payouts: this.payouts,
      paid: [...this.paid.values()],
      locks: [...this.locks.values()],
      outstanding: this.outstandingOps,
      block: this.block,
    };
  }

  /** A resolution's payout: unpaid until its item lands (payouts of 0 move nothing: none is recorded). */
  payout(seq: number, event: PayoutEvent): void {
    if (seq >= this.since && event.payout > 0n)
      this.payouts.push({ marketHash: event.marketHash, account: event.account, seq });
  }

  /** A market resolved by the batch: its rows are no longer an escrow's to fail. */
  resolvedMarket(marketHash: string): void {
    this.resolved.add(marketHash);
  }

  /** A block's settlement receipts (`seq`, `ts`: the entry's). */
  receipts(input: SettlementInput, seq: number, ts: number): void {
    // After a failed fill, the payouts and adjustments that did not land go in its reversals' net items.
    const reversing = startsReversals(input.txs);
    for (const tx of input.txs) {
      const unpaid = new Set<string>();
      // Retried fills settled (landed, or failed: reversed): their accounts' watermarks may follow them.
      const retriedFills = new Map<string, number>();
      const settledRetry = (id: string) => {
        const fill = outstandingFill(this.outstanding.get(id));
        for (const account of fill ? [fill.makerAccount, fill.takerAccount] : []) {
          retriedFills.set(account, Math.max(retriedFills.get(account) ?? 0, fill!.seq));
        }
      };
      for (const item of tx.notLanded) {
        if (item.kind === 'payout') unpaid.add(item.id);
        if (reversing && isAbsorbed(item)) {
          this.absorb(item, seq);
          continue;
        }
        // A failed fill is reversed (its own entry follows) and never submitted again, also when it failed as
        // the retry of a skipped one; anything else is submitted again.
        if (item.kind === 'fill' && item.status === 'failed') {
          if (this.outstanding.has(item.id)) {
            settledRetry(item.id);
            this.outstanding.delete(item.id);
            this.outstandingOps.push({ remove: item.id });
          }
          continue;
        }
        if (!this.outstanding.has(item.id)) {
          const json = JSON.stringify(item, bigints);
          this.outstanding.set(item.id, json);
          this.outstandingOps.push({ add: { id: item.id, item: json } });
        }
      }
      // Retried items that landed: a payout is paid; a fill lets its accounts' watermarks follow it.
      for (const { id, kind } of tx.landed) {
        if (kind === 'payout') {
          const [, marketHash, account] = id.split(':');
          this.pay(marketHash!, account!, ts);
        } else if (kind === 'fill') settledRetry(id);
        this.outstanding.delete(id);
        this.outstandingOps.push({ remove: id });
        this.payVia((via) => via === id, ts);
      }
      // Net items of runs of reversals in the window that landed pay the payouts they took in.
      if (tx.firstSeq <= tx.lastSeq) {
        const failed = new Set(tx.notLanded.map((item) => item.id));
        this.payVia((via) => {
          const run = Number(via.split(':')[1]);
          return run >= tx.firstSeq && run <= tx.lastSeq && !failed.has(via);
        }, ts);
      }
      // Accounts with a fill still outstanding: their watermark stays below the first one.
      const held = new Map<string, number>();
      for (const [id, json] of this.outstanding) {
        if (!id.startsWith('fill:')) continue;
        const fill = outstandingFill(json)!;
        for (const account of [fill.makerAccount, fill.takerAccount]) {
          held.set(account, Math.min(held.get(account) ?? Number.POSITIVE_INFINITY, fill.seq));
        }
      }
      if (tx.firstSeq <= tx.lastSeq) {
        const window = this.state.windows[this.windowAt++]!;
        const inWindow = (f: FillRecord) => f.seq >= tx.firstSeq && f.seq <= tx.lastSeq;
        const accounts = new Set([
          ...window.accounts,
          ...this.rows.batchFills(inWindow).map((f) => f.account),
        ]);
        for (const account of accounts) if (!held.has(account)) this.raise(account, tx.lastSeq, ts);
        const recorded = this.payouts.filter((p) => p.seq >= tx.firstSeq && p.seq <= tx.lastSeq);
        for (const { marketHash, account } of [...window.unpaid, ...recorded]) {
          if (!unpaid.has(`payout:${marketHash}:${account}`)) this.pay(marketHash, account, ts);
        }
      }
      for (const [account, seq] of retriedFills) if (!held.has(account)) this.raise(account, seq, ts);
      for (const [account, first] of held) this.raise(account, first - 1, ts);
    }
    this.moveBlock(input.block);
  }

  /**
   * A payout or adjustment that did not land beside a failed fill goes in the net item of its wallet in the
   * run of reversals after `seq` (`SettlementItemStream`): not to submit again. A payout is kept, unpaid, with
   * that item's id (`via`, never submitted itself: `toSubmitAgain`) until it lands; so are the payouts of an
   * earlier net item taken in the same way.
   */
  private absorb(item: NotLandedItem, seq: number): void {
    if (this.outstanding.delete(item.id)) this.outstandingOps.push({ remove: item.id });
    if (item.kind === 'payout') {
      const release = item.moves.find((m) => m.kind === 'release')!;
      const { status: _status, error: _error, ...payout } = item;
      this.keep(item.id, { ...payout, via: reversalsItemId(seq, release.to as Address) });
    }
    for (const [id, json] of [...this.outstanding]) {
      const payout = viaPayout(json);
      if (payout?.via !== item.id) continue;
      this.outstanding.delete(id);
      this.outstandingOps.push({ remove: id });
      const release = payout.moves.find((m) => m.kind === 'release')!;
      this.keep(id, { ...payout, via: reversalsItemId(seq, release.to) });
    }
  }

  private keep(id: string, item: object): void {
    const json = JSON.stringify(item, bigints);
    this.outstanding.set(id, json);
    this.outstandingOps.push({ add: { id, item: json } });
  }

  /** Pays the payouts kept for a net item that landed. */
  private payVia(landed: (via: string) => boolean, at: number): void {
    for (const [id, json] of [...this.outstanding]) {
      const payout = viaPayout(json);
      if (!payout || !landed(payout.via)) continue;
      const [, marketHash, account] = id.split(':');
      this.pay(marketHash!, account!, at);
      this.outstanding.delete(id);
      this.outstandingOps.push({ remove: id });
    }
  }

  /** A reversed fill: the match's rows FAILED, and the trades of those that were MATCHED. */
  reversed(event: FillReversedEvent): void {
    const read = this.state.matches[this.matchAt++]!;
    const seq = Number.parseInt(event.matchId, 10);
    const ofMatch = (f: FillRecord) => f.seq === seq && f.matchId === event.matchId;
    const fills = [...read.fills.filter(ofMatch), ...this.rows.batchFills(ofMatch)];
    const tradeIds = new Set<string>();
    for (const fill of fills) {
      if (fill.status !== 'MATCHED') {
        this.rows.showFill(fill);
        continue;
      }
      this.rows.failFill(fill);
      tradeIds.add(fill.tradeId);
    }
    for (const tradeId of tradeIds) this.rows.failTrade(tradeId);
  }

  /** An escrow's receipt: a landed one moves its account's watermark, a failed one fails what it covers. */
  escrow(escrow: EscrowReceipt, ts: number): void {
    const read = this.state.escrows[this.escrowAt++]!;
    const account = 'account' in escrow ? escrow.account : read.fills[0]?.account;
    const lock = Math.max(
      read.lockThroughSeq ?? -1,
      account ? (this.locks.get(account)?.throughSeq ?? -1) : -1,
    );
    const resolved = new Set([...read.resolvedMarkets, ...this.resolved]);
    const covered = (f: FillRecord) =>
      'fillId' in escrow
        ? f.id === escrow.fillId && f.seq === Number.parseInt(escrow.fillId, 10)
        : f.account === escrow.account && f.seq >= escrow.firstSeq && f.seq <= escrow.lastSeq;
    // Fills still MATCHED, not yet under their account's watermark (a receipt applied again finds none),
    // nor in a resolved market (they show SETTLED, for good).
    const open = [...read.fills.filter(covered), ...this.rows.batchFills(covered)].filter(
      (f) => f.status === 'MATCHED' && f.seq > lock && !resolved.has(f.marketHash),
    );
    if (escrow.ok) {
      const last = open[open.length - 1];
      if (last) this.raise(last.account, 'fillId' in escrow ? last.seq : escrow.lastSeq, ts);
      return;
    }
    const tradeIds = new Set<string>();
    for (const fill of open) {
      this.rows.failFill(fill);
      tradeIds.add(fill.tradeId);
    }
    for (const tradeId of tradeIds) {
      const trade = read.trades.find((t) => t.row.id === tradeId);
      if (trade && !resolved.has(trade.row.marketHash)) this.rows.failTrade(tradeId);
    }
  }

  /** A block whose escrow receipts were applied (null: a refused submission's). */
  escrowBlock(block: number | null): void {
    if (block !== null) this.moveBlock(block);
  }

  private moveBlock(block: number): void {
    this.block = Math.max(this.block ?? 0, block);
  }

  private pay(marketHash: string, account: string, at: number): void {
    const key = `${marketHash}|${account}`;
    if (!this.paid.has(key)) this.paid.set(key, { marketHash, account, at });
  }

  private raise(account: string, throughSeq: number, at: number): void {
    const lock = this.locks.get(account);
    if (!lock || throughSeq > lock.throughSeq) this.locks.set(account, { account, throughSeq, at });
  }
}

/** A payout kept until the net item it went in lands (`via`), or undefined. */
function viaPayout(json: string) {
  if (!json.includes('"via"')) return undefined;
  const item = JSON.parse(json) as { via?: string; moves: { kind: string; to: Address }[] };
  return item.via === undefined ? undefined : (item as typeof item & { via: string });
}

function outstandingFill(json: string | undefined) {
  if (json === undefined) return undefined;
  return (JSON.parse(json) as { fill?: { seq: number; makerAccount: string; takerAccount: string } }).fill;
}

const bigints = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);
