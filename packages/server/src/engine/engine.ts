import {
  flush,
  levelChanged,
  rejectCommand,
  takeEvents,
  touchAccount,
  touchLevel,
} from './command-events.js';
import {
  type CancelReason,
  type EngineCommand,
  type FillToReverse,
  type MarketOutcome,
  type PlaceOrderCommand,
  TimeInForce,
} from './commands.js';
import { EngineState } from './engine-state.js';
import {
  type DoneReason,
  type EngineEvent,
  type LevelChangedEvent,
  type OrderDoneEvent,
  type OrderMatchedEvent,
  type OrderRestedEvent,
  type QuarterLineLeg,
  RejectCode,
} from './events.js';
import { createLadder, DEFAULT_LADDER_SIZE, type Ladder, tickOfOdds } from './ladder.js';
import { guaranteedReceipt, MarketBook, MarketStatus, P, splitStake } from './market-book.js';
import { hashId, OrderIndex } from './order-index.js';
import {
  F,
  FILLED,
  MAX_EXPIRY,
  MAX_ORDER_SIZE,
  NIL,
  OrderStore,
  SIDE_SHIFT,
  TICK_MASK,
  U,
} from './order-store.js';
import type { EngineSnapshot, MarketSnapshot, OrderSnapshot } from './snapshot.js';
import { ByteReader, ByteWriter, SnapshotFormatError } from './snapshot-codec.js';
import type { AccountBalance, BookLevels, LevelView, MarketView, OrderView, PositionView } from './views.js';

export interface EngineOptions {
  /** Ticks per unit of probability (N); 800 for an `oddsLadderStepSize` of 125. */
  readonly ladderSize?: number;
  /** Capital efficiency (issue 25): each fill refunds the rise of its parties' guaranteed receipts. Default on. */
  readonly capitalEfficiency?: boolean;
  /**
   * With capital efficiency on, the first command seq it applies to (default 0: all). A journal begun
   * before the exchange had it replays its earlier commands as they were applied.
   */
  readonly capitalEfficiencyFromSeq?: number;
  /**
   * Honest liquidity (issue 34): an account's exposure (the remaining maker stakes of its resting orders)
   * never exceeds its available balance. A GTC order that would rest beyond it is refused or its remainder
   * cancelled (`INSUFFICIENT_BALANCE`), and when the balance falls below the exposure the account's newest
   * resting orders are pulled. Default on.
   */
  readonly honestLiquidity?: boolean;
  /** With honest liquidity on, the first command seq it applies to (default 0: all), as for capital efficiency. */
  readonly honestLiquidityFromSeq?: number;
}

/** The rules a journal's engines run with: what a restored engine takes besides its snapshot. */
export type EngineRuleOptions = Pick<
  EngineOptions,
  'capitalEfficiency' | 'capitalEfficiencyFromSeq' | 'honestLiquidity' | 'honestLiquidityFromSeq'
>;

/**
 * FOK dry run: adds one fill to what the walk has added to a party's position, `adds` = [stake, pot] on the
 * market, or [stake, pot] on each leg of a quarter-line market, its stake split as `fill` splits it.
 */
function dryAdd(market: MarketBook, adds: bigint[], own: bigint, other: bigint): void {
  if (market.legs === null) {
    adds[0]! += own;
    adds[1]! += own + other;
    return;
  }
  const [own0, own1] = splitStake(own);
  const [other0, other1] = splitStake(other);
  adds[0]! += own0;
  adds[1]! += own0 + other0;
  adds[2]! += own1;
  adds[3]! += own1 + other1;
}

/** FOK dry run: the refund a party would have had if `adds` (see `dryAdd`) were on its position. */
function dryRefund(market: MarketBook, account: number, stakeField: number, adds: readonly bigint[]): bigint {
  const legs = market.legs;
  if (legs === null) {
    return market.refundIfFilled(market.findPositionSlot(account), stakeField, adds[0]!, adds[1]!);
  }
  return (
    legs[0].refundIfFilled(legs[0].findPositionSlot(account), stakeField, adds[0]!, adds[1]!) +
    legs[1].refundIfFilled(legs[1].findPositionSlot(account), stakeField, adds[2]!, adds[3]!)
  );
}

/** How a taker's walk through the book ended. */
const Stop = { FILLED: 0, DUST: 1, TAKER_FUNDS: 2, EXHAUSTED: 3 } as const;
type Stop = (typeof Stop)[keyof typeof Stop];

/**
 * The matching engine: ladder books, resting orders and balances, changed only by `apply`.
 * Deterministic: the same commands always give the same events and the same state.
 */
export class Engine extends EngineState {
  constructor(options: EngineOptions = {}) {
    super(
      options.ladderSize ?? DEFAULT_LADDER_SIZE,
      options.capitalEfficiency === false
        ? Number.POSITIVE_INFINITY
        : (options.capitalEfficiencyFromSeq ?? 0),
      options.honestLiquidity === false ? Number.POSITIVE_INFINITY : (options.honestLiquidityFromSeq ?? 0),
    );
  }

  get lastAppliedSeq(): number {
    return this.lastSeq;
  }

  /** Applies one command and returns what happened. Throws only on a caller bug (seq not increasing). */
  apply(command: EngineCommand): readonly EngineEvent[] {
    if (!Number.isSafeInteger(command.seq) || command.seq <= this.lastSeq) {
      throw new RangeError(`command seq must increase: ${command.seq} after ${this.lastSeq}`);
    }
    this.lastSeq = command.seq;
    if (!this.capitalEfficiency && command.seq >= this.capitalEfficiencyFromSeq) {
      this.capitalEfficiency = true;
      for (const market of this.markets) market.capitalEfficiency = true;
    }
    this.seq = command.seq;
    this.ts = command.ts;
    this.matchCount = 0;
    this.eventCount = 0;
    if (!this.honestLiquidity && command.seq >= this.honestLiquidityFromSeq) {
      this.honestLiquidity = true;
      // A journal begun before the rule may hold promises beyond balances: they go before anything else.
      for (let a = 0; a < this.accounts.names.length; a++) this.pullExcess(a);
    }
    switch (command.type) {
      case 'place': {
        const events = this.place(command);
        if (events !== undefined) return events;
        break;
      }
      case 'cancel':
        if (command.orderIds.length === 1) {
          return this.cancelOne(command.orderIds[0]!, command.account, command.reason ?? 'USER_REQUESTED');
        }
        this.cancelOrders(command.orderIds, command.account, command.reason ?? 'USER_REQUESTED');
        break;
      case 'cancelMarket': {
        const market = this.marketByHash.get(command.marketHash);
        if (market === undefined) rejectCommand(this, command.type, RejectCode.MARKET_NOT_FOUND);
        else this.cancelInMarket(market, command.account, command.reason);
        break;
      }
      case 'cancelEvent':
        for (const market of this.marketsByEvent.get(command.eventId) ?? []) {
          this.cancelInMarket(market, command.account, command.reason);
        }
        break;
      case 'cancelAccount':
        this.cancelAccount(command.account, command.reason);
        break;
      case 'expire':
        this.expire();
        break;
      case 'openMarket':
        this.openMarket(command.marketHash, command.eventId, command.legs);
        break;
      case 'closeMarket':
        this.closeMarket(command.marketHash);
        break;
      case 'resolveMarket':
        this.resolveMarket(command.marketHash, command.outcome);
        break;
      case 'credit':
        this.credit(command.account, command.amount);
        break;
      case 'debit':
        this.debit(command.account, command.amount);
        break;
      case 'reverseFill':
        this.reverseFill(command.fill);
        break;
      default:
        throw new TypeError(`unknown command ${(command as { type: string }).type}`);
    }
    flush(this);
    return takeEvents(this);
  }

  // ---------------------------------------------------------------- orders

  /**
   * Matches or rests a place command. The commonest case, a GTC order that nothing on the other side can
   * cross, is done here and its three events returned at once; otherwise (undefined) the events are left
   * for `apply` to collect.
   */
  private place(c: PlaceOrderCommand): EngineEvent[] | undefined {
    // Orders mostly arrive for the market of the last one: one string comparison instead of a lookup.
    let market = this.lastMarket;
    if (market === undefined || c.marketHash !== market.marketHash) {
      market = this.marketByHash.get(c.marketHash);
      if (market !== undefined) this.lastMarket = market;
    }
    const tick = tickOfOdds(this.ladder, c.percentageOdds);
    const hash = hashId(c.orderId);
    const code =
      market === undefined
        ? RejectCode.MARKET_NOT_FOUND
        : market.status !== MarketStatus.OPEN
          ? RejectCode.MARKET_CLOSED
          : this.orderIndex.find(c.orderId, hash) !== NIL
            ? RejectCode.DUPLICATE_ORDER_ID
            : this.validateOrder(c, tick);
    if (code !== undefined || market === undefined) {
      this.pending[this.eventCount++] = {
        type: 'orderRejected',
        orderId: c.orderId,
        account: c.account,
        marketHash: c.marketHash,
        code: code ?? RejectCode.MARKET_NOT_FOUND,
      };
      return undefined;
    }
    const ladder = this.ladder;
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
    const taker = this.accounts.indexOf(c.account);
    // Nothing on the other side reaches the order's limit (best tick + own tick < N): a GTC order rests
    // whole, as the walk would find nothing (sizes are at least N, more than one lot at any tick).
    if (c.timeInForce === TimeInForce.GTC && market.best[1 - side]! + tick < ladder.size) {
      if (this.honestLiquidity && size > this.freeBalance(taker)) {
        this.pending[this.eventCount++] = {
          type: 'orderRejected',
          orderId: c.orderId,
          account: c.account,
          marketHash: c.marketHash,
          code: RejectCode.INSUFFICIENT_BALANCE,
        };
        return undefined;
      }
      const rested = this.rest(c, market, taker, side, tick, size, hash, true);
      market.version++;
      return [accepted, rested, levelChanged(this, market, side * ladder.size + tick)];
    }
    this.pending[this.eventCount++] = accepted;

    if (c.timeInForce === TimeInForce.FOK) {
      const stop = this.walk(market, c.orderId, taker, side, tick, size, true);
      if (stop !== Stop.FILLED && stop !== Stop.DUST) {
        this.takerDone(c, tick, stop === Stop.TAKER_FUNDS ? 'INSUFFICIENT_BALANCE' : 'NO_LIQUIDITY', size);
        return undefined;
      }
    }
    const stop = this.walk(market, c.orderId, taker, side, tick, size, false);
    const remaining = this.walkRemaining;
    if (stop === Stop.FILLED || stop === Stop.DUST) this.takerDone(c, tick, 'FILLED', remaining);
    else if (stop === Stop.TAKER_FUNDS) this.takerDone(c, tick, 'INSUFFICIENT_BALANCE', remaining);
    else if (c.timeInForce !== TimeInForce.GTC) this.takerDone(c, tick, 'NO_LIQUIDITY', remaining);
    else if (remaining < ladder.makerLot[tick]!) this.takerDone(c, tick, 'FILLED', remaining);
    else if (this.honestLiquidity && remaining > this.freeBalance(taker)) {
      // The remainder would promise more than the account holds beyond its other resting orders.
      this.takerDone(c, tick, 'INSUFFICIENT_BALANCE', remaining);
    } else {
      touchLevel(this, market, side * ladder.size + tick);
      const untouched = remaining === c.totalBetSize;
      this.pending[this.eventCount++] = this.rest(c, market, taker, side, tick, remaining, hash, untouched);
    }
    // Taking may spend what backs the account's resting orders: the newest go until the rest are paid for.
    if (this.honestLiquidity) this.pullExcess(taker);
    return undefined;
  }

  private validateOrder(c: PlaceOrderCommand, tick: number): RejectCode | undefined {
    if (tick === 0) return RejectCode.INVALID_TICK;
    // At least N units, so that a fresh order can always trade one whole lot at any price.
    if (c.totalBetSize < this.minOrderSize || c.totalBetSize > MAX_ORDER_SIZE) {
      return RejectCode.INVALID_SIZE;
    }
    if (!Number.isSafeInteger(c.expiry) || c.expiry <= 0 || c.expiry > MAX_EXPIRY)
      return RejectCode.INVALID_EXPIRY;
    if (c.expiry * 1000 <= this.ts) return RejectCode.ORDER_EXPIRED;
    return undefined;
  }

  /**
   * Walks the opposite side best price first, oldest first, skipping the taker's own orders.
   * With `dry` nothing changes (the FOK pre-check); funds already promised in the walk are tracked in
   * `spent`. Leaves the taker's unfilled stake in `walkRemaining`.
   */
  private walk(
    market: MarketBook,
    takerOrderId: string,
    taker: number,
    side: number,
    tick: number,
    size: bigint,
    dry: boolean,
  ): Stop {
    const store = this.store;
    const accounts = this.accounts;
    const available = accounts.available;
    const ladder = this.ladder;
    const n = ladder.size;
    const other = 1 - side;
    const base = other * n;
    const minTick = n - tick;
    const spent = this.spent;
    const spentAdds = this.spentAdds;
    let takerSpent = 0n;
    /** In the dry run: what the walk has added to the taker's position, and the refund it would have had. */
    const takerAdds = this.takerAdds;
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
        if (store.u32[(h << 4) + F.EXPIRY]! * 1000 <= this.ts) {
          if (!dry) this.removeResting(h, 'EXPIRED');
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
        const makerAvailable = dry ? this.dryAvailable(market, maker, other) : available.get(maker);
        if (makerAvailable < a) {
          if (!dry) this.removeResting(h, 'INSUFFICIENT_BALANCE');
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
          this.fill(market, h, taker, k, makerStake, takerStake, makerLeft, takerOrderId, remaining);
        }
        // A maker left with less than one lot is done; otherwise the next turn sees why the fill stopped.
        if (makerLeft < a) {
          if (!dry) this.removeResting(h, 'FILLED');
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
    this.walkRemaining = remaining;
    return stop;
  }

  /**
   * In the FOK dry run: what a maker betting on `makerSide` would have available after the fills the walk
   * has promised it so far, their stakes paid and their capital-efficiency refund received.
   */
  private dryAvailable(market: MarketBook, maker: number, makerSide: number): bigint {
    const available = this.accounts.available.get(maker);
    const stake = this.spent.get(maker);
    if (stake === undefined) return available;
    return available - stake + dryRefund(market, maker, makerSide, this.spentAdds.get(maker)!);
  }

  private fill(
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
    const store = this.store;
    const accounts = this.accounts;
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
      legParts = this.fillLegs(legs, maker, taker, makerStakeField, makerStake, takerStake);
      const r = this.legRefunds;
      makerRefund = r[0]! + r[2]!;
      takerRefund = r[1]! + r[3]!;
    }
    // Both stakes move from available to escrow, and each refund back: one net move per party.
    this.lock(maker, makerStake, makerRefund);
    this.lock(taker, takerStake, takerRefund);
    touchAccount(this, maker);
    touchAccount(this, taker);
    store.u64[(h << 3) + U.REMAINING] = makerLeft;
    store.i32[(h << 4) + F.TICK_SIDE] = tickSide | FILLED;
    accounts.exposure.decrease(maker, makerStake);
    const level = makerSide * this.ladder.size + tick;
    market.total[level] -= makerStake;
    touchLevel(this, market, level);
    const ladder = this.ladder;
    const matchId = `${this.seq}-${this.matchCount++}`;
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
      this.pending[this.eventCount++] = matched;
      if (makerRefund !== 0n) this.refund(market, maker, mp, makerRefund, matchId, true, makerOrderId);
      if (takerRefund !== 0n) this.refund(market, taker, tp, takerRefund, matchId, false, takerOrderId);
      return;
    }
    this.pending[this.eventCount++] = { ...matched, legs: legParts! };
    const r = this.legRefunds;
    for (let i = 0; i < 2; i++) {
      const leg = legs[i]!;
      if (r[2 * i] !== 0n) {
        this.refund(leg, maker, leg.findPositionSlot(maker), r[2 * i]!, matchId, true, makerOrderId);
      }
      if (r[2 * i + 1] !== 0n) {
        this.refund(leg, taker, leg.findPositionSlot(taker), r[2 * i + 1]!, matchId, false, takerOrderId);
      }
    }
  }

  /**
   * A quarter-line fill on its legs: half of each stake (`splitStake`) on each leg's positions, each half's
   * pot the sum of the two halves. Leaves the refunds in `legRefunds`: maker and taker on the whole line,
   * then on the half line; returns the halves (the fill event's `legs`).
   */
  private fillLegs(
    legs: readonly [MarketBook, MarketBook],
    maker: number,
    taker: number,
    makerStakeField: number,
    makerStake: bigint,
    takerStake: bigint,
  ): readonly [QuarterLineLeg, QuarterLineLeg] {
    const takerStakeField = 1 - makerStakeField;
    const makerHalves = splitStake(makerStake);
    const takerHalves = splitStake(takerStake);
    const part = (i: 0 | 1): QuarterLineLeg => {
      const leg = legs[i];
      const m = makerHalves[i];
      const t = takerHalves[i];
      this.legRefunds[2 * i] = leg.fill(leg.positionSlot(maker), makerStakeField, m, m + t);
      this.legRefunds[2 * i + 1] = leg.fill(leg.positionSlot(taker), takerStakeField, t, m + t);
      return { marketHash: leg.marketHash, makerStake: m, takerStake: t };
    };
    return [part(0), part(1)];
  }

  /** Moves a fill's `stake` from the account's available balance to escrow, and its `refund` back. */
  private lock(a: number, stake: bigint, refund: bigint): void {
    const available = this.accounts.available;
    const escrowed = this.accounts.escrowed;
    if (refund === 0n) {
      available.decrease(a, stake);
      escrowed.increase(a, stake);
    } else if (refund <= stake) {
      const locked = stake - refund;
      available.decrease(a, locked);
      escrowed.increase(a, locked);
    } else {
      const freed = refund - stake;
      available.increase(a, freed);
      escrowed.decrease(a, freed);
    }
  }

  /** Reports a capital-efficiency refund, already moved by `lock` (see `CeRefundEvent`). */
  private refund(
    market: MarketBook,
    a: number,
    slot: number,
    amount: bigint,
    matchId: string,
    maker: boolean,
    orderId: string,
  ): void {
    const accounts = this.accounts;
    this.pending[this.eventCount++] = {
      type: 'ceRefund',
      account: accounts.names[a]!,
      marketHash: market.marketHash,
      eventId: market.eventId,
      amount,
      refundedTotal: market.refunded(slot),
      matchId,
      maker,
      orderId,
    };
  }

  private rest(
    c: PlaceOrderCommand,
    market: MarketBook,
    account: number,
    side: number,
    tick: number,
    remaining: bigint,
    hash: number,
    untouched: boolean,
  ): OrderRestedEvent {
    const store = this.store;
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
    store.placed[h] = this.seq;
    market.append(store, h, remaining);
    this.accounts.append(store, account, h);
    this.accounts.exposure.increase(account, remaining);
    this.expiries.add(store, h);
    this.orderIndex.addHashed(hash, h);
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

  private takerDone(c: PlaceOrderCommand, tick: number, reason: DoneReason, remaining: bigint): void {
    this.pending[this.eventCount++] = {
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

  /** Takes a resting order off the book and every index, and reports it done. */
  private removeResting(h: number, reason: DoneReason): void {
    // As in `cancellable`: the loads of the neighbours' lines overlap with the index probe that follows.
    if (!this.linkedBothWays(h))
      throw new Error(`engine invariant broken: links of order ${this.store.ids[h]}`);
    this.orderIndex.removeHandle(h);
    const done = this.unrest(h, reason);
    touchLevel(this, this.unrestMarket!, this.unrestLevel);
    this.pending[this.eventCount++] = done;
  }

  /**
   * Takes a resting order, already out of the id index, off the book and every other index; returns its
   * `orderDone` event and leaves its market and level in `unrestMarket` and `unrestLevel`.
   */
  private unrest(h: number, reason: DoneReason): OrderDoneEvent {
    const store = this.store;
    const market = this.markets[store.i32[(h << 4) + F.MARKET]!]!;
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
    this.accounts.unlink(store, account, h);
    this.accounts.exposure.decrease(account, remaining);
    this.expiries.remove(store, h);
    this.unrestMarket = market;
    this.unrestLevel = side * this.ladder.size + tick;
    const done: OrderDoneEvent = {
      type: 'orderDone',
      orderId,
      account: this.accounts.names[account]!,
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

  // ---------------------------------------------------------------- cancels

  /**
   * Checks that resting order `h` is linked both ways with its neighbours in its three lists. Called before
   * a cancel compares the stored id, which usually waits on memory: these reads of every cache line the
   * removal will touch (its record, its neighbours' records) then overlap with that wait instead of
   * following it, and a broken link (a bug) stops the engine instead of corrupting the book.
   */
  private linkedBothWays(h: number): boolean {
    const i32 = this.store.i32;
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

  /**
   * The index slot of resting order `orderId` if it may be cancelled (with `account` set, only that
   * account's), else NIL.
   */
  private cancellable(orderId: string, account: string | undefined): number {
    const index = this.orderIndex;
    const ids = this.store.ids;
    const hash = hashId(orderId);
    for (let slot = index.candidate(hash, hash); slot !== NIL; slot = index.candidate(hash, slot + 1)) {
      const h = index.handleAt(slot);
      if (!this.linkedBothWays(h)) throw new Error(`engine invariant broken: links of order ${ids[h]}`);
      if (ids[h] === orderId) {
        // The owner check compares names (usually the very same string) rather than looking one up.
        const owner = this.accounts.names[this.store.i32[(h << 4) + F.ACCOUNT]!];
        return account === undefined || owner === account ? slot : NIL;
      }
    }
    return NIL;
  }

  /** A cancel of one id, the common case: its events without the general collection. */
  private cancelOne(orderId: string, account: string | undefined, reason: CancelReason): EngineEvent[] {
    const slot = this.cancellable(orderId, account);
    if (slot === NIL) return [{ type: 'cancelRejected', orderId, code: 'NOT_FOUND' }];
    const h = this.orderIndex.handleAt(slot);
    this.orderIndex.removeSlot(slot);
    const done = this.unrest(h, reason);
    const market = this.unrestMarket!;
    market.version++;
    return [done, levelChanged(this, market, this.unrestLevel)];
  }

  private cancelOrders(orderIds: readonly string[], account: string | undefined, reason: CancelReason): void {
    const index = this.orderIndex;
    for (let i = 0; i < orderIds.length; i++) {
      const orderId = orderIds[i]!;
      const slot = this.cancellable(orderId, account);
      if (slot === NIL) {
        this.pending[this.eventCount++] = { type: 'cancelRejected', orderId, code: 'NOT_FOUND' };
      } else {
        const h = index.handleAt(slot);
        index.removeSlot(slot);
        const done = this.unrest(h, reason);
        touchLevel(this, this.unrestMarket!, this.unrestLevel);
        this.pending[this.eventCount++] = done;
      }
    }
  }

  private cancelInMarket(market: MarketBook, account: string | undefined, reason: DoneReason): void {
    const store = this.store;
    if (account === undefined) {
      for (const h of market.handlesInPlacementOrder(store)) this.removeResting(h, reason);
      return;
    }
    const a = this.accounts.find(account);
    if (a === NIL) return;
    let h = this.accounts.orderHead[a]!;
    while (h !== NIL) {
      const next = store.i32[(h << 4) + F.ACCOUNT_NEXT]!;
      if (store.i32[(h << 4) + F.MARKET] === market.index) this.removeResting(h, reason);
      h = next;
    }
  }

  private cancelAccount(account: string, reason: DoneReason): void {
    const a = this.accounts.find(account);
    if (a === NIL) return;
    let h = this.accounts.orderHead[a]!;
    while (h !== NIL) {
      const next = this.store.i32[(h << 4) + F.ACCOUNT_NEXT]!;
      this.removeResting(h, reason);
      h = next;
    }
  }

  private expire(): void {
    const now = (this.ts - (this.ts % 1000)) / 1000;
    for (let key = this.expiries.nextDue(now); key !== -1; key = this.expiries.nextDue(now)) {
      let h = this.expiries.first(key);
      while (h !== NIL) {
        const next = this.store.i32[(h << 4) + F.EXPIRY_NEXT]!;
        this.removeResting(h, 'EXPIRED');
        h = next;
      }
    }
  }

  // ---------------------------------------------------------------- markets

  private openMarket(marketHash: string, eventId: string, legHashes?: readonly [string, string]): void {
    if (this.marketByHash.has(marketHash)) {
      rejectCommand(this, 'openMarket', RejectCode.MARKET_EXISTS);
      return;
    }
    if (legHashes === undefined) {
      this.addMarket(marketHash, eventId);
      this.pending[this.eventCount++] = { type: 'marketOpened', marketHash, eventId };
      return;
    }
    const legs = legHashes.map((hash) => this.marketByHash.get(hash));
    const valid =
      legHashes.length === 2 &&
      legHashes[0] !== legHashes[1] &&
      legs.every((leg) => leg?.status === MarketStatus.OPEN && leg.legs === null && leg.eventId === eventId);
    if (!valid) {
      rejectCommand(this, 'openMarket', RejectCode.INVALID_LEGS);
      return;
    }
    this.linkLegs(this.addMarket(marketHash, eventId), legs[0]!, legs[1]!);
    this.pending[this.eventCount++] = { type: 'marketOpened', marketHash, eventId, legs: legHashes };
  }

  private linkLegs(market: MarketBook, whole: MarketBook, half: MarketBook): void {
    market.legs = [whole, half];
    whole.parents.push(market);
    half.parents.push(market);
  }

  /** A leg closing or resolved: its open quarter-line markets stop trading (their orders cancelled). */
  private closeParents(leg: MarketBook): void {
    for (const parent of leg.parents) {
      if (parent.status !== MarketStatus.OPEN) continue;
      parent.status = MarketStatus.CLOSED;
      this.pending[this.eventCount++] = {
        type: 'marketClosed',
        marketHash: parent.marketHash,
        eventId: parent.eventId,
      };
      this.cancelInMarket(parent, undefined, 'EVENT_LIFECYCLE');
    }
  }

  private addMarket(marketHash: string, eventId: string): MarketBook {
    const market = new MarketBook(
      this.markets.length,
      marketHash,
      eventId,
      this.ladder.size,
      this.capitalEfficiency,
    );
    this.markets.push(market);
    this.marketByHash.set(marketHash, market);
    let list = this.marketsByEvent.get(eventId);
    if (list === undefined) {
      list = [];
      this.marketsByEvent.set(eventId, list);
    }
    list.push(market);
    return market;
  }

  private closeMarket(marketHash: string): void {
    const market = this.marketByHash.get(marketHash);
    if (market === undefined) {
      rejectCommand(this, 'closeMarket', RejectCode.MARKET_NOT_FOUND);
      return;
    }
    if (market.status === MarketStatus.RESOLVED) {
      rejectCommand(this, 'closeMarket', RejectCode.MARKET_RESOLVED);
      return;
    }
    if (market.status === MarketStatus.CLOSED) {
      rejectCommand(this, 'closeMarket', RejectCode.MARKET_CLOSED);
      return;
    }
    market.status = MarketStatus.CLOSED;
    this.pending[this.eventCount++] = { type: 'marketClosed', marketHash, eventId: market.eventId };
    this.cancelInMarket(market, undefined, 'EVENT_LIFECYCLE');
    this.closeParents(market);
  }

  private resolveMarket(marketHash: string, outcome: MarketOutcome): void {
    const market = this.marketByHash.get(marketHash);
    if (market === undefined) {
      rejectCommand(this, 'resolveMarket', RejectCode.MARKET_NOT_FOUND);
      return;
    }
    if (market.status === MarketStatus.RESOLVED) {
      rejectCommand(this, 'resolveMarket', RejectCode.MARKET_RESOLVED);
      return;
    }
    if (outcome !== 0 && outcome !== 1 && outcome !== 2) {
      rejectCommand(this, 'resolveMarket', RejectCode.INVALID_OUTCOME);
      return;
    }
    if (market.legs !== null) {
      rejectCommand(this, 'resolveMarket', RejectCode.QUARTER_LINE_MARKET);
      return;
    }
    market.status = MarketStatus.RESOLVED;
    this.pending[this.eventCount++] = {
      type: 'marketResolved',
      marketHash,
      eventId: market.eventId,
      outcome,
    };
    this.cancelInMarket(market, undefined, 'EVENT_LIFECYCLE');
    this.closeParents(market);
    const accounts = this.accounts;
    const slots = market.holders.map((_, slot) => slot);
    slots.sort((x, y) =>
      compareStrings(accounts.names[market.holders[x]!]!, accounts.names[market.holders[y]!]!),
    );
    for (const slot of slots) {
      const a = market.holders[slot]!;
      const stakes = market.positionValue(slot, P.STAKE_ONE) + market.positionValue(slot, P.STAKE_TWO);
      const won =
        outcome === 1
          ? market.positionValue(slot, P.POT_ONE)
          : outcome === 2
            ? market.positionValue(slot, P.POT_TWO)
            : stakes;
      // What capital efficiency refunded is at most each of the three: it was paid early, not again.
      const refunded = market.refunded(slot);
      const stake = stakes - refunded;
      const payout = won - refunded;
      accounts.escrowed.decrease(a, stake);
      touchAccount(this, a);
      this.pending[this.eventCount++] = {
        type: 'payout',
        account: accounts.names[a]!,
        marketHash,
        eventId: market.eventId,
        outcome,
        stake,
        payout,
      };
      this.receive(a, payout);
    }
    market.clearPositions();
  }

  // ---------------------------------------------------------------- balances

  private credit(account: string, amount: bigint): void {
    if (amount <= 0n) {
      rejectCommand(this, 'credit', RejectCode.INVALID_AMOUNT);
      return;
    }
    const a = this.accounts.indexOf(account);
    this.netDeposits += amount;
    touchAccount(this, a);
    this.receive(a, amount);
  }

  /** Money an account receives: what it owes is paid back into escrow first (`debtChanged`), the rest is available. */
  private receive(a: number, amount: bigint): void {
    const accounts = this.accounts;
    const owed = accounts.owed.get(a);
    if (owed === 0n || amount === 0n) {
      accounts.available.increase(a, amount);
      return;
    }
    const repaid = amount < owed ? amount : owed;
    accounts.owed.decrease(a, repaid);
    accounts.available.increase(a, amount - repaid);
    this.pending[this.eventCount++] = {
      type: 'debtChanged',
      account: accounts.names[a]!,
      owed: owed - repaid,
      repaid,
    };
  }

  // ---------------------------------------------------------------- reversals

  /**
   * Takes back a fill whose settlement failed on the chain (see `ReverseFillCommand`): for each party its
   * positions without the fill, the fill's own money move undone, and the refunds settled to what the
   * position is still certain of. What a party cannot pay back of refunds it already spent it owes.
   */
  private reverseFill(fill: FillToReverse): void {
    const market = this.marketByHash.get(fill.marketHash);
    if (market === undefined) {
      rejectCommand(this, 'reverseFill', RejectCode.MARKET_NOT_FOUND);
      return;
    }
    const parts =
      market.legs === null
        ? [{ market, makerStake: fill.makerStake, takerStake: fill.takerStake }]
        : market.legs.map((leg, i) => {
            const part = fill.legs?.[i];
            return part?.marketHash === leg.marketHash
              ? { market: leg, makerStake: part.makerStake, takerStake: part.takerStake }
              : null;
          });
    if (parts.some((p) => p === null || p.market.status === MarketStatus.RESOLVED)) {
      rejectCommand(
        this,
        'reverseFill',
        parts.some((p) => p === null) ? RejectCode.FILL_NOT_HELD : RejectCode.MARKET_RESOLVED,
      );
      return;
    }
    const accounts = this.accounts;
    const makerStakeField = fill.makerIsBettingOutcomeOne ? P.STAKE_ONE : P.STAKE_TWO;
    const sides = [
      { name: fill.makerAccount, stake: fill.makerStake, field: makerStakeField, maker: true },
      { name: fill.takerAccount, stake: fill.takerStake, field: 1 - makerStakeField, maker: false },
    ];
    // Checked before anything changes: each party holds its part of the fill.
    for (const side of sides) {
      const a = accounts.find(side.name);
      for (const p of parts) {
        const slot = a === NIL ? NIL : p!.market.findPositionSlot(a);
        const stake = side.maker ? p!.makerStake : p!.takerStake;
        if (slot === NIL || p!.market.positionValue(slot, side.field) < stake) {
          rejectCommand(this, 'reverseFill', RejectCode.FILL_NOT_HELD);
          return;
        }
      }
    }
    const refundOf = (account: string, marketHash: string) => {
      let sum = 0n;
      for (const r of fill.refunds) if (r.account === account && r.marketHash === marketHash) sum += r.amount;
      return sum;
    };
    const parties: { account: string; walletDelta: bigint }[] = [];
    const adjusted: EngineEvent[] = [];
    for (const side of sides) {
      const a = accounts.find(side.name);
      let ownRefund = 0n;
      let refundChange = 0n;
      for (const p of parts) {
        const m = p!.market;
        const slot = m.findPositionSlot(a);
        const stake = side.maker ? p!.makerStake : p!.takerStake;
        const change = m.unfill(slot, side.field, stake, p!.makerStake + p!.takerStake);
        if (change === null) throw new Error(`engine invariant broken: reversing ${fill.matchId}`);
        ownRefund += refundOf(side.name, m.marketHash);
        refundChange += change;
        adjusted.push({
          type: 'positionAdjusted',
          account: side.name,
          marketHash: m.marketHash,
          stakeOne: m.positionValue(slot, P.STAKE_ONE),
          stakeTwo: m.positionValue(slot, P.STAKE_TWO),
          potOne: m.positionValue(slot, P.POT_ONE),
          potTwo: m.positionValue(slot, P.POT_TWO),
          refunded: m.refunded(slot),
        });
      }
      // Its stake leaves escrow, and escrow holds the positions' stakes less what is now refunded of them.
      const before = accounts.available.get(a);
      const net = side.stake + refundChange;
      accounts.escrowed.set(a, accounts.escrowed.get(a) - net);
      let after = before + net;
      const owed = accounts.owed.get(a);
      if (after < 0n) {
        accounts.owed.set(a, owed - after);
        adjusted.push({ type: 'debtChanged', account: side.name, owed: owed - after, repaid: 0n });
        after = 0n;
      } else if (owed > 0n && after > 0n) {
        // It owed (so held nothing available): what comes back pays that first.
        const repaid = after < owed ? after : owed;
        accounts.owed.set(a, owed - repaid);
        adjusted.push({ type: 'debtChanged', account: side.name, owed: owed - repaid, repaid });
        after -= repaid;
      }
      accounts.available.set(a, after);
      touchAccount(this, a);
      // On the chain the fill never moved anything: the wallet holds `before` plus the fill's own move, its
      // stake less the refunds it made (which later reversals may have taken back here already).
      parties.push({ account: side.name, walletDelta: after - (before + side.stake - ownRefund) });
    }
    this.pending[this.eventCount++] = {
      type: 'fillReversed',
      matchId: fill.matchId,
      marketHash: fill.marketHash,
      eventId: market.eventId,
      parties,
    };
    for (const e of adjusted) this.pending[this.eventCount++] = e;
    if (this.honestLiquidity) for (const side of sides) this.pullExcess(accounts.find(side.name));
  }

  private debit(account: string, amount: bigint): void {
    if (amount <= 0n) {
      rejectCommand(this, 'debit', RejectCode.INVALID_AMOUNT);
      return;
    }
    const a = this.accounts.find(account);
    if (a === NIL || this.accounts.available.get(a) < amount) {
      rejectCommand(this, 'debit', RejectCode.INSUFFICIENT_BALANCE);
      return;
    }
    this.accounts.available.decrease(a, amount);
    this.netDeposits -= amount;
    touchAccount(this, a);
    if (this.honestLiquidity) this.pullExcess(a);
  }

  /** What an account holds beyond what its resting orders promise (negative only in a journal begun before the rule). */
  private freeBalance(a: number): bigint {
    return this.accounts.available.get(a) - this.accounts.exposure.get(a);
  }

  /** Pulls the account's newest resting orders (`INSUFFICIENT_BALANCE`) until its exposure fits its available balance. */
  private pullExcess(a: number): void {
    const accounts = this.accounts;
    while (accounts.exposure.get(a) > accounts.available.get(a)) {
      const newest = accounts.orderTail[a]!;
      if (newest === NIL) return;
      this.removeResting(newest, 'INSUFFICIENT_BALANCE');
    }
  }

  // ---------------------------------------------------------------- reads

  /** A resting order, or undefined once it has left the book (or never rested). */
  order(orderId: string): OrderView | undefined {
    const h = this.orderIndex.get(orderId);
    return h === NIL ? undefined : this.orderView(h);
  }

  /** An account's resting orders in placement order. */
  openOrders(account: string): OrderView[] {
    const a = this.accounts.find(account);
    const out: OrderView[] = [];
    if (a === NIL) return out;
    for (let h = this.accounts.orderHead[a]!; h !== NIL; h = this.store.i32[(h << 4) + F.ACCOUNT_NEXT]!) {
      out.push(this.orderView(h));
    }
    return out;
  }

  /** Aggregated levels of both sides, best first, in the maker frame; undefined for an unknown market. */
  levels(marketHash: string, depth = Number.POSITIVE_INFINITY): BookLevels | undefined {
    const market = this.marketByHash.get(marketHash);
    if (market === undefined) return undefined;
    const side = (s: number): LevelView[] => {
      const out: LevelView[] = [];
      const base = s * this.ladder.size;
      for (let k = market.best[s]!; k > 0 && out.length < depth; k--) {
        const count = market.count[base + k]!;
        if (count > 0) {
          out.push({
            tick: k,
            percentageOdds: this.ladder.odds[k]!,
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
      outcomeOne: side(0),
      outcomeTwo: side(1),
      version: market.version,
    };
  }

  /** Every market the engine has opened, in no particular order. */
  marketHashes(): IterableIterator<string> {
    return this.marketByHash.keys();
  }

  /** Highest tick with resting orders betting that outcome, 0 when none (or unknown market). */
  bestTick(marketHash: string, isBettingOutcomeOne: boolean): number {
    return this.marketByHash.get(marketHash)?.best[isBettingOutcomeOne ? 0 : 1] ?? 0;
  }

  /** True when some resting order's expiry (unix seconds) is at or before `nowMs`: an `expire` is due. */
  hasDueExpiries(nowMs: number): boolean {
    return this.expiries.nextDue((nowMs - (nowMs % 1000)) / 1000) !== -1;
  }

  bookVersion(marketHash: string): number {
    return this.marketByHash.get(marketHash)?.version ?? 0;
  }

  market(marketHash: string): MarketView | undefined {
    const m = this.marketByHash.get(marketHash);
    if (m === undefined) return undefined;
    return { marketHash, eventId: m.eventId, status: m.status, version: m.version, restingOrders: m.orders };
  }

  balance(account: string): AccountBalance {
    const a = this.accounts.find(account);
    if (a === NIL) return { available: 0n, escrowed: 0n };
    return { available: this.accounts.available.get(a), escrowed: this.accounts.escrowed.get(a) };
  }

  /** What a reversed fill left the account owing (0 but after a failed settlement, issue 33). */
  owed(account: string): bigint {
    const a = this.accounts.find(account);
    return a === NIL ? 0n : this.accounts.owed.get(a);
  }

  /** The remaining maker stakes of the account's resting orders (at most its available balance under honest liquidity). */
  exposure(account: string): bigint {
    const a = this.accounts.find(account);
    return a === NIL ? 0n : this.accounts.exposure.get(a);
  }

  position(marketHash: string, account: string): PositionView | undefined {
    const a = this.accounts.find(account);
    const market = a === NIL ? undefined : this.marketByHash.get(marketHash);
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
  get restingOrderCount(): number {
    return this.store.live;
  }

  private orderView(h: number): OrderView {
    const store = this.store;
    const market = this.markets[store.i32[(h << 4) + F.MARKET]!]!;
    const size = store.u64[(h << 3) + U.SIZE]!;
    const remaining = store.remainingOf(h);
    const tick = store.i32[(h << 4) + F.TICK_SIDE]! & TICK_MASK;
    return {
      orderId: store.ids[h]!,
      account: this.accounts.names[store.i32[(h << 4) + F.ACCOUNT]!]!,
      marketHash: market.marketHash,
      eventId: market.eventId,
      isBettingOutcomeOne: (store.i32[(h << 4) + F.TICK_SIDE]! & (1 << SIDE_SHIFT)) === 0,
      tick,
      percentageOdds: this.ladder.odds[tick]!,
      totalBetSize: size,
      filledSize: size - remaining,
      remainingSize: remaining,
      expiry: store.u32[(h << 4) + F.EXPIRY]!,
      placedSeq: store.placed[h]!,
    };
  }

  // ---------------------------------------------------------------- snapshot and hash

  snapshot(): EngineSnapshot {
    const accounts = this.accounts;
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
    const markets: MarketSnapshot[] = this.markets.map((m) => {
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
      };
    });
    const store = this.store;
    const orders: OrderSnapshot[] = this.restingInPlacementOrder().map((h) => [
      store.ids[h]!,
      names[store.i32[(h << 4) + F.ACCOUNT]!]!,
      this.markets[store.i32[(h << 4) + F.MARKET]!]!.marketHash,
      (store.i32[(h << 4) + F.TICK_SIDE]! & (1 << SIDE_SHIFT)) === 0,
      store.i32[(h << 4) + F.TICK_SIDE]! & TICK_MASK,
      store.u64[(h << 3) + U.SIZE]!.toString(),
      store.remainingOf(h).toString(),
      store.u32[(h << 4) + F.EXPIRY]!,
      store.placed[h]!,
    ]);
    return {
      format: 2,
      ladderSize: this.ladder.size,
      lastSeq: this.lastSeq,
      netDeposits: this.netDeposits.toString(),
      accounts: accountRows,
      markets,
      orders,
    };
  }

  /**
   * Rebuilds an engine from a snapshot; it then behaves exactly as the engine that took it. Format 1
   * (before capital efficiency, no refunded column) is read with nothing refunded, which is what its
   * escrow holds: the next fill of a hedged position refunds what is certain.
   */
  static restore(snapshot: EngineSnapshot, options: EngineRuleOptions = {}): Engine {
    if (snapshot.format !== 1 && snapshot.format !== 2)
      throw new TypeError(`unknown snapshot format ${(snapshot as { format: unknown }).format}`);
    const engine = new Engine({ ...options, ladderSize: snapshot.ladderSize });
    engine.lastSeq = snapshot.lastSeq;
    engine.netDeposits = BigInt(snapshot.netDeposits);
    const accounts = engine.accounts;
    for (const [name, available, escrowed, owed] of snapshot.accounts) {
      const a = accounts.indexOf(name);
      accounts.available.set(a, BigInt(available));
      accounts.escrowed.set(a, BigInt(escrowed));
      if (owed !== undefined) accounts.owed.set(a, BigInt(owed));
    }
    for (const m of snapshot.markets) {
      const market = engine.addMarket(m.marketHash, m.eventId);
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
      const [whole, half] = m.legs.map((hash) => engine.marketByHash.get(hash));
      if (whole === undefined || half === undefined)
        throw new TypeError(`quarter-line market ${m.marketHash} names a leg that is not in the snapshot`);
      engine.linkLegs(engine.marketByHash.get(m.marketHash)!, whole, half);
    }
    const store = engine.store;
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
      const market = engine.marketByHash.get(marketHash)!;
      const h = store.allocate();
      const rem = BigInt(remaining);
      store.ids[h] = orderId;
      const total = BigInt(size);
      store.u64[(h << 3) + U.SIZE] = total;
      store.u64[(h << 3) + U.REMAINING] = rem;
      store.i32[(h << 4) + F.TICK_SIDE] =
        tick | ((isOne ? 0 : 1) << SIDE_SHIFT) | (rem === total ? 0 : FILLED);
      store.i32[(h << 4) + F.MARKET] = market.index;
      store.i32[(h << 4) + F.ACCOUNT] = accounts.indexOf(account);
      store.u32[(h << 4) + F.EXPIRY] = expiry;
      store.placed[h] = placedSeq;
      market.append(store, h, rem);
      accounts.append(store, store.i32[(h << 4) + F.ACCOUNT]!, h);
      accounts.exposure.increase(store.i32[(h << 4) + F.ACCOUNT]!, rem);
      engine.expiries.add(store, h);
      engine.orderIndex.add(orderId, h);
    }
    return engine;
  }

  /** Handles of every resting order, oldest placement first (pushed one by one: a market may hold millions). */
  private restingInPlacementOrder(): number[] {
    const store = this.store;
    const handles: number[] = [];
    for (const m of this.markets) {
      for (let level = 0; level < m.head.length; level++) {
        for (let h = m.head[level]!; h !== NIL; h = store.i32[(h << 4) + F.LEVEL_NEXT]!) handles.push(h);
      }
    }
    return handles.sort((x, y) => store.placed[x]! - store.placed[y]!);
  }

  /**
   * The state as bytes: what `snapshot()` holds, laid out for a fast restore (`restoreBytes`). Equal states
   * give equal bytes (names sorted, orders by placement), so a digest of them is a state hash.
   */
  snapshotBytes(): Uint8Array {
    const store = this.store;
    const accounts = this.accounts;
    const names = accounts.names;
    const handles = this.restingInPlacementOrder();
    // The accounts the state names (a balance, a position or an order), sorted: an order refers to its rank.
    const named = new Uint8Array(names.length);
    const hasBalance = (a: number) =>
      accounts.available.get(a) !== 0n || accounts.escrowed.get(a) !== 0n || accounts.owed.get(a) !== 0n;
    for (let a = 0; a < names.length; a++) if (hasBalance(a)) named[a] = 1;
    for (const m of this.markets) for (const a of m.holders) named[a] = 1;
    for (const h of handles) named[store.i32[(h << 4) + F.ACCOUNT]!] = 1;
    const sorted: number[] = [];
    for (let a = 0; a < names.length; a++) if (named[a] === 1) sorted.push(a);
    sorted.sort((x, y) => compareStrings(names[x]!, names[y]!));
    const rank = new Int32Array(names.length);
    for (let i = 0; i < sorted.length; i++) rank[sorted[i]!] = i;

    const w = new ByteWriter(1024 + sorted.length * 48 + handles.length * 110);
    w.u32(SNAPSHOT_MAGIC);
    w.u32(this.ladder.size);
    w.f64(this.lastSeq);
    w.str(this.netDeposits.toString());
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
    w.u32(this.markets.length);
    for (const m of this.markets) {
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
    const quarterLines = this.markets.filter((m) => m.legs !== null);
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
    return w.finish();
  }

  /**
   * Rebuilds an engine from `snapshotBytes()`; it then behaves exactly as the engine that took them. The
   * format before capital efficiency ('OBS2', no refunded amounts) is read with nothing refunded, as in
   * `restore`.
   */
  static restoreBytes(bytes: Uint8Array, options: EngineRuleOptions = {}): Engine {
    const r = new ByteReader(bytes);
    const magic = r.u32();
    if (
      magic !== SNAPSHOT_MAGIC &&
      magic !== SNAPSHOT_MAGIC_BEFORE_DEBTS &&
      magic !== SNAPSHOT_MAGIC_BEFORE_LEGS &&
      magic !== SNAPSHOT_MAGIC_BEFORE_CE
    )
      throw new SnapshotFormatError('not an engine snapshot');
    const withRefunds = magic !== SNAPSHOT_MAGIC_BEFORE_CE;
    const engine = new Engine({ ...options, ladderSize: r.u32() });
    engine.lastSeq = r.f64();
    engine.netDeposits = BigInt(r.str());
    const accounts = engine.accounts;
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
    if (magic === SNAPSHOT_MAGIC)
      for (let n = r.u32(); n > 0; n--) accounts.owed.set(account(r.u32()), BigInt(r.str()));
    for (let n = r.u32(); n > 0; n--) {
      const market = engine.addMarket(r.str(), r.str());
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
        const m = engine.markets[index];
        if (m === undefined) throw new SnapshotFormatError(`no market of index ${index}`);
        return m;
      };
      for (let n = r.u32(); n > 0; n--) engine.linkLegs(market(r.u32()), market(r.u32()), market(r.u32()));
    }
    const count = r.u32();
    const store = engine.store;
    store.reserve(count);
    engine.orderIndex.reserve(count);
    for (let n = 0; n < count; n++) {
      const h = store.allocate();
      const orderId = r.str();
      const a = account(r.u32());
      const market = engine.markets[r.u32()];
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
      engine.expiries.add(store, h);
      engine.orderIndex.add(orderId, h);
    }
    r.end();
    return engine;
  }

  // ---------------------------------------------------------------- invariants

  /** Checks every internal invariant; throws with a description on the first violation (a bug). */
  assertInvariants(): void {
    const fail = (what: string): never => {
      throw new Error(`engine invariant broken: ${what}`);
    };
    const store = this.store;
    const n = this.ladder.size;
    let resting = 0;
    for (const market of this.markets) {
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
            if (rem < this.ladder.makerLot[k]! || rem > store.u64[(h << 3) + U.SIZE]!) {
              fail(`order ${store.ids[h]} remaining ${rem} out of range`);
            }
            if (this.orderIndex.get(store.ids[h]!) !== h) fail(`order ${store.ids[h]} not indexed`);
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
    if (resting !== this.orderIndex.size || resting !== store.live) fail('order index size');
    let listed = 0;
    for (let a = 0; a < this.accounts.names.length; a++) {
      let lastSeq = -1;
      let prev = NIL;
      let promised = 0n;
      for (let h = this.accounts.orderHead[a]!; h !== NIL; h = store.i32[(h << 4) + F.ACCOUNT_NEXT]!) {
        if (store.i32[(h << 4) + F.ACCOUNT] !== a) fail(`account list of ${this.accounts.names[a]}`);
        if (store.i32[(h << 4) + F.ACCOUNT_PREV] !== prev)
          fail(`account list links of ${this.accounts.names[a]}`);
        if (store.placed[h]! <= lastSeq) fail(`account list order of ${this.accounts.names[a]}`);
        lastSeq = store.placed[h]!;
        prev = h;
        listed++;
        promised += store.remainingOf(h);
      }
      if (this.accounts.orderTail[a] !== prev) fail(`account list tail of ${this.accounts.names[a]}`);
      const exposure = this.accounts.exposure.get(a);
      if (exposure !== promised)
        fail(`exposure ${exposure} of ${this.accounts.names[a]} != its orders' ${promised}`);
      if (this.honestLiquidity && exposure > this.accounts.available.get(a))
        fail(`exposure ${exposure} of ${this.accounts.names[a]} above its available balance`);
    }
    if (listed !== resting) fail('account lists');
    if (this.expiries.listed(store) !== resting) fail('expiry lists');
    let money = 0n;
    let escrow = 0n;
    for (let a = 0; a < this.accounts.names.length; a++) {
      const available = this.accounts.available.get(a);
      const escrowed = this.accounts.escrowed.get(a);
      const owed = this.accounts.owed.get(a);
      if (available < 0n || escrowed < 0n || owed < 0n) fail(`negative balance of ${this.accounts.names[a]}`);
      // What an account owes it pays back before it has anything available.
      if (owed > 0n && available > 0n)
        fail(`${this.accounts.names[a]} owes ${owed} yet has ${available} available`);
      money += available + escrowed - owed;
      escrow += escrowed;
    }
    if (money !== this.netDeposits) fail(`money ${money} != deposits ${this.netDeposits}`);
    // Resting orders lock nothing: an account's escrow is what its open positions still hold, their
    // stakes less what capital efficiency refunded (at most the least of the three results' receipts).
    const held = new Array<bigint>(this.accounts.names.length).fill(0n);
    let staked = 0n;
    for (const market of this.markets) {
      let potOne = 0n;
      let potTwo = 0n;
      let stakes = 0n;
      for (let slot = 0; slot < market.holders.length; slot++) {
        const a = market.holders[slot]!;
        if (market.findPositionSlot(a) !== slot) fail(`position slot of ${this.accounts.names[a]}`);
        const s1 = market.positionValue(slot, P.STAKE_ONE);
        const s2 = market.positionValue(slot, P.STAKE_TWO);
        const p1 = market.positionValue(slot, P.POT_ONE);
        const p2 = market.positionValue(slot, P.POT_TWO);
        const refunded = market.refunded(slot);
        if (refunded < 0n || refunded > guaranteedReceipt(s1, s2, p1, p2))
          fail(`refunded ${refunded} of ${this.accounts.names[a]} in ${market.marketHash} is not certain`);
        held[a]! += s1 + s2 - refunded;
        staked += s1 + s2 - refunded;
        stakes += s1 + s2;
        potOne += p1;
        potTwo += p2;
      }
      if (potOne !== stakes || potTwo !== stakes)
        fail(`pots of ${market.marketHash} do not match its stakes`);
    }
    if (staked !== escrow) fail(`escrow ${escrow} != open stakes less refunds ${staked}`);
    for (let a = 0; a < this.accounts.names.length; a++) {
      if (this.accounts.escrowed.get(a) !== held[a])
        fail(
          `escrow of ${this.accounts.names[a]} ${this.accounts.escrowed.get(a)} != its positions' ${held[a]}`,
        );
    }
  }
}

/** Filled part of an order: `size - remaining`, without allocating when nothing filled. */
function filled(size: bigint, remaining: bigint): bigint {
  return remaining === size ? ZERO : size - remaining;
}

const ZERO = 0n;

/** 'OBS5' read as a little-endian u32: the first bytes of `snapshotBytes()` (with what accounts owe). */
const SNAPSHOT_MAGIC = 0x3553_424f;
/** 'OBS4': the format before debts (issue 33), read with nothing owed. */
const SNAPSHOT_MAGIC_BEFORE_DEBTS = 0x3453_424f;
/** 'OBS3': the format before quarter-line markets (positions with refunds), read with no legs. */
const SNAPSHOT_MAGIC_BEFORE_LEGS = 0x3353_424f;
/** 'OBS2': the format before capital efficiency, read with nothing refunded. */
const SNAPSHOT_MAGIC_BEFORE_CE = 0x3253_424f;

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
