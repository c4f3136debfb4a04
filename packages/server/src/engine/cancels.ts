/** Cancels (of ids, of a market's, an event's or an account's orders) and expiry. */
import { levelChanged, touchLevel } from './command-events.js';
import type { CancelReason } from './commands.js';
import type { EngineState } from './engine-state.js';
import type { DoneReason, EngineEvent } from './events.js';
import type { MarketBook } from './market-book.js';
import { hashId } from './order-index.js';
import { F, NIL } from './order-store.js';
import { linkedBothWays, removeResting, unrest } from './resting-orders.js';

/**
 * The index slot of resting order `orderId` if it may be cancelled (with `account` set, only that
 * account's), else NIL.
 */
export function cancellable(s: EngineState, orderId: string, account: string | undefined): number {
  const index = s.orderIndex;
  const ids = s.store.ids;
  const hash = hashId(orderId);
  for (let slot = index.candidate(hash, hash); slot !== NIL; slot = index.candidate(hash, slot + 1)) {
    const h = index.handleAt(slot);
    if (!linkedBothWays(s, h)) throw new Error(`engine invariant broken: links of order ${ids[h]}`);
    if (ids[h] === orderId) {
      // The owner check compares names (usually the very same string) rather than looking one up.
      const owner = s.accounts.names[s.store.i32[(h << 4) + F.ACCOUNT]!];
      return account === undefined || owner === account ? slot : NIL;
    }
  }
  return NIL;
}

/** A cancel of one id, the common case: its events without the general collection. */
export function cancelOne(
  s: EngineState,
  orderId: string,
  account: string | undefined,
  reason: CancelReason,
): EngineEvent[] {
  const slot = cancellable(s, orderId, account);
  if (slot === NIL) return [{ type: 'cancelRejected', orderId, code: 'NOT_FOUND' }];
  const h = s.orderIndex.handleAt(slot);
  s.orderIndex.removeSlot(slot);
  const done = unrest(s, h, reason);
  const market = s.unrestMarket!;
  market.version++;
  return [done, levelChanged(s, market, s.unrestLevel)];
}

export function cancelOrders(
  s: EngineState,
  orderIds: readonly string[],
  account: string | undefined,
  reason: CancelReason,
): void {
  const index = s.orderIndex;
  for (let i = 0; i < orderIds.length; i++) {
    const orderId = orderIds[i]!;
    const slot = cancellable(s, orderId, account);
    if (slot === NIL) {
      s.pending[s.eventCount++] = { type: 'cancelRejected', orderId, code: 'NOT_FOUND' };
    } else {
      const h = index.handleAt(slot);
      index.removeSlot(slot);
      const done = unrest(s, h, reason);
      touchLevel(s, s.unrestMarket!, s.unrestLevel);
      s.pending[s.eventCount++] = done;
    }
  }
}

export function cancelInMarket(
  s: EngineState,
  market: MarketBook,
  account: string | undefined,
  reason: DoneReason,
): void {
  const store = s.store;
  if (account === undefined) {
    for (const h of market.handlesInPlacementOrder(store)) removeResting(s, h, reason);
    return;
  }
  const a = s.accounts.find(account);
  if (a === NIL) return;
  let h = s.accounts.orderHead[a]!;
  while (h !== NIL) {
    const next = store.i32[(h << 4) + F.ACCOUNT_NEXT]!;
    if (store.i32[(h << 4) + F.MARKET] === market.index) removeResting(s, h, reason);
    h = next;
  }
}

export function cancelAccount(s: EngineState, account: string, reason: DoneReason): void {
  const a = s.accounts.find(account);
  if (a === NIL) return;
  let h = s.accounts.orderHead[a]!;
  while (h !== NIL) {
    const next = s.store.i32[(h << 4) + F.ACCOUNT_NEXT]!;
    removeResting(s, h, reason);
    h = next;
  }
}

export function expire(s: EngineState): void {
  const now = (s.ts - (s.ts % 1000)) / 1000;
  for (let key = s.expiries.nextDue(now); key !== -1; key = s.expiries.nextDue(now)) {
    let h = s.expiries.first(key);
    while (h !== NIL) {
      const next = s.store.i32[(h << 4) + F.EXPIRY_NEXT]!;
      removeResting(s, h, 'EXPIRED');
      h = next;
    }
  }
}
