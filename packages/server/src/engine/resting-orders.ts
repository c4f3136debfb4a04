/** Resting orders on and off the book and every index (level FIFO, account list, expiry index, id index). */
import { touchLevel } from './command-events.js';
import type { PlaceOrderCommand } from './commands.js';
import type { EngineState } from './engine-state.js';
import type { DoneReason, OrderDoneEvent, OrderRestedEvent } from './events.js';
import type { MarketBook } from './market-book.js';
import { F, FILLED, NIL, SIDE_SHIFT, TICK_MASK, U } from './order-store.js';

const ZERO = 0n;

/** Filled part of an order: `size - remaining`, without allocating when nothing filled. */
export function filled(size: bigint, remaining: bigint): bigint {
  return remaining === size ? ZERO : size - remaining;
}

/** Handles of every resting order, oldest placement first (pushed one by one: a market may hold millions). */
export function restingInPlacementOrder(s: EngineState): number[] {
  const store = s.store;
  const handles: number[] = [];
  for (const m of s.markets) {
    for (let level = 0; level < m.head.length; level++) {
      for (let h = m.head[level]!; h !== NIL; h = store.i32[(h << 4) + F.LEVEL_NEXT]!) handles.push(h);
    }
  }
  return handles.sort((x, y) => store.placed[x]! - store.placed[y]!);
}

/**
 * Rests an order with `remaining` of its stake (all of it while `untouched`): its record, its level's FIFO,
 * its account's list and exposure, the expiry and id indexes. Returns its `orderRested` event.
 */
export function rest(
  s: EngineState,
  c: PlaceOrderCommand,
  market: MarketBook,
  account: number,
  side: number,
  tick: number,
  remaining: bigint,
  hash: number,
  untouched: boolean,
): OrderRestedEvent {
  const store = s.store;
  const h = store.allocate();
  store.ids[h] = c.orderId;
  store.u64[(h << 3) + U.SIZE] = c.totalBetSize;
  // An order that has not filled has no REMAINING of its own: it is its size (see `FILLED`).
  if (untouched) store.i32[(h << 4) + F.TICK_SIDE] = tick | (side << SIDE_SHIFT);
  else {
    store.u64[(h << 3) + U.REMAINING] = remaining;
    store.i32[(h << 4) + F.TICK_SIDE] = tick | (side << SIDE_SHIFT) | FILLED;
  }
  store.i32[(h << 4) + F.MARKET] = market.index;
  store.i32[(h << 4) + F.ACCOUNT] = account;
  store.u32[(h << 4) + F.EXPIRY] = c.expiry;
  store.placed[h] = s.seq;
  market.append(store, h, remaining);
  s.accounts.append(store, account, h);
  s.accounts.exposure.increase(account, remaining);
  s.expiries.add(store, h);
  s.orderIndex.addHashed(hash, h);
  return {
    type: 'orderRested',
    orderId: c.orderId,
    account: c.account,
    marketHash: c.marketHash,
    isBettingOutcomeOne: c.isBettingOutcomeOne,
    tick,
    percentageOdds: c.percentageOdds,
    totalBetSize: c.totalBetSize,
    filledSize: untouched ? ZERO : c.totalBetSize - remaining,
    remainingSize: remaining,
  };
}

/** Takes a resting order off the book and every index, and reports it done. */
export function removeResting(s: EngineState, h: number, reason: DoneReason): void {
  // As in `cancellable` (cancels.ts): the loads of the neighbours' lines overlap with the index probe that follows.
  if (!linkedBothWays(s, h)) throw new Error(`engine invariant broken: links of order ${s.store.ids[h]}`);
  s.orderIndex.removeHandle(h);
  const done = unrest(s, h, reason);
  touchLevel(s, s.unrestMarket!, s.unrestLevel);
  s.pending[s.eventCount++] = done;
}

/**
 * Takes a resting order, already out of the id index, off the book and every other index; returns its
 * `orderDone` event and leaves its market and level in `unrestMarket` and `unrestLevel`.
 */
export function unrest(s: EngineState, h: number, reason: DoneReason): OrderDoneEvent {
  const store = s.store;
  const market = s.markets[store.i32[(h << 4) + F.MARKET]!]!;
  const tickSide = store.i32[(h << 4) + F.TICK_SIDE]!;
  const side = (tickSide >>> SIDE_SHIFT) & 1;
  const tick = tickSide & TICK_MASK;
  const size = store.u64[(h << 3) + U.SIZE]!;
  // While the order has not filled, its remaining stake is its size: one bigint for both.
  const untouched = (tickSide & FILLED) === 0;
  const remaining = untouched ? size : store.u64[(h << 3) + U.REMAINING]!;
  const orderId = store.ids[h]!;
  market.unlink(store, h, remaining);
  const account = store.i32[(h << 4) + F.ACCOUNT]!;
  s.accounts.unlink(store, account, h);
  s.accounts.exposure.decrease(account, remaining);
  s.expiries.remove(store, h);
  s.unrestMarket = market;
  s.unrestLevel = side * s.ladder.size + tick;
  const done: OrderDoneEvent = {
    type: 'orderDone',
    orderId,
    account: s.accounts.names[account]!,
    marketHash: market.marketHash,
    isBettingOutcomeOne: side === 0,
    tick,
    reason,
    totalBetSize: size,
    filledSize: untouched ? ZERO : size - remaining,
    remainingSize: remaining,
    wasResting: true,
  };
  store.release(h);
  return done;
}

/**
 * Checks that resting order `h` is linked both ways with its neighbours in its three lists. Called before
 * a cancel compares the stored id, which usually waits on memory: these reads of every cache line the
 * removal will touch (its record, its neighbours' records) then overlap with that wait instead of
 * following it, and a broken link (a bug) stops the engine instead of corrupting the book.
 */
export function linkedBothWays(s: EngineState, h: number): boolean {
  const i32 = s.store.i32;
  const r = h << 4;
  const prev = i32[r + F.LEVEL_PREV]!;
  const next = i32[r + F.LEVEL_NEXT]!;
  const ap = i32[r + F.ACCOUNT_PREV]!;
  const an = i32[r + F.ACCOUNT_NEXT]!;
  const ep = i32[r + F.EXPIRY_PREV]!;
  const en = i32[r + F.EXPIRY_NEXT]!;
  return (
    (prev === NIL || i32[(prev << 4) + F.LEVEL_NEXT] === h) &&
    (next === NIL || i32[(next << 4) + F.LEVEL_PREV] === h) &&
    (ap === NIL || i32[(ap << 4) + F.ACCOUNT_NEXT] === h) &&
    (an === NIL || i32[(an << 4) + F.ACCOUNT_PREV] === h) &&
    (ep === NIL || i32[(ep << 4) + F.EXPIRY_NEXT] === h) &&
    (en === NIL || i32[(en << 4) + F.EXPIRY_PREV] === h)
  );
}
