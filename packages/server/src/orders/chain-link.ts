import type { Database } from 'better-sqlite3';
import type { Chain } from '../chain/chain.js';
import type { ChainReceipt } from '../chain/chain-types.js';
import type { AppliedEntry } from '../sequencer/inputs.js';
import { fillIdOf } from '../store/sqlite/sqlite-trading-store.js';

/** Memos that tie chain transactions to exchange records. */
export const chainMemo = {
  escrow: (fillId: string) => `fill:${fillId}`,
  payout: (marketHash: string, account: string) => `payout:${marketHash}:${account}`,
  deposit: (seq: number) => `deposit:${seq}`,
  withdrawal: (seq: number) => `withdrawal:${seq}`,
} as const;

export type FillLockUpdate = {
  fillId: string;
  tradeId: string;
  account: string;
  status: 'LOCKED' | 'FAILED';
};

/**
 * The money side of trading on the chain:
 * - inside each batch's transaction, the chain transactions that batch implies are submitted: escrow of
 *   both stakes of every match, payouts of resolved markets, deposits. The embedded chain keeps its
 *   mempool in the same database, so a committed batch and its chain transactions are one atomic write.
 * - when an escrow transaction lands, its fill turns LOCKED (FAILED if it failed), and the trade turns
 *   LOCKED once none of its fills is still MATCHED.
 */
export class ChainLink {
  private readonly lockFill;
  private readonly failFill;
  private readonly tradeOfFill;
  private readonly lockTrade;
  private readonly failTrade;
  private readonly listeners: ((updates: readonly FillLockUpdate[]) => void)[] = [];

  constructor(
    private readonly db: Database,
    private readonly chain: Chain,
    private readonly walletOf: (account: `0x${string}`) => `0x${string}`,
    /** A submission the chain refused: a broken invariant (stakes are always positive), reported loudly. */
    private readonly onSubmitError: (error: unknown) => void = (error) =>
      console.error('chain submission refused', error),
  ) {
    this.lockFill = db.prepare(
      "UPDATE fills SET status = 'LOCKED', updated_at = ? WHERE id = ? AND status = 'MATCHED'",
    );
    this.failFill = db.prepare(
      "UPDATE fills SET status = 'FAILED', updated_at = ? WHERE id = ? AND status = 'MATCHED'",
    );
    this.tradeOfFill = db.prepare('SELECT trade_id, account FROM fills WHERE id = ?');
    this.lockTrade = db.prepare(`UPDATE trades SET status = 'LOCKED', updated_at = ?
      WHERE id = ? AND status = 'MATCHED'
        AND NOT EXISTS (SELECT 1 FROM fills WHERE trade_id = ? AND status = 'MATCHED')`);
    this.failTrade = db.prepare(
      "UPDATE trades SET status = 'FAILED', updated_at = ? WHERE id = ? AND status <> 'SETTLED'",
    );
  }

  /** Listens for fills (and their trades) changing status on the chain's word. */
  onLockUpdates(listener: (updates: readonly FillLockUpdate[]) => void): void {
    this.listeners.push(listener);
  }

  /** Called inside the batch's database transaction, after its projections. */
  submitForBatch(entries: readonly AppliedEntry[]): void {
    const wallet = (account: string) => this.walletOf(account as `0x${string}`);
    for (const entry of entries) {
      for (const event of entry.events) {
        if (event.type === 'orderMatched') {
          const { matchId } = event;
          this.track(
            this.chain.escrow(
              wallet(event.makerAccount),
              event.makerStake,
              chainMemo.escrow(fillIdOf(matchId, 'maker')),
            ),
          );
          this.track(
            this.chain.escrow(
              wallet(event.takerAccount),
              event.takerStake,
              chainMemo.escrow(fillIdOf(matchId, 'taker')),
            ),
          );
        } else if (event.type === 'payout' && event.payout > 0n) {
          this.track(
            this.chain.release(
              wallet(event.account),
              event.payout,
              chainMemo.payout(event.marketHash, event.account),
            ),
          );
        } else if (event.type === 'balanceChanged' && entry.input.kind === 'engine') {
          const command = entry.input.command;
          if (command.type === 'credit' && command.account === event.account) {
            this.track(this.chain.mint(wallet(event.account), command.amount, chainMemo.deposit(entry.seq)));
          }
        }
      }
    }
  }

  private track(submission: Promise<unknown>): void {
    submission.catch(this.onSubmitError);
  }

  /** Subscribes to receipts and applies those that landed while the exchange was down. */
  start(now: () => number): () => void {
    // Once per block, not per receipt: one transaction (one fsync) for all of a block's fills.
    const unsubscribe = this.chain.onBlock((_block, receipts) => this.applyReceipts(receipts, now()));
    // Escrows whose receipts arrived before a crash but after the last fill update.
    const landed = this.db
      .prepare(
        `SELECT substr(json_extract(t.payload, '$.memo'), 6) AS fill_id, r.status
           FROM chain_transactions t JOIN chain_receipts r ON r.tx_hash = t.hash
          WHERE t.kind = 'escrow' AND json_extract(t.payload, '$.memo') IN
                (SELECT 'fill:' || id FROM fills WHERE status = 'MATCHED')`,
      )
      .all() as { fill_id: string; status: 'success' | 'failed' }[];
    if (landed.length)
      this.apply(
        landed.map((r) => ({ fillId: r.fill_id, ok: r.status === 'success' })),
        now(),
      );
    return unsubscribe;
  }

  private applyReceipts(receipts: readonly ChainReceipt[], now: number): void {
    const fills = receipts.flatMap((r) =>
      r.tx.kind === 'escrow' && r.tx.memo?.startsWith('fill:')
        ? [{ fillId: r.tx.memo.slice('fill:'.length), ok: r.status === 'success' }]
        : [],
    );
    if (fills.length) this.apply(fills, now);
  }

  private apply(fills: readonly { fillId: string; ok: boolean }[], now: number): void {
    const updates: FillLockUpdate[] = [];
    this.db.transaction(() => {
      for (const { fillId, ok } of fills) {
        const changed = (ok ? this.lockFill : this.failFill).run(now, fillId).changes;
        if (!changed) continue;
        const fill = this.tradeOfFill.get(fillId) as { trade_id: string; account: string };
        if (ok) this.lockTrade.run(now, fill.trade_id, fill.trade_id);
        else this.failTrade.run(now, fill.trade_id);
        updates.push({
          fillId,
          tradeId: fill.trade_id,
          account: fill.account,
          status: ok ? 'LOCKED' : 'FAILED',
        });
      }
    })();
    if (updates.length) for (const listener of this.listeners) listener(updates);
  }
}
