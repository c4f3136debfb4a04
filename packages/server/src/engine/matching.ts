/**
 * Matching: a place command validated, walked against the other side of the book (best price first, oldest
 * first, the FOK dry run before a FOK walk), each fill on positions and balances, and the remainder rested
 * or done.
 */
import { freeBalance, pullExcess } from './balances.js';
import { levelChanged, touchAccount, touchLevel } from './command-events.js';
import { type PlaceOrderCommand, TimeInForce } from './commands.js';
import type { EngineState } from './engine-state.js';
import {
  type DoneReason,
  type EngineEvent,
  type OrderMatchedEvent,
  type QuarterLineLeg,
  RejectCode,
} from './events.js';
import { dryAdd, dryAvailable, dryRefund } from './fok-dry-run.js';
import { tickOfOdds } from './ladder.js';
import { type MarketBook, MarketStatus, P } from './market-book.js';
import { hashId } from './order-index.js';
import { F, FILLED, MAX_EXPIRY, MAX_ORDER_SIZE, NIL, SIDE_SHIFT, U } from './order-store.js';
import { parlayRefusal } from './parlays.js';
import { fillLegs, reportLegRefunds } from './quarter-line-legs.js';
import { lockFillStake, reportRefund } from './refunds.js';
import { filled, removeResting, rest } from './resting-orders.js';

/** How a taker's walk through the book ended. */
const Stop = { FILLED: 0, DUST: 1, TAKER_FUNDS: 2, EXHAUSTED: 3 } as const;
type Stop = (typeof Stop)[keyof typeof Stop];

/**
 * Matches or rests a place command. The commonest case, a GTC order that nothing on the other side can
 * cross, is done here and its three events returned at once; otherwise (undefined) the events are left
 * for `apply` to collect.
 */
export function place(s: EngineState, c: PlaceOrderCommand): EngineEvent[] | undefined {
  // Orders mostly arrive for the market of the last one: one string comparison instead of a lookup.
  let market = s.lastMarket;
  if (market === undefined || c.marketHash !== market.marketHash) {
    market = s.marketByHash.get(c.marketHash);
    if (market !== undefined) s.lastMarket = market;
  }
  const tick = tickOfOdds(s.ladder, c.percentageOdds);
  const hash = hashId(c.orderId);
  const code =
    market === undefined
      ? RejectCode.MARKET_NOT_FOUND
      : market.status !== MarketStatus.OPEN
        ? RejectCode.MARKET_CLOSED
        : s.orderIndex.find(c.orderId, hash) !== NIL
          ? RejectCode.DUPLICATE_ORDER_ID
          : ((market.parlay !== null ? parlayRefusal(market.parlay, c, s.ts) : undefined) ??
            validateOrder(s, c, tick));
  if (code !== undefined || market === undefined) {
    s.pending[s.eventCount++] = {
      type: 'orderRejected',
      orderId: c.orderId,
      account: c.account,
      marketHash: c.marketHash,
      code: code ?? RejectCode.MARKET_NOT_FOUND,
    };
    return undefined;
  }
  const ladder = s.ladder;
  const size = c.totalBetSize;
  const side = c.isBettingOutcomeOne ? 0 : 1;
  const accepted: EngineEvent = {
    type: 'orderAccepted',
    orderId: c.orderId,
    account: c.account,
    marketHash: c.marketHash,
    eventId: market.eventId,
    isBettingOutcomeOne: c.isBettingOutcomeOne,
    tick,
    percentageOdds: c.percentageOdds,
    totalBetSize: size,
    expiry: c.expiry,
    timeInForce: c.timeInForce,
  };
  const taker = s.accounts.indexOf(c.account);
  // Nothing on the other side reaches the order's limit (best tick + own tick < N): a GTC order rests
  // whole, as the walk would find nothing (sizes are at least N, more than one lot at any tick).
  if (c.timeInForce === TimeInForce.GTC && market.best[1 - side]! + tick < ladder.size) {
    if (s.honestLiquidity && size > freeBalance(s, taker)) {
      s.pending[s.eventCount++] = {
        type: 'orderRejected',
        orderId: c.orderId,
        account: c.account,
        marketHash: c.marketHash,
        code: RejectCode.INSUFFICIENT_BALANCE,
      };
      return undefined;
    }
    const rested = rest(s, c, market, taker, side, tick, size, hash, true);
    market.version++;
    return [accepted, rested, levelChanged(s, market, side * ladder.size + tick)];
  }
  s.pending[s.eventCount++] = accepted;

  if (c.timeInForce === TimeInForce.FOK) {
    const stop = walk(s, market, c.orderId, taker, side, tick, size, true);
    if (stop !== Stop.FILLED && stop !== Stop.DUST) {
      takerDone(s, c, tick, stop === Stop.TAKER_FUNDS ? 'INSUFFICIENT_BALANCE' : 'NO_LIQUIDITY', size);
      return undefined;
    }
  }
  const stop = walk(s, market, c.orderId, taker, side, tick, size, false);
  const remaining = s.walkRemaining;
  if (stop === Stop.FILLED || stop === Stop.DUST) takerDone(s, c, tick, 'FILLED', remaining);
  else if (stop === Stop.TAKER_FUNDS) takerDone(s, c, tick, 'INSUFFICIENT_BALANCE', remaining);
  else if (c.timeInForce !== TimeInForce.GTC) takerDone(s, c, tick, 'NO_LIQUIDITY', remaining);
  else if (remaining < ladder.makerLot[tick]!) takerDone(s, c, tick, 'FILLED', remaining);
  else if (s.honestLiquidity && remaining > freeBalance(s, taker)) {
    // The remainder would promise more than the account holds beyond its other resting orders.
    takerDone(s, c, tick, 'INSUFFICIENT_BALANCE', remaining);
  } else {
    touchLevel(s, market, side * ladder.size + tick);
    const untouched = remaining === c.totalBetSize;
    s.pending[s.eventCount++] = rest(s, c, market, taker, side, tick, remaining, hash, untouched);
  }
  // Taking may spend what backs the account's resting orders: the newest go until the rest are paid for.
  if (s.honestLiquidity) pullExcess(s, taker);
  return undefined;
}

function validateOrder(s: EngineState, c: PlaceOrderCommand, tick: number): RejectCode | undefined {
  if (tick === 0) return RejectCode.INVALID_TICK;
  // At least N units, so that a fresh order can always trade one whole lot at any price.
  if (c.totalBetSize < s.minOrderSize || c.totalBetSize > MAX_ORDER_SIZE) {
    return RejectCode.INVALID_SIZE;
  }
  if (!Number.isSafeInteger(c.expiry) || c.expiry <= 0 || c.expiry > MAX_EXPIRY)
    return RejectCode.INVALID_EXPIRY;
  if (c.expiry * 1000 <= s.ts) return RejectCode.ORDER_EXPIRED;
  return undefined;
}

/**
 * Walks the opposite side best price first, oldest first, skipping the taker's own orders.
 * With `dry` nothing changes (the FOK pre-check); funds already promised in the walk are tracked in
 * `spent`. Leaves the taker's unfilled stake in `walkRemaining`.
 */
function walk(
  s: EngineState,
  market: MarketBook,
  takerOrderId: string,
  taker: number,
  side: number,
  tick: number,
  size: bigint,
  dry: boolean,
): Stop {
  const store = s.store;
  const accounts = s.accounts;
  const available = accounts.available;
  const ladder = s.ladder;
  const n = ladder.size;
  const other = 1 - side;
  const base = other * n;
  const minTick = n - tick;
  const spent = s.spent;
  const spentAdds = s.spentAdds;
  let takerSpent = 0n;
  /** In the dry run: what the walk has added to the taker's position, and the refund it would have had. */
  const takerAdds = s.takerAdds;
  let takerBack = 0n;
  /** In the dry run: the order last filled and how much of it the walk has promised. */
  let dryOrder = NIL;
  let dryOrderUsed = 0n;
  let remaining = size;
  let stop: Stop = Stop.EXHAUSTED;
  if (dry) {
    spent.clear();
    spentAdds.clear();
    takerAdds.fill(0n);
  }

  let k = market.best[other]!;
  outer: while (k >= minTick) {
    const a = ladder.makerLot[k]!;
    const b = ladder.takerLot[k]!;
    let h = market.head[base + k]!;
    while (h !== NIL) {
      const next = store.i32[(h << 4) + F.LEVEL_NEXT]!;
      const maker = store.i32[(h << 4) + F.ACCOUNT]!;
      if (maker === taker) {
        h = next;
        continue;
      }
      if (store.u32[(h << 4) + F.EXPIRY]! * 1000 <= s.ts) {
        if (!dry) removeResting(s, h, 'EXPIRED');
        h = next;
        continue;
      }
      if (remaining < b) {
        stop = Stop.DUST;
        break outer;
      }
      const takerAvailable = dry ? available.get(taker) - takerSpent + takerBack : available.get(taker);
      if (takerAvailable < b) {
        stop = Stop.TAKER_FUNDS;
        break outer;
      }
      const makerAvailable = dry ? dryAvailable(s, market, maker, other) : available.get(maker);
      if (makerAvailable < a) {
        if (!dry) removeResting(s, h, 'INSUFFICIENT_BALANCE');
        h = next;
        continue;
      }
      // A refund can let the walk fill the same order again: the dry run, which changes no order, takes
      // off what it already promised of it.
      const makerRemaining =
        dry && h === dryOrder ? store.remainingOf(h) - dryOrderUsed : store.remainingOf(h);
      let lots = makerRemaining / a;
      let x = remaining / b;
      if (x < lots) lots = x;
      // A balance that covers the whole remaining stake cannot be what limits the fill: skip its division.
      if (makerAvailable < makerRemaining) {
        x = makerAvailable / a;
        if (x < lots) lots = x;
      }
      if (takerAvailable < remaining) {
        x = takerAvailable / b;
        if (x < lots) lots = x;
      }
      const makerStake = lots * a;
      const takerStake = lots * b;
      remaining -= takerStake;
      const makerLeft = makerRemaining - makerStake;
      if (dry) {
        // As `fill` would do it: both stakes spent, and what capital efficiency would give back at once.
        if (h !== dryOrder) {
          dryOrder = h;
          dryOrderUsed = 0n;
        }
        dryOrderUsed += makerStake;
        spent.set(maker, (spent.get(maker) ?? 0n) + makerStake);
        let makerAdds = spentAdds.get(maker);
        if (makerAdds === undefined) {
          makerAdds = [0n, 0n, 0n, 0n];
          spentAdds.set(maker, makerAdds);
        }
        dryAdd(market, makerAdds, makerStake, takerStake);
        dryAdd(market, takerAdds, takerStake, makerStake);
        takerSpent += takerStake;
        takerBack = dryRefund(market, taker, side, takerAdds);
      } else {
        fill(s, market, h, taker, k, makerStake, takerStake, makerLeft, takerOrderId, remaining);
      }
      // A maker left with less than one lot is done; otherwise the next turn sees why the fill stopped.
      if (makerLeft < a) {
        if (!dry) removeResting(s, h, 'FILLED');
        h = next;
      }
      if (remaining === 0n) {
        stop = Stop.FILLED;
        break outer;
      }
    }
    k--;
    while (k >= minTick && market.count[base + k] === 0) k--;
  }
  if (stop === Stop.EXHAUSTED && remaining === 0n) stop = Stop.FILLED;
  s.walkRemaining = remaining;
  return stop;
}

function fill(
  s: EngineState,
  market: MarketBook,
  h: number,
  taker: number,
  tick: number,
  makerStake: bigint,
  takerStake: bigint,
  makerLeft: bigint,
  takerOrderId: string,
  takerLeft: bigint,
): void {
  const store = s.store;
  const accounts = s.accounts;
  const maker = store.i32[(h << 4) + F.ACCOUNT]!;
  const tickSide = store.i32[(h << 4) + F.TICK_SIDE]!;
  const makerSide = (tickSide >>> SIDE_SHIFT) & 1;
  // The maker's stake and pot go to the outcome it bets on, the taker's to the other.
  const makerStakeField = makerSide === 0 ? P.STAKE_ONE : P.STAKE_TWO;
  const takerStakeField = makerSide === 0 ? P.STAKE_TWO : P.STAKE_ONE;
  const legs = market.legs;
  let mp = NIL;
  let tp = NIL;
  let makerRefund: bigint;
  let takerRefund: bigint;
  let legParts: readonly [QuarterLineLeg, QuarterLineLeg] | undefined;
  if (legs === null) {
    const pot = makerStake + takerStake;
    mp = market.positionSlot(maker);
    tp = market.positionSlot(taker);
    // Capital efficiency: what each party is now certain to collect, beyond what it already had back.
    makerRefund = market.fill(mp, makerStakeField, makerStake, pot);
    takerRefund = market.fill(tp, takerStakeField, takerStake, pot);
  } else {
    legParts = fillLegs(s, legs, maker, taker, makerStakeField, makerStake, takerStake);
    const r = s.legRefunds;
    makerRefund = r[0]! + r[2]!;
    takerRefund = r[1]! + r[3]!;
  }
  // Both stakes move from available to escrow, and each refund back: one net move per party.
  lockFillStake(s, maker, makerStake, makerRefund);
  lockFillStake(s, taker, takerStake, takerRefund);
  touchAccount(s, maker);
  touchAccount(s, taker);
  store.u64[(h << 3) + U.REMAINING] = makerLeft;
  store.i32[(h << 4) + F.TICK_SIDE] = tickSide | FILLED;
  accounts.exposure.decrease(maker, makerStake);
  const level = makerSide * s.ladder.size + tick;
  market.total[level] -= makerStake;
  touchLevel(s, market, level);
  const ladder = s.ladder;
  const matchId = `${s.seq}-${s.matchCount++}`;
  const makerOrderId = store.ids[h]!;
  const matched: OrderMatchedEvent = {
    type: 'orderMatched',
    matchId,
    marketHash: market.marketHash,
    eventId: market.eventId,
    tick,
    makerOdds: ladder.odds[tick]!,
    takerOdds: ladder.odds[ladder.size - tick]!,
    makerOrderId,
    makerAccount: accounts.names[maker]!,
    makerIsBettingOutcomeOne: makerSide === 0,
    makerStake,
    makerRemainingSize: makerLeft,
    takerOrderId,
    takerAccount: accounts.names[taker]!,
    takerStake,
    takerRemainingSize: takerLeft,
  };
  if (legs === null) {
    s.pending[s.eventCount++] = matched;
    if (makerRefund !== 0n) reportRefund(s, market, maker, mp, makerRefund, matchId, true, makerOrderId);
    if (takerRefund !== 0n) reportRefund(s, market, taker, tp, takerRefund, matchId, false, takerOrderId);
    return;
  }
  s.pending[s.eventCount++] = { ...matched, legs: legParts! };
  reportLegRefunds(s, legs, maker, taker, matchId, makerOrderId, takerOrderId);
}

function takerDone(
  s: EngineState,
  c: PlaceOrderCommand,
  tick: number,
  reason: DoneReason,
  remaining: bigint,
): void {
  s.pending[s.eventCount++] = {
    type: 'orderDone',
    orderId: c.orderId,
    account: c.account,
    marketHash: c.marketHash,
    isBettingOutcomeOne: c.isBettingOutcomeOne,
    tick,
    reason,
    totalBetSize: c.totalBetSize,
    filledSize: filled(c.totalBetSize, remaining),
    remainingSize: remaining,
    wasResting: false,
  };
}
