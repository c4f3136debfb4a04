import { F, NIL, type OrderStore, SIDE_SHIFT, TICK_MASK } from './order-store.js';
import { U64Cells } from './u64-cells.js';

export const MarketStatus = { OPEN: 'open', CLOSED: 'closed', RESOLVED: 'resolved' } as const;
export type MarketStatus = (typeof MarketStatus)[keyof typeof MarketStatus];

/**
 * One account's matched exposure in a market is four cells of `MarketBook.positionCells` from its slot
 * times four: own stakes and the pots they win, per outcome bet.
 */
export const P = { STAKE_ONE: 0, STAKE_TWO: 1, POT_ONE: 2, POT_TWO: 3 } as const;

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
  /** Slot of each account with a position, by account index. */
  private readonly slotOf: (number | undefined)[] = [];

  constructor(
    readonly index: number,
    readonly marketHash: string,
    readonly eventId: string,
    readonly ladderSize: number,
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

  clearPositions(): void {
    for (const account of this.holders) this.slotOf[account] = undefined;
    this.positionCells.clear(4 * this.holders.length);
    this.holders.length = 0;
  }
}
