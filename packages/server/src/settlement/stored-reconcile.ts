import type { Address, SettleTx } from '../chain/chain-types.js';
import type { EmbeddedChain } from '../chain/embedded-chain.js';
import { movesNothing, type SettlementItem } from '../chain/settlement-types.js';
import type { Journal } from '../sequencer/journal.js';
import { recoverEngine } from '../sequencer/recovery.js';
import { type EngineMoney, type ReconcileReport, reconcile } from './reconcile.js';
import { type SettlementFeed, toSubmitAgain } from './settlement-feed.js';
import { SettlementItemStream } from './settlement-items.js';

/**
 * Reconciliation of a stopped exchange's data dir (`oddsbook replay`): the engine rebuilt from the journal
 * against the chain's stored state, counting as pending what the chain has not mined (its mempool), what
 * must be submitted again (the projections' outstanding items) and what was never submitted (the entries
 * after the chain's settlement cursor). Receipts mined but not journaled yet (the next start journals them)
 * may show as differences: they are counted in `unjournaledReceipts`.
 */
export async function reconcileStored(o: {
  journal: Pick<Journal, 'after' | 'latestCheckpoint' | 'features'>;
  chain: Pick<
    EmbeddedChain,
    | 'settlementSubmittedThrough'
    | 'pendingSettlements'
    | 'balances'
    | 'escrowAddress'
    | 'proxyAddressFor'
    | 'headNumber'
    | 'receiptsBetween'
  >;
  feed: SettlementFeed;
  ladderSize: number;
}): Promise<{ report: ReconcileReport; unjournaledReceipts: number }> {
  const since = o.journal.features.chainSettlement;
  const cursor = Math.max(o.chain.settlementSubmittedThrough(), since - 1);
  const walletOf = (account: string) => o.chain.proxyAddressFor(account as Address);
  const unsubmitted: SettlementItem[] = [];
  const items = new SettlementItemStream(walletOf);
  const { engine } = await recoverEngine(o.journal, o.ladderSize, {
    after: cursor,
    onEntries: (entries) => {
      for (const entry of entries) if (entry.seq >= since) unsubmitted.push(...items.push(entry));
    },
  });
  unsubmitted.push(...items.close());
  const money = new Map<string, EngineMoney>();
  for (const [account, available, escrowed, owed] of engine.snapshot().accounts) {
    money.set(account, {
      available: BigInt(available),
      escrowed: BigInt(escrowed),
      owed: BigInt(owed ?? '0'),
    });
  }
  const underWay = o.chain.pendingSettlements().flatMap((tx) => [...tx.retries, ...tx.items]);
  const report = reconcile({
    engine: money,
    walletOf,
    pool: o.chain.escrowAddress,
    chain: o.chain.balances(),
    pending: [...underWay, ...toSubmitAgain(await o.feed.outstanding()), ...unsubmitted],
  });
  const unjournaledReceipts = (
    await o.chain.receiptsBetween(await o.feed.projectedBlock(), o.chain.headNumber(), 'settle')
  ).filter((receipt) => !movesNothing(receipt.tx as SettleTx)).length;
  return { report, unjournaledReceipts };
}
