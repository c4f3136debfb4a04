import { credit, debit, freeBalance, pullExcess } from './balances.js';
import { ladderSizeOfSnapshotBytes, readSnapshotBytes, writeSnapshotBytes } from './byte-snapshot.js';
import { cancelAccount, cancelInMarket, cancelOne, cancelOrders, expire } from './cancels.js';
import {
  flush,
  levelChanged,
  rejectCommand,
  takeEvents,
  touchAccount,
  touchLevel,
} from './command-events.js';
import { type EngineCommand, type PlaceOrderCommand, TimeInForce } from './commands.js';
import { EngineState } from './engine-state.js';
import { type EngineEvent, type OrderMatchedEvent, type QuarterLineLeg, RejectCode } from './events.js';
import { reverseFill } from './fill-reversal.js';
import { assertInvariants } from './invariants.js';
import { checkSnapshotFormat, readSnapshot, writeSnapshot } from './json-snapshot.js';
import { DEFAULT_LADDER_SIZE, tickOfOdds } from './ladder.js';
import { type MarketBook, MarketStatus, P, splitStake } from './market-book.js';
import { closeMarket, openMarket, resolveMarket } from './market-lifecycle.js';
import { hashId } from './order-index.js';
import { F, FILLED, MAX_EXPIRY, MAX_ORDER_SIZE, NIL, SIDE_SHIFT, U } from './order-store.js';
import { fillLegs } from './quarter-line-legs.js';
import {
  balanceOf,
  bestTick,
  bookLevels,
  bookVersion,
  exposureOf,
  findOrder,
  hasDueExpiries,
  marketHashes,
  marketView,
  openOrders,
  owedBy,
  positionOf,
  restingOrderCount,
} from './reads.js';
import { removeResting, rest, takerDone } from './resting-orders.js';
import type { EngineSnapshot } from './snapshot.js';
import type { AccountBalance, BookLevels, MarketView, OrderView, PositionView } from './views.js';

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
      for (let a = 0; a < this.accounts.names.length; a++) pullExcess(this, a);
    }
    switch (command.type) {
      case 'place': {
        const events = this.place(command);
        if (events !== undefined) return events;
        break;
      }
      case 'cancel':
        if (command.orderIds.length === 1) {
          return cancelOne(this, command.orderIds[0]!, command.account, command.reason ?? 'USER_REQUESTED');
        }
        cancelOrders(this, command.orderIds, command.account, command.reason ?? 'USER_REQUESTED');
        break;
      case 'cancelMarket': {
        const market = this.marketByHash.get(command.marketHash);
        if (market === undefined) rejectCommand(this, command.type, RejectCode.MARKET_NOT_FOUND);
        else cancelInMarket(this, market, command.account, command.reason);
        break;
      }
      case 'cancelEvent':
        for (const market of this.marketsByEvent.get(command.eventId) ?? []) {
          cancelInMarket(this, market, command.account, command.reason);
        }
        break;
      case 'cancelAccount':
        cancelAccount(this, command.account, command.reason);
        break;
      case 'expire':
        expire(this);
        break;
      case 'openMarket':
        openMarket(this, command.marketHash, command.eventId, command.legs);
        break;
      case 'closeMarket':
        closeMarket(this, command.marketHash);
        break;
      case 'resolveMarket':
        resolveMarket(this, command.marketHash, command.outcome);
        break;
      case 'credit':
        credit(this, command.account, command.amount);
        break;
      case 'debit':
        debit(this, command.account, command.amount);
        break;
      case 'reverseFill':
        reverseFill(this, command.fill);
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
      if (this.honestLiquidity && size > freeBalance(this, taker)) {
        this.pending[this.eventCount++] = {
          type: 'orderRejected',
          orderId: c.orderId,
          account: c.account,
          marketHash: c.marketHash,
          code: RejectCode.INSUFFICIENT_BALANCE,
        };
        return undefined;
      }
      const rested = rest(this, c, market, taker, side, tick, size, hash, true);
      market.version++;
      return [accepted, rested, levelChanged(this, market, side * ladder.size + tick)];
    }
    this.pending[this.eventCount++] = accepted;

    if (c.timeInForce === TimeInForce.FOK) {
      const stop = this.walk(market, c.orderId, taker, side, tick, size, true);
      if (stop !== Stop.FILLED && stop !== Stop.DUST) {
        takerDone(this, c, tick, stop === Stop.TAKER_FUNDS ? 'INSUFFICIENT_BALANCE' : 'NO_LIQUIDITY', size);
        return undefined;
      }
    }
    const stop = this.walk(market, c.orderId, taker, side, tick, size, false);
    const remaining = this.walkRemaining;
    if (stop === Stop.FILLED || stop === Stop.DUST) takerDone(this, c, tick, 'FILLED', remaining);
    else if (stop === Stop.TAKER_FUNDS) takerDone(this, c, tick, 'INSUFFICIENT_BALANCE', remaining);
    else if (c.timeInForce !== TimeInForce.GTC) takerDone(this, c, tick, 'NO_LIQUIDITY', remaining);
    else if (remaining < ladder.makerLot[tick]!) takerDone(this, c, tick, 'FILLED', remaining);
    else if (this.honestLiquidity && remaining > freeBalance(this, taker)) {
      // The remainder would promise more than the account holds beyond its other resting orders.
      takerDone(this, c, tick, 'INSUFFICIENT_BALANCE', remaining);
    } else {
      touchLevel(this, market, side * ladder.size + tick);
      const untouched = remaining === c.totalBetSize;
      this.pending[this.eventCount++] = rest(this, c, market, taker, side, tick, remaining, hash, untouched);
    }
    // Taking may spend what backs the account's resting orders: the newest go until the rest are paid for.
    if (this.honestLiquidity) pullExcess(this, taker);
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
          if (!dry) removeResting(this, h, 'EXPIRED');
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
          if (!dry) removeResting(this, h, 'INSUFFICIENT_BALANCE');
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
          if (!dry) removeResting(this, h, 'FILLED');
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
      legParts = fillLegs(this, legs, maker, taker, makerStakeField, makerStake, takerStake);
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

  // ---------------------------------------------------------------- cancels

  // ---------------------------------------------------------------- markets

  // ---------------------------------------------------------------- balances

  // ---------------------------------------------------------------- reversals

  // ---------------------------------------------------------------- reads

  /** A resting order, or undefined once it has left the book (or never rested). */
  order(orderId: string): OrderView | undefined {
    return findOrder(this, orderId);
  }

  /** An account's resting orders in placement order. */
  openOrders(account: string): OrderView[] {
    return openOrders(this, account);
  }

  /** Aggregated levels of both sides, best first, in the maker frame; undefined for an unknown market. */
  levels(marketHash: string, depth = Number.POSITIVE_INFINITY): BookLevels | undefined {
    return bookLevels(this, marketHash, depth);
  }

  /** Every market the engine has opened, in no particular order. */
  marketHashes(): IterableIterator<string> {
    return marketHashes(this);
  }

  /** Highest tick with resting orders betting that outcome, 0 when none (or unknown market). */
  bestTick(marketHash: string, isBettingOutcomeOne: boolean): number {
    return bestTick(this, marketHash, isBettingOutcomeOne);
  }

  /** True when some resting order's expiry (unix seconds) is at or before `nowMs`: an `expire` is due. */
  hasDueExpiries(nowMs: number): boolean {
    return hasDueExpiries(this, nowMs);
  }

  bookVersion(marketHash: string): number {
    return bookVersion(this, marketHash);
  }

  market(marketHash: string): MarketView | undefined {
    return marketView(this, marketHash);
  }

  balance(account: string): AccountBalance {
    return balanceOf(this, account);
  }

  /** What a reversed fill left the account owing (0 but after a failed settlement, issue 33). */
  owed(account: string): bigint {
    return owedBy(this, account);
  }

  /** The remaining maker stakes of the account's resting orders (at most its available balance under honest liquidity). */
  exposure(account: string): bigint {
    return exposureOf(this, account);
  }

  position(marketHash: string, account: string): PositionView | undefined {
    return positionOf(this, marketHash, account);
  }

  /** Number of resting orders in the engine. */
  get restingOrderCount(): number {
    return restingOrderCount(this);
  }

  // ---------------------------------------------------------------- snapshots

  /** The state in a canonical JSON-safe form (see `EngineSnapshot`). */
  snapshot(): EngineSnapshot {
    return writeSnapshot(this);
  }

  /**
   * Rebuilds an engine from a snapshot; it then behaves exactly as the engine that took it. Format 1
   * (before capital efficiency, no refunded column) is read with nothing refunded, which is what its
   * escrow holds: the next fill of a hedged position refunds what is certain.
   */
  static restore(snapshot: EngineSnapshot, options: EngineRuleOptions = {}): Engine {
    checkSnapshotFormat(snapshot);
    const engine = new Engine({ ...options, ladderSize: snapshot.ladderSize });
    readSnapshot(engine, snapshot);
    return engine;
  }

  /**
   * The state as bytes: what `snapshot()` holds, laid out for a fast restore (`restoreBytes`). Equal states
   * give equal bytes (names sorted, orders by placement), so a digest of them is a state hash.
   */
  snapshotBytes(): Uint8Array {
    return writeSnapshotBytes(this);
  }

  /**
   * Rebuilds an engine from `snapshotBytes()`; it then behaves exactly as the engine that took them. The
   * format before capital efficiency ('OBS2', no refunded amounts) is read with nothing refunded, as in
   * `restore`.
   */
  static restoreBytes(bytes: Uint8Array, options: EngineRuleOptions = {}): Engine {
    const engine = new Engine({ ...options, ladderSize: ladderSizeOfSnapshotBytes(bytes) });
    readSnapshotBytes(engine, bytes);
    return engine;
  }

  /** Checks every internal invariant; throws with a description on the first violation (a bug). */
  assertInvariants(): void {
    assertInvariants(this);
  }
}
