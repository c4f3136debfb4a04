/**
 * The engine's state as a canonical JSON-safe value (`EngineSnapshot`): written by `writeSnapshot`, read
 * back into a fresh state by `readSnapshot`.
 */
import { compareStrings } from './compare-strings.js';
import type { EngineState } from './engine-state.js';
import { P } from './market-book.js';
import { addMarket } from './market-lifecycle.js';
import { F, FILLED, SIDE_SHIFT, TICK_MASK, U } from './order-store.js';
import { parlaySnapshot, restoreParlay } from './parlays.js';
import { linkLegs } from './quarter-line-legs.js';
import { restingInPlacementOrder } from './resting-orders.js';
import type { EngineSnapshot, MarketSnapshot, OrderSnapshot } from './snapshot.js';

export function writeSnapshot(s: EngineState): EngineSnapshot {
  const accounts = s.accounts;
  const names = accounts.names;
  const accountRows: ([string, string, string] | [string, string, string, string])[] = [];
  for (let a = 0; a < names.length; a++) {
    const available = accounts.available.get(a);
    const escrowed = accounts.escrowed.get(a);
    const owed = accounts.owed.get(a);
    if (owed !== 0n)
      accountRows.push([names[a]!, available.toString(), escrowed.toString(), owed.toString()]);
    else if (available !== 0n || escrowed !== 0n) {
      accountRows.push([names[a]!, available.toString(), escrowed.toString()]);
    }
  }
  accountRows.sort((x, y) => compareStrings(x[0], y[0]));
  const markets: MarketSnapshot[] = s.markets.map((m) => {
    const positions: [string, string, string, string, string, string][] = [];
    for (let slot = 0; slot < m.holders.length; slot++) {
      positions.push([
        names[m.holders[slot]!]!,
        m.positionValue(slot, P.STAKE_ONE).toString(),
        m.positionValue(slot, P.STAKE_TWO).toString(),
        m.positionValue(slot, P.POT_ONE).toString(),
        m.positionValue(slot, P.POT_TWO).toString(),
        m.refunded(slot).toString(),
      ]);
    }
    positions.sort((x, y) => compareStrings(x[0], y[0]));
    return {
      marketHash: m.marketHash,
      eventId: m.eventId,
      status: m.status,
      version: m.version,
      positions,
      ...(m.legs === null ? {} : { legs: [m.legs[0].marketHash, m.legs[1].marketHash] as const }),
      ...(m.parlay === null ? {} : { parlay: parlaySnapshot(m.parlay) }),
    };
  });
  const store = s.store;
  const orders: OrderSnapshot[] = restingInPlacementOrder(s).map((h) => [
    store.ids[h]!,
    names[store.i32[(h << 4) + F.ACCOUNT]!]!,
    s.markets[store.i32[(h << 4) + F.MARKET]!]!.marketHash,
    (store.i32[(h << 4) + F.TICK_SIDE]! & (1 << SIDE_SHIFT)) === 0,
    store.i32[(h << 4) + F.TICK_SIDE]! & TICK_MASK,
    store.u64[(h << 3) + U.SIZE]!.toString(),
    store.remainingOf(h).toString(),
    store.u32[(h << 4) + F.EXPIRY]!,
    store.placed[h]!,
  ]);
  return {
    format: 2,
    ladderSize: s.ladder.size,
    lastSeq: s.lastSeq,
    netDeposits: s.netDeposits.toString(),
    accounts: accountRows,
    markets,
    orders,
  };
}

/** Throws unless the snapshot is of a format `readSnapshot` knows: checked before anything is built. */
export function checkSnapshotFormat(snapshot: EngineSnapshot): void {
  if (snapshot.format !== 1 && snapshot.format !== 2)
    throw new TypeError(`unknown snapshot format ${(snapshot as { format: unknown }).format}`);
}

/**
 * Fills a fresh state (of the snapshot's ladder size) from a snapshot. Format 1 (before capital efficiency,
 * no refunded column) is read with nothing refunded, which is what its escrow holds: the next fill of a
 * hedged position refunds what is certain.
 */
export function readSnapshot(s: EngineState, snapshot: EngineSnapshot): void {
  checkSnapshotFormat(snapshot);
  s.lastSeq = snapshot.lastSeq;
  s.netDeposits = BigInt(snapshot.netDeposits);
  const accounts = s.accounts;
  for (const [name, available, escrowed, owed] of snapshot.accounts) {
    const a = accounts.indexOf(name);
    accounts.available.set(a, BigInt(available));
    accounts.escrowed.set(a, BigInt(escrowed));
    if (owed !== undefined) accounts.owed.set(a, BigInt(owed));
  }
  for (const m of snapshot.markets) {
    const market = addMarket(s, m.marketHash, m.eventId);
    market.status = m.status;
    market.version = m.version;
    for (const [name, stakeOne, stakeTwo, potOne, potTwo, refunded] of m.positions) {
      const slot = market.positionSlot(accounts.indexOf(name));
      market.addToPosition(slot, P.STAKE_ONE, BigInt(stakeOne));
      market.addToPosition(slot, P.STAKE_TWO, BigInt(stakeTwo));
      market.addToPosition(slot, P.POT_ONE, BigInt(potOne));
      market.addToPosition(slot, P.POT_TWO, BigInt(potTwo));
      if (snapshot.format === 2) market.refundedCells.set(slot, BigInt(refunded ?? '0'));
    }
  }
  for (const m of snapshot.markets) {
    if (m.legs === undefined) continue;
    const [whole, half] = m.legs.map((hash) => s.marketByHash.get(hash));
    if (whole === undefined || half === undefined)
      throw new TypeError(`quarter-line market ${m.marketHash} names a leg that is not in the snapshot`);
    linkLegs(s.marketByHash.get(m.marketHash)!, whole, half);
  }
  for (const m of snapshot.markets)
    if (m.parlay !== undefined) restoreParlay(s, s.marketByHash.get(m.marketHash)!, m.parlay);
  const store = s.store;
  for (const [
    orderId,
    account,
    marketHash,
    isOne,
    tick,
    size,
    remaining,
    expiry,
    placedSeq,
  ] of snapshot.orders) {
    const market = s.marketByHash.get(marketHash)!;
    const h = store.allocate();
    const rem = BigInt(remaining);
    store.ids[h] = orderId;
    const total = BigInt(size);
    store.u64[(h << 3) + U.SIZE] = total;
    store.u64[(h << 3) + U.REMAINING] = rem;
    store.i32[(h << 4) + F.TICK_SIDE] = tick | ((isOne ? 0 : 1) << SIDE_SHIFT) | (rem === total ? 0 : FILLED);
    store.i32[(h << 4) + F.MARKET] = market.index;
    store.i32[(h << 4) + F.ACCOUNT] = accounts.indexOf(account);
    store.u32[(h << 4) + F.EXPIRY] = expiry;
    store.placed[h] = placedSeq;
    market.append(store, h, rem);
    accounts.append(store, store.i32[(h << 4) + F.ACCOUNT]!, h);
    accounts.exposure.increase(store.i32[(h << 4) + F.ACCOUNT]!, rem);
    s.expiries.add(store, h);
    s.orderIndex.add(orderId, h);
  }
}
