import { F, NIL, type OrderStore, SIDE_SHIFT, TICK_MASK } from './order-store.js';
import type { ParlayState } from './parlays.js';
import { U64Cells } from './u64-cells.js';

export const MarketStatus = { OPEN: 'open', CLOSED: 'closed', RESOLVED: 'resolved' } as const;
export type MarketStatus = (typeof MarketStatus)[keyof typeof MarketStatus];

/**
 * One account's matched exposure in a market is four cells of `MarketBook.positionCells` from its slot
 * times four: own stakes and the pots they win, per outcome bet. What capital efficiency has already
 * given back of it is one cell of `MarketBook.refundedCells` at the slot.
 */
export const P = { STAKE_ONE: 0, STAKE_TWO: 1, POT_ONE: 2, POT_TWO: 3 } as const;

/**
 * The least a position collects over the three results: outcome one (its pot one), outcome two (its pot
 * two) or void (its stakes back). Capital efficiency refunds it as soon as it is certain.
 */
export function guaranteedReceipt(
  stakeOne: bigint,
  stakeTwo: bigint,
  potOne: bigint,
  potTwo: bigint,
): bigint {
  let least = stakeOne + stakeTwo;
  if (potOne < least) least = potOne;
  if (potTwo < least) least = potTwo;
  return least;
}

/**
 * The ladder book of one market. Level `side * N + tick` holds a FIFO of handles (intrusive list in the
 * order store) with its order count and total maker stake; `best[side]` is the highest non-empty tick
 * (0 when the side is empty). Side 0 bets outcome one, side 1 outcome two; both in the maker frame.
 */
export class MarketBook {
  status: MarketStatus = MarketStatus.OPEN;
  /** Increases once per command that changes the book. */
  version = 0;
  readonly head: Int32Array;
  readonly tail: Int32Array;
  readonly count: Int32Array;
  readonly total: bigint[];
  readonly best = new Int32Array(2);
  /** Command stamp of the last change per level, to report each changed level once per command. */
  readonly touched: Int32Array;
  stamp = 0;
  /** Resting orders in the market. */
  orders = 0;
  /** Accounts with a position, by slot (slots in order of the first fill). */
  readonly holders: number[] = [];
  /** Four cells per slot (see `P`). */
  readonly positionCells = new U64Cells(64);
  /** Per slot: what has been refunded of the position so far (its guaranteed receipt when last filled). */
  readonly refundedCells = new U64Cells(16);
  /** Slot of each account with a position, by account index. */
  private readonly slotOf: (number | undefined)[] = [];
  /** A quarter-line market's leg markets (whole line, half line): they hold its fills' positions. */
  legs: readonly [MarketBook, MarketBook] | null = null;
  /** The quarter-line markets this market is a leg of. */
  readonly parents: MarketBook[] = [];
  /** A parlay market's rules and its legs' results so far (`parlays.ts`). */
  parlay: ParlayState | null = null;
  /** The parlay markets this market is a leg of (or a half of a quarter-line leg of). */
  readonly parlays: MarketBook[] = [];

  constructor(
    readonly index: number,
    readonly marketHash: string,
    readonly eventId: string,
    readonly ladderSize: number,
    /** Whether fills refund what a position is certain to collect (see `fill`); the engine switches it on. */
    public capitalEfficiency = true,
  ) {
    const n = 2 * ladderSize;
    this.head = new Int32Array(n).fill(NIL);
    this.tail = new Int32Array(n).fill(NIL);
    this.count = new Int32Array(n);
    this.total = new Array<bigint>(n).fill(0n);
    this.touched = new Int32Array(n);
  }

  /** Appends the order at the back of its level. */
  append(store: OrderStore, h: number, size: bigint): void {
    const tickSide = store.i32[(h << 4) + F.TICK_SIDE]!;
    const side = (tickSide >>> SIDE_SHIFT) & 1;
    const tick = tickSide & TICK_MASK;
    const level = side * this.ladderSize + tick;
    const tail = this.tail[level]!;
    store.i32[(h << 4) + F.LEVEL_PREV] = tail;
    store.i32[(h << 4) + F.LEVEL_NEXT] = NIL;
    if (tail === NIL) this.head[level] = h;
    else store.i32[(tail << 4) + F.LEVEL_NEXT] = h;
    this.tail[level] = h;
    this.count[level]++;
    this.total[level] += size;
    if (tick > this.best[side]!) this.best[side] = tick;

    this.orders++;
  }

  /** Unlinks the order from its level; `remaining` is its current remaining size. */
  unlink(store: OrderStore, h: number, remaining: bigint): void {
    const tickSide = store.i32[(h << 4) + F.TICK_SIDE]!;
    const side = (tickSide >>> SIDE_SHIFT) & 1;
    const tick = tickSide & TICK_MASK;
    const level = side * this.ladderSize + tick;
    const prev = store.i32[(h << 4) + F.LEVEL_PREV]!;
    const next = store.i32[(h << 4) + F.LEVEL_NEXT]!;
    if (prev === NIL) this.head[level] = next;
    else store.i32[(prev << 4) + F.LEVEL_NEXT] = next;
    if (next === NIL) this.tail[level] = prev;
    else store.i32[(next << 4) + F.LEVEL_PREV] = prev;
    this.total[level] -= remaining;
    if (--this.count[level] === 0 && tick === this.best[side]) {
      let k = tick - 1;
      const base = side * this.ladderSize;
      while (k > 0 && this.count[base + k] === 0) k--;
      this.best[side] = k;
    }

    this.orders--;
  }

  /** Handles of all resting orders in placement order (for bulk cancels, snapshots and checks). */
  handlesInPlacementOrder(store: OrderStore): number[] {
    const out: number[] = [];
    for (let level = 0; level < this.head.length; level++) {
      for (let h = this.head[level]!; h !== NIL; h = store.i32[(h << 4) + F.LEVEL_NEXT]!) out.push(h);
    }
    return out.sort((x, y) => store.placed[x]! - store.placed[y]!);
  }

  /** The account's position slot, opened (all zero) if it has none. */
  positionSlot(account: number): number {
    let slot = this.slotOf[account];
    if (slot === undefined) {
      slot = this.holders.length;
      this.holders.push(account);
      this.slotOf[account] = slot;
      this.positionCells.ensure(4 * slot + 4);
      this.refundedCells.ensure(slot + 1);
    }
    return slot;
  }

  /** The account's position slot, or NIL when it has none. */
  findPositionSlot(account: number): number {
    return this.slotOf[account] ?? NIL;
  }

  /** Adds `delta` (not negative) to cell `field` of a slot's position. */
  addToPosition(slot: number, field: number, delta: bigint): void {
    this.positionCells.increase((slot << 2) + field, delta);
  }

  positionValue(slot: number, field: number): bigint {
    return this.positionCells.get((slot << 2) + field);
  }

  refunded(slot: number): bigint {
    return this.refundedCells.get(slot);
  }

  /**
   * Adds one fill to a position: `stake` on the outcome of `stakeField` (STAKE_ONE or STAKE_TWO) and the
   * fill's `pot` to the pot of that outcome. Raises the position's refunded amount to its guaranteed
   * receipt and returns the increase: the refund this fill causes (0 when nothing more is certain).
   */
  fill(slot: number, stakeField: number, stake: bigint, pot: bigint): bigint {
    const cells = this.positionCells;
    const base = slot << 2;
    cells.increase(base + stakeField, stake);
    cells.increase(base + stakeField + 2, pot);
    if (!this.capitalEfficiency) return 0n;
    // A position on one outcome only is certain of nothing (the other pot is 0); and the receipt is never
    // more than the other pot, which this fill leaves as it was: once that much is back, nothing more is.
    const otherPot = cells.get(base + 3 - stakeField);
    if (otherPot === 0n) return 0n;
    const refunded = this.refundedCells.get(slot);
    if (otherPot <= refunded) return 0n;
    let g = cells.get(base + P.STAKE_ONE) + cells.get(base + P.STAKE_TWO);
    const ownPot = cells.get(base + stakeField + 2);
    if (ownPot < g) g = ownPot;
    if (otherPot < g) g = otherPot;
    if (g <= refunded) return 0n;
    this.refundedCells.set(slot, g);
    return g - refunded;
  }

  /**
   * Takes one fill back out of a position (its settlement failed on the chain, issue 33): `stake` off the
   * outcome of `stakeField` and `pot` off that outcome's pot; then, with capital efficiency, what has been
   * refunded is set to what the position is still certain to collect. Returns how much the refunded amount
   * changed (negative: refunds that counted on the fill are taken back; positive: the fill held one back).
   * Null when the position does not hold the fill (a caller bug).
   */
  unfill(slot: number, stakeField: number, stake: bigint, pot: bigint): bigint | null {
    const cells = this.positionCells;
    const base = slot << 2;
    if (cells.get(base + stakeField) < stake || cells.get(base + stakeField + 2) < pot) return null;
    cells.decrease(base + stakeField, stake);
    cells.decrease(base + stakeField + 2, pot);
    if (!this.capitalEfficiency) return 0n;
    const certain = guaranteedReceipt(
      cells.get(base + P.STAKE_ONE),
      cells.get(base + P.STAKE_TWO),
      cells.get(base + P.POT_ONE),
      cells.get(base + P.POT_TWO),
    );
    const refunded = this.refundedCells.get(slot);
    this.refundedCells.set(slot, certain);
    return certain - refunded;
  }

  /**
   * The refund a position (slot, or NIL for none yet) would have had in all if `stake` and `pot` were
   * added to the outcome of `stakeField`: what `fill` would return for those amounts at once. For the FOK
   * dry run, which changes nothing.
   */
  refundIfFilled(slot: number, stakeField: number, stake: bigint, pot: bigint): bigint {
    if (slot === NIL || !this.capitalEfficiency) return 0n;
    const base = slot << 2;
    const cells = this.positionCells;
    const otherPot = cells.get(base + 3 - stakeField);
    if (otherPot === 0n) return 0n;
    const one = stakeField === P.STAKE_ONE;
    const g = guaranteedReceipt(
      cells.get(base + P.STAKE_ONE) + (one ? stake : 0n),
      cells.get(base + P.STAKE_TWO) + (one ? 0n : stake),
      cells.get(base + P.POT_ONE) + (one ? pot : 0n),
      cells.get(base + P.POT_TWO) + (one ? 0n : pot),
    );
    const refunded = this.refundedCells.get(slot);
    return g > refunded ? g - refunded : 0n;
  }

  clearPositions(): void {
    for (const account of this.holders) this.slotOf[account] = undefined;
    this.positionCells.clear(4 * this.holders.length);
    this.refundedCells.clear(this.holders.length);
    this.holders.length = 0;
  }
}

/**
 * A quarter-line stake's halves: the whole-line leg's first, the half-line leg's second. An odd unit goes to
 * the whole-line leg; the halves always add up to the stake.
 */
export function splitStake(stake: bigint): readonly [bigint, bigint] {
  const half = stake / 2n;
  return [stake - half, half];
}
