/** The engine's internal invariants, checked by tests and replays: books, indexes, exposure, money and escrow. */
import type { EngineState } from './engine-state.js';
import { guaranteedReceipt, MarketStatus, P } from './market-book.js';
import { F, FILLED, NIL, SIDE_SHIFT, U } from './order-store.js';

/** Checks every internal invariant; throws with a description on the first violation (a bug). */
export function assertInvariants(s: EngineState): void {
  const fail = (what: string): never => {
    throw new Error(`engine invariant broken: ${what}`);
  };
  const store = s.store;
  const n = s.ladder.size;
  let resting = 0;
  for (const market of s.markets) {
    let inMarket = 0;
    for (let side = 0; side < 2; side++) {
      let best = 0;
      for (let k = 1; k < n; k++) {
        const level = side * n + k;
        let count = 0;
        let total = 0n;
        let prev = NIL;
        let lastSeq = -1;
        for (let h = market.head[level]!; h !== NIL; h = store.i32[(h << 4) + F.LEVEL_NEXT]!) {
          if (store.i32[(h << 4) + F.LEVEL_PREV] !== prev)
            fail(`level prev link at ${market.marketHash} ${level}`);
          if (
            store.i32[(h << 4) + F.MARKET] !== market.index ||
            (store.i32[(h << 4) + F.TICK_SIDE]! & ~FILLED) !== (k | (side << SIDE_SHIFT))
          ) {
            fail(`order ${store.ids[h]} filed at the wrong level`);
          }
          if (store.placed[h]! <= lastSeq) fail(`FIFO order at ${market.marketHash} ${level}`);
          lastSeq = store.placed[h]!;
          const rem = store.remainingOf(h);
          if (rem < s.ladder.makerLot[k]! || rem > store.u64[(h << 3) + U.SIZE]!) {
            fail(`order ${store.ids[h]} remaining ${rem} out of range`);
          }
          if (s.orderIndex.get(store.ids[h]!) !== h) fail(`order ${store.ids[h]} not indexed`);
          count++;
          total += rem;
          prev = h;
        }
        if (market.tail[level] !== prev) fail(`level tail at ${market.marketHash} ${level}`);
        if (market.count[level] !== count) fail(`level count at ${market.marketHash} ${level}`);
        if (market.total[level] !== total) fail(`level total at ${market.marketHash} ${level}`);
        if (count > 0) best = k;
        inMarket += count;
      }
      if (market.best[side] !== best) fail(`best tick of ${market.marketHash} side ${side}`);
    }
    if (market.orders !== inMarket) fail(`order count of ${market.marketHash}`);
    if (market.status !== MarketStatus.OPEN && inMarket > 0)
      fail(`orders rest in closed ${market.marketHash}`);
    resting += inMarket;
    // Orders of different accounts never stay crossed.
    for (let j = 1; j < n; j++) {
      for (let h = market.head[j]!; h !== NIL; h = store.i32[(h << 4) + F.LEVEL_NEXT]!) {
        for (let k = n - j; k < n; k++) {
          for (let g = market.head[n + k]!; g !== NIL; g = store.i32[(g << 4) + F.LEVEL_NEXT]!) {
            if (store.i32[(g << 4) + F.ACCOUNT] !== store.i32[(h << 4) + F.ACCOUNT]) {
              fail(`orders ${store.ids[h]} and ${store.ids[g]} of different accounts cross`);
            }
          }
        }
      }
    }
  }
  if (resting !== s.orderIndex.size || resting !== store.live) fail('order index size');
  let listed = 0;
  for (let a = 0; a < s.accounts.names.length; a++) {
    let lastSeq = -1;
    let prev = NIL;
    let promised = 0n;
    for (let h = s.accounts.orderHead[a]!; h !== NIL; h = store.i32[(h << 4) + F.ACCOUNT_NEXT]!) {
      if (store.i32[(h << 4) + F.ACCOUNT] !== a) fail(`account list of ${s.accounts.names[a]}`);
      if (store.i32[(h << 4) + F.ACCOUNT_PREV] !== prev) fail(`account list links of ${s.accounts.names[a]}`);
      if (store.placed[h]! <= lastSeq) fail(`account list order of ${s.accounts.names[a]}`);
      lastSeq = store.placed[h]!;
      prev = h;
      listed++;
      promised += store.remainingOf(h);
    }
    if (s.accounts.orderTail[a] !== prev) fail(`account list tail of ${s.accounts.names[a]}`);
    const exposure = s.accounts.exposure.get(a);
    if (exposure !== promised)
      fail(`exposure ${exposure} of ${s.accounts.names[a]} != its orders' ${promised}`);
    if (s.honestLiquidity && exposure > s.accounts.available.get(a))
      fail(`exposure ${exposure} of ${s.accounts.names[a]} above its available balance`);
  }
  if (listed !== resting) fail('account lists');
  if (s.expiries.listed(store) !== resting) fail('expiry lists');
  let money = 0n;
  let escrow = 0n;
  for (let a = 0; a < s.accounts.names.length; a++) {
    const available = s.accounts.available.get(a);
    const escrowed = s.accounts.escrowed.get(a);
    const owed = s.accounts.owed.get(a);
    if (available < 0n || escrowed < 0n || owed < 0n) fail(`negative balance of ${s.accounts.names[a]}`);
    // What an account owes it pays back before it has anything available.
    if (owed > 0n && available > 0n)
      fail(`${s.accounts.names[a]} owes ${owed} yet has ${available} available`);
    money += available + escrowed - owed;
    escrow += escrowed;
  }
  if (money !== s.netDeposits) fail(`money ${money} != deposits ${s.netDeposits}`);
  // Resting orders lock nothing: an account's escrow is what its open positions still hold, their
  // stakes less what capital efficiency refunded (at most the least of the three results' receipts).
  const held = new Array<bigint>(s.accounts.names.length).fill(0n);
  let staked = 0n;
  for (const market of s.markets) {
    let potOne = 0n;
    let potTwo = 0n;
    let stakes = 0n;
    for (let slot = 0; slot < market.holders.length; slot++) {
      const a = market.holders[slot]!;
      if (market.findPositionSlot(a) !== slot) fail(`position slot of ${s.accounts.names[a]}`);
      const s1 = market.positionValue(slot, P.STAKE_ONE);
      const s2 = market.positionValue(slot, P.STAKE_TWO);
      const p1 = market.positionValue(slot, P.POT_ONE);
      const p2 = market.positionValue(slot, P.POT_TWO);
      const refunded = market.refunded(slot);
      if (refunded < 0n || refunded > guaranteedReceipt(s1, s2, p1, p2))
        fail(`refunded ${refunded} of ${s.accounts.names[a]} in ${market.marketHash} is not certain`);
      held[a]! += s1 + s2 - refunded;
      staked += s1 + s2 - refunded;
      stakes += s1 + s2;
      potOne += p1;
      potTwo += p2;
    }
    if (potOne !== stakes || potTwo !== stakes) fail(`pots of ${market.marketHash} do not match its stakes`);
  }
  if (staked !== escrow) fail(`escrow ${escrow} != open stakes less refunds ${staked}`);
  for (let a = 0; a < s.accounts.names.length; a++) {
    if (s.accounts.escrowed.get(a) !== held[a])
      fail(`escrow of ${s.accounts.names[a]} ${s.accounts.escrowed.get(a)} != its positions' ${held[a]}`);
  }
}
