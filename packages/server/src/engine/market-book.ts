import { F, NIL, type OrderStore, SIDE_SHIFT, TICK_MASK } from './order-store.js';

export const MarketStatus = { OPEN: 'open', CLOSED: 'closed', RESOLVED: 'resolved' } as const;
export type MarketStatus = (typeof MarketStatus)[keyof typeof MarketStatus];

/** One account's matched exposure in a market: own stakes and the pots they win, per outcome bet. */
export interface Position {
  stakeOne: bigint;
  stakeTwo: bigint;
  potOne: bigint;
  potTwo: bigint;
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
  /** Keyed by account index. */
  readonly positions = new Map<number, Position>();
  /** The same positions by account index, for the lookups of every fill (cheaper than the map's). */
  private readonly byAccount: (Position | undefined)[] = [];

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

  position(account: number): Position {
    let p = this.byAccount[account];
    if (p === undefined) {
      p = { stakeOne: 0n, stakeTwo: 0n, potOne: 0n, potTwo: 0n };
      this.setPosition(account, p);
    }
    return p;
  }

  setPosition(account: number, p: Position): void {
    this.positions.set(account, p);
    this.byAccount[account] = p;
  }

  clearPositions(): void {
    this.positions.clear();
    this.byAccount.length = 0;
  }
}
