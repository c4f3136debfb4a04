import type { LandedItem } from './chain-store.js';
import type { Address, SettleTx } from './chain-types.js';
import type {
  SettlementFaultClass,
  SettlementItem,
  SettlementItemKind,
  SettlementItemResult,
  SettlementItemStatus,
  SettlementMove,
} from './settlement-types.js';

/** The class of faults an item is subject to (`ChainFaults.failNextSettlementItems`). */
export const FAULT_CLASS_OF: Readonly<Record<SettlementItemKind, SettlementFaultClass>> = {
  fill: 'escrow',
  adjustment: 'release',
  payout: 'payout',
  deposit: 'deposit',
};

/** The balances a block sees so far (its overlay on the committed state). */
export type SettlementLedger = {
  balance(address: Address): bigint;
  setBalance(address: Address, amount: bigint): void;
};

export type SettlementMining = {
  ledger: SettlementLedger;
  escrow: Address;
  /** Which of the ids landed in an earlier block (the store's index). */
  landedBefore(ids: readonly string[]): Set<string>;
  /** Ids that landed earlier in this block; the transaction's own successes are added. */
  landedInBlock: Set<string>;
  /** Out: the items that land, for the store's index, written with the block. */
  landed: LandedItem[];
  /** Armed fault counts by class; an item that uses one decrements it. */
  faults: Record<SettlementFaultClass, number>;
};

/**
 * Applies a settlement transaction's retries then items, in order, to the block's ledger. An item moves all
 * of its moves or none (`failed`: the first move that cannot be paid, or an injected fault). A failed `fill`
 * does not stop the transaction; any other failed item does: the items after it are `skipped`. An id that
 * landed before (an earlier block, or earlier in this one) is a `duplicate` and moves nothing.
 */
export function applySettlement(tx: SettleTx, m: SettlementMining): SettlementItemResult[] {
  const all = tx.retries.length === 0 ? tx.items : [...tx.retries, ...tx.items];
  const landedBefore = m.landedBefore(all.map((item) => item.id));
  let stopped = false;
  return all.map((item): SettlementItemResult => {
    const result = (status: SettlementItemStatus, error: string | null = null): SettlementItemResult => ({
      id: item.id,
      kind: item.kind,
      status,
      error,
    });
    if (stopped) return result('skipped');
    if (landedBefore.has(item.id) || m.landedInBlock.has(item.id)) return result('duplicate');
    const error = injectedFault(item, m.faults) ?? applyMoves(item.moves, m.ledger, m.escrow);
    if (error === null) {
      m.landedInBlock.add(item.id);
      m.landed.push({ id: item.id, txHash: tx.hash });
      return result('success');
    }
    if (item.kind !== 'fill') stopped = true;
    return result('failed', error);
  });
}

function injectedFault(item: SettlementItem, faults: Record<SettlementFaultClass, number>): string | null {
  const faultClass = FAULT_CLASS_OF[item.kind];
  if (faults[faultClass] <= 0) return null;
  faults[faultClass] -= 1;
  return 'INJECTED_FAULT';
}

/** Applies the moves in order on a scratch copy of what they touch; commits them only if every one is paid. */
function applyMoves(
  moves: readonly SettlementMove[],
  ledger: SettlementLedger,
  escrow: Address,
): string | null {
  const touched = new Map<Address, bigint>();
  const balance = (a: Address) => touched.get(a) ?? ledger.balance(a);
  for (const move of moves) {
    switch (move.kind) {
      case 'mint':
        touched.set(move.to, balance(move.to) + move.amount);
        break;
      case 'escrow': {
        const available = balance(move.from);
        if (available < move.amount) return 'INSUFFICIENT_BALANCE';
        touched.set(move.from, available - move.amount);
        touched.set(escrow, balance(escrow) + move.amount);
        break;
      }
      case 'release': {
        const pool = balance(escrow);
        if (pool < move.amount) return 'INSUFFICIENT_ESCROW';
        touched.set(escrow, pool - move.amount);
        touched.set(move.to, balance(move.to) + move.amount);
        break;
      }
    }
  }
  for (const [a, amount] of touched) ledger.setBalance(a, amount);
  return null;
}
