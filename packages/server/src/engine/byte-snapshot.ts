/**
 * The engine's state as bytes, laid out for a fast restore: written by `writeSnapshotBytes`, read back into
 * a fresh state by `readSnapshotBytes`. Equal states give equal bytes (names sorted, orders by placement),
 * so a digest of them is a state hash.
 */
import { compareStrings } from './compare-strings.js';
import type { EngineState } from './engine-state.js';
import { MarketStatus, P } from './market-book.js';
import { addMarket } from './market-lifecycle.js';
import { F, FILLED, U } from './order-store.js';
import { type ParlaySnapshot, parlaySnapshot, restoreParlay } from './parlays.js';
import { linkLegs } from './quarter-line-legs.js';
import { restingInPlacementOrder } from './resting-orders.js';
import { ByteReader, ByteWriter, SnapshotFormatError } from './snapshot-codec.js';

/**
 * 'OBS6': OBS5 with parlay markets after the orders. Written only when there is a parlay market, so that the
 * bytes (and state hashes) of a state without one stay those of OBS5.
 */
const SNAPSHOT_MAGIC_PARLAYS = 0x3653_424f;
/** 'OBS5' read as a little-endian u32: the first bytes of a byte snapshot (with what accounts owe). */
const SNAPSHOT_MAGIC = 0x3553_424f;
/** 'OBS4': the format before debts (issue 33), read with nothing owed. */
const SNAPSHOT_MAGIC_BEFORE_DEBTS = 0x3453_424f;
/** 'OBS3': the format before quarter-line markets (positions with refunds), read with no legs. */
const SNAPSHOT_MAGIC_BEFORE_LEGS = 0x3353_424f;
/** 'OBS2': the format before capital efficiency, read with nothing refunded. */
const SNAPSHOT_MAGIC_BEFORE_CE = 0x3253_424f;

export function writeSnapshotBytes(s: EngineState): Uint8Array {
  const store = s.store;
  const accounts = s.accounts;
  const names = accounts.names;
  const handles = restingInPlacementOrder(s);
  // The accounts the state names (a balance, a position or an order), sorted: an order refers to its rank.
  const named = new Uint8Array(names.length);
  const hasBalance = (a: number) =>
    accounts.available.get(a) !== 0n || accounts.escrowed.get(a) !== 0n || accounts.owed.get(a) !== 0n;
  for (let a = 0; a < names.length; a++) if (hasBalance(a)) named[a] = 1;
  for (const m of s.markets) for (const a of m.holders) named[a] = 1;
  for (const h of handles) named[store.i32[(h << 4) + F.ACCOUNT]!] = 1;
  const sorted: number[] = [];
  for (let a = 0; a < names.length; a++) if (named[a] === 1) sorted.push(a);
  sorted.sort((x, y) => compareStrings(names[x]!, names[y]!));
  const rank = new Int32Array(names.length);
  for (let i = 0; i < sorted.length; i++) rank[sorted[i]!] = i;

  const parlays = s.markets.filter((m) => m.parlay !== null);
  const w = new ByteWriter(1024 + sorted.length * 48 + handles.length * 110 + parlays.length * 2048);
  w.u32(parlays.length > 0 ? SNAPSHOT_MAGIC_PARLAYS : SNAPSHOT_MAGIC);
  w.u32(s.ladder.size);
  w.f64(s.lastSeq);
  w.str(s.netDeposits.toString());
  w.u32(sorted.length);
  for (const a of sorted) w.str(names[a]!);
  const funded = sorted.filter(hasBalance);
  w.u32(funded.length);
  for (const a of funded) {
    w.u32(rank[a]!);
    w.str(accounts.available.get(a).toString());
    w.str(accounts.escrowed.get(a).toString());
  }
  const owing = funded.filter((a) => accounts.owed.get(a) !== 0n);
  w.u32(owing.length);
  for (const a of owing) {
    w.u32(rank[a]!);
    w.str(accounts.owed.get(a).toString());
  }
  w.u32(s.markets.length);
  for (const m of s.markets) {
    w.str(m.marketHash);
    w.str(m.eventId);
    w.str(m.status);
    w.f64(m.version);
    const slots = m.holders
      .map((_, slot) => slot)
      .sort((x, y) => rank[m.holders[x]!]! - rank[m.holders[y]!]!);
    w.u32(slots.length);
    for (const slot of slots) {
      w.u32(rank[m.holders[slot]!]!);
      for (const field of [P.STAKE_ONE, P.STAKE_TWO, P.POT_ONE, P.POT_TWO])
        w.str(m.positionValue(slot, field).toString());
      w.str(m.refunded(slot).toString());
    }
  }
  const quarterLines = s.markets.filter((m) => m.legs !== null);
  w.u32(quarterLines.length);
  for (const m of quarterLines) {
    w.u32(m.index);
    w.u32(m.legs![0].index);
    w.u32(m.legs![1].index);
  }
  w.u32(handles.length);
  for (const h of handles) {
    const r = h << 4;
    w.str(store.ids[h]!);
    w.u32(rank[store.i32[r + F.ACCOUNT]!]!);
    w.u32(store.i32[r + F.MARKET]!);
    w.u32(store.i32[r + F.TICK_SIDE]! & ~FILLED);
    w.u64(store.u64[(h << 3) + U.SIZE]!);
    w.u64(store.remainingOf(h));
    w.u32(store.u32[r + F.EXPIRY]!);
    w.f64(store.placed[h]!);
  }
  if (parlays.length > 0) {
    w.u32(parlays.length);
    for (const m of parlays) {
      w.u32(m.index);
      w.str(JSON.stringify(parlaySnapshot(m.parlay!)));
    }
  }
  return w.finish();
}

/** Reads the magic of a byte snapshot (throws unless it is one the engine knows) and then its ladder size. */
function readHeader(r: ByteReader): { magic: number; ladderSize: number } {
  const magic = r.u32();
  if (
    magic !== SNAPSHOT_MAGIC_PARLAYS &&
    magic !== SNAPSHOT_MAGIC &&
    magic !== SNAPSHOT_MAGIC_BEFORE_DEBTS &&
    magic !== SNAPSHOT_MAGIC_BEFORE_LEGS &&
    magic !== SNAPSHOT_MAGIC_BEFORE_CE
  )
    throw new SnapshotFormatError('not an engine snapshot');
  return { magic, ladderSize: r.u32() };
}

/** The ladder size of a byte snapshot: what the state it is read into is built with. */
export function ladderSizeOfSnapshotBytes(bytes: Uint8Array): number {
  return readHeader(new ByteReader(bytes)).ladderSize;
}

/**
 * Fills a fresh state (of the snapshot's ladder size) from `writeSnapshotBytes`. The format before capital
 * efficiency ('OBS2', no refunded amounts) is read with nothing refunded, as in `readSnapshot`.
 */
export function readSnapshotBytes(s: EngineState, bytes: Uint8Array): void {
  const r = new ByteReader(bytes);
  let { magic } = readHeader(r);
  const withRefunds = magic !== SNAPSHOT_MAGIC_BEFORE_CE;
  s.lastSeq = r.f64();
  s.netDeposits = BigInt(r.str());
  const accounts = s.accounts;
  const index = new Int32Array(r.u32());
  for (let i = 0; i < index.length; i++) index[i] = accounts.indexOf(r.str());
  const account = (rank: number): number => {
    if (rank >= index.length) throw new SnapshotFormatError(`no account of rank ${rank}`);
    return index[rank]!;
  };
  for (let n = r.u32(); n > 0; n--) {
    const a = account(r.u32());
    accounts.available.set(a, BigInt(r.str()));
    accounts.escrowed.set(a, BigInt(r.str()));
  }
  const withParlays = magic === SNAPSHOT_MAGIC_PARLAYS;
  if (withParlays) magic = SNAPSHOT_MAGIC;
  if (magic === SNAPSHOT_MAGIC)
    for (let n = r.u32(); n > 0; n--) accounts.owed.set(account(r.u32()), BigInt(r.str()));
  for (let n = r.u32(); n > 0; n--) {
    const market = addMarket(s, r.str(), r.str());
    const status = r.str();
    if (!Object.values(MarketStatus).includes(status as MarketStatus))
      throw new SnapshotFormatError(`unknown market status ${status}`);
    market.status = status as MarketStatus;
    market.version = r.f64();
    for (let p = r.u32(); p > 0; p--) {
      const slot = market.positionSlot(account(r.u32()));
      for (const field of [P.STAKE_ONE, P.STAKE_TWO, P.POT_ONE, P.POT_TWO])
        market.addToPosition(slot, field, BigInt(r.str()));
      if (withRefunds) market.refundedCells.set(slot, BigInt(r.str()));
    }
  }
  if (magic === SNAPSHOT_MAGIC || magic === SNAPSHOT_MAGIC_BEFORE_DEBTS) {
    const market = (index: number) => {
      const m = s.markets[index];
      if (m === undefined) throw new SnapshotFormatError(`no market of index ${index}`);
      return m;
    };
    for (let n = r.u32(); n > 0; n--) linkLegs(market(r.u32()), market(r.u32()), market(r.u32()));
  }
  const count = r.u32();
  const store = s.store;
  store.reserve(count);
  s.orderIndex.reserve(count);
  for (let n = 0; n < count; n++) {
    const h = store.allocate();
    const orderId = r.str();
    const a = account(r.u32());
    const market = s.markets[r.u32()];
    if (market === undefined) throw new SnapshotFormatError(`order ${orderId} names no market`);
    const tickSide = r.u32();
    const total = r.u64();
    const rem = r.u64();
    store.ids[h] = orderId;
    store.u64[(h << 3) + U.SIZE] = total;
    store.u64[(h << 3) + U.REMAINING] = rem;
    store.i32[(h << 4) + F.TICK_SIDE] = tickSide | (rem === total ? 0 : FILLED);
    store.i32[(h << 4) + F.MARKET] = market.index;
    store.i32[(h << 4) + F.ACCOUNT] = a;
    store.u32[(h << 4) + F.EXPIRY] = r.u32();
    store.placed[h] = r.f64();
    market.append(store, h, rem);
    accounts.append(store, a, h);
    accounts.exposure.increase(a, rem);
    s.expiries.add(store, h);
    s.orderIndex.add(orderId, h);
  }
  if (withParlays) {
    for (let n = r.u32(); n > 0; n--) {
      const market = s.markets[r.u32()];
      if (market === undefined) throw new SnapshotFormatError('a parlay names no market');
      restoreParlay(s, market, JSON.parse(r.str()) as ParlaySnapshot);
    }
  }
  r.end();
}
