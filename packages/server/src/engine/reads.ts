/** Reads of the engine's state for its callers: orders, books, markets, balances and positions as views. */
import type { EngineState } from './engine-state.js';
import { MarketStatus, P } from './market-book.js';
import { F, NIL, SIDE_SHIFT, TICK_MASK, U } from './order-store.js';
import { parlayOutcome } from './parlay-rule.js';
import { legState, parlaySnapshot } from './parlays.js';
import type { AccountBalance, BookLevels, LevelView, MarketView, OrderView, PositionView } from './views.js';

/** A resting order, or undefined once it has left the book (or never rested). */
export function findOrder(s: EngineState, orderId: string): OrderView | undefined {
  const h = s.orderIndex.get(orderId);
  return h === NIL ? undefined : orderView(s, h);
}

/** An account's resting orders in placement order. */
export function openOrders(s: EngineState, account: string): OrderView[] {
  const a = s.accounts.find(account);
  const out: OrderView[] = [];
  if (a === NIL) return out;
  for (let h = s.accounts.orderHead[a]!; h !== NIL; h = s.store.i32[(h << 4) + F.ACCOUNT_NEXT]!) {
    out.push(orderView(s, h));
  }
  return out;
}

/** A market's resting orders in placement order (empty for an unknown market). */
export function marketOrders(s: EngineState, marketHash: string): OrderView[] {
  const market = s.marketByHash.get(marketHash);
  return market ? market.handlesInPlacementOrder(s.store).map((h) => orderView(s, h)) : [];
}

/** Aggregated levels of both sides, best first, in the maker frame; undefined for an unknown market. */
export function bookLevels(
  s: EngineState,
  marketHash: string,
  depth = Number.POSITIVE_INFINITY,
): BookLevels | undefined {
  const market = s.marketByHash.get(marketHash);
  if (market === undefined) return undefined;
  const levelsOf = (side: number): LevelView[] => {
    const out: LevelView[] = [];
    const base = side * s.ladder.size;
    for (let k = market.best[side]!; k > 0 && out.length < depth; k--) {
      const count = market.count[base + k]!;
      if (count > 0) {
        out.push({
          tick: k,
          percentageOdds: s.ladder.odds[k]!,
          size: market.total[base + k]!,
          orders: count,
        });
      }
    }
    return out;
  };
  return {
    marketHash,
    eventId: market.eventId,
    outcomeOne: levelsOf(0),
    outcomeTwo: levelsOf(1),
    version: market.version,
  };
}

/** Every market the engine has opened, in no particular order. */
export function marketHashes(s: EngineState): IterableIterator<string> {
  return s.marketByHash.keys();
}

/** Highest tick with resting orders betting that outcome, 0 when none (or unknown market). */
export function bestTick(s: EngineState, marketHash: string, isBettingOutcomeOne: boolean): number {
  return s.marketByHash.get(marketHash)?.best[isBettingOutcomeOne ? 0 : 1] ?? 0;
}

/** True when some resting order's expiry (unix seconds) is at or before `nowMs`: an `expire` is due. */
export function hasDueExpiries(s: EngineState, nowMs: number): boolean {
  return s.expiries.nextDue((nowMs - (nowMs % 1000)) / 1000) !== -1;
}

export function bookVersion(s: EngineState, marketHash: string): number {
  return s.marketByHash.get(marketHash)?.version ?? 0;
}

export function marketView(s: EngineState, marketHash: string): MarketView | undefined {
  const m = s.marketByHash.get(marketHash);
  if (m === undefined) return undefined;
  const view = {
    marketHash,
    eventId: m.eventId,
    status: m.status,
    version: m.version,
    restingOrders: m.orders,
  };
  if (m.parlay === null) return view;
  const outcome = m.status === MarketStatus.RESOLVED ? parlayOutcome(m.parlay.legs.map(legState)) : null;
  return { ...view, parlay: { ...parlaySnapshot(m.parlay), outcome } };
}

export function balanceOf(s: EngineState, account: string): AccountBalance {
  const a = s.accounts.find(account);
  if (a === NIL) return { available: 0n, escrowed: 0n };
  return { available: s.accounts.available.get(a), escrowed: s.accounts.escrowed.get(a) };
}

/** What a reversed fill left the account owing (0 but after a failed settlement, issue 33). */
export function owedBy(s: EngineState, account: string): bigint {
  const a = s.accounts.find(account);
  return a === NIL ? 0n : s.accounts.owed.get(a);
}

/** The remaining maker stakes of the account's resting orders (at most its available balance under honest liquidity). */
export function exposureOf(s: EngineState, account: string): bigint {
  const a = s.accounts.find(account);
  return a === NIL ? 0n : s.accounts.exposure.get(a);
}

export function positionOf(s: EngineState, marketHash: string, account: string): PositionView | undefined {
  const a = s.accounts.find(account);
  const market = a === NIL ? undefined : s.marketByHash.get(marketHash);
  const slot = market === undefined ? NIL : market.findPositionSlot(a);
  if (market === undefined || slot === NIL) return undefined;
  return {
    stakeOnOutcomeOne: market.positionValue(slot, P.STAKE_ONE),
    stakeOnOutcomeTwo: market.positionValue(slot, P.STAKE_TWO),
    payoutIfOutcomeOne: market.positionValue(slot, P.POT_ONE),
    payoutIfOutcomeTwo: market.positionValue(slot, P.POT_TWO),
    refunded: market.refunded(slot),
  };
}

/** Number of resting orders in the engine. */
export function restingOrderCount(s: EngineState): number {
  return s.store.live;
}

export function orderView(s: EngineState, h: number): OrderView {
  const store = s.store;
  const market = s.markets[store.i32[(h << 4) + F.MARKET]!]!;
  const size = store.u64[(h << 3) + U.SIZE]!;
  const remaining = store.remainingOf(h);
  const tick = store.i32[(h << 4) + F.TICK_SIDE]! & TICK_MASK;
  return {
    orderId: store.ids[h]!,
    account: s.accounts.names[store.i32[(h << 4) + F.ACCOUNT]!]!,
    marketHash: market.marketHash,
    eventId: market.eventId,
    isBettingOutcomeOne: (store.i32[(h << 4) + F.TICK_SIDE]! & (1 << SIDE_SHIFT)) === 0,
    tick,
    percentageOdds: s.ladder.odds[tick]!,
    totalBetSize: size,
    filledSize: size - remaining,
    remainingSize: remaining,
    expiry: store.u32[(h << 4) + F.EXPIRY]!,
    placedSeq: store.placed[h]!,
  };
}
