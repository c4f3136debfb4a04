import { NIL, type OrderStore } from './order-store.js';

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
  /** All resting orders of the market in placement order. */
  orderHead = NIL;
  orderTail = NIL;
  /** Keyed by account index. */
  readonly positions = new Map<number, Position>();

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

  /** Appends the order at the back of its level and of the market list. */
  append(store: OrderStore, h: number, size: bigint): void {
    const side = store.side[h]!;
    const tick = store.tick[h]!;
    const level = side * this.ladderSize + tick;
    const tail = this.tail[level]!;
    store.levelPrev[h] = tail;
    store.levelNext[h] = NIL;
    if (tail === NIL) this.head[level] = h;
    else store.levelNext[tail] = h;
    this.tail[level] = h;
    this.count[level]++;
    this.total[level] += size;
    if (tick > this.best[side]!) this.best[side] = tick;

    const mt = this.orderTail;
    store.marketPrev[h] = mt;
    store.marketNext[h] = NIL;
    if (mt === NIL) this.orderHead = h;
    else store.marketNext[mt] = h;
    this.orderTail = h;
  }

  /** Unlinks the order from its level and the market list; `remaining` is its current remaining size. */
  unlink(store: OrderStore, h: number, remaining: bigint): void {
    const side = store.side[h]!;
    const tick = store.tick[h]!;
    const level = side * this.ladderSize + tick;
    const prev = store.levelPrev[h]!;
    const next = store.levelNext[h]!;
    if (prev === NIL) this.head[level] = next;
    else store.levelNext[prev] = next;
    if (next === NIL) this.tail[level] = prev;
    else store.levelPrev[next] = prev;
    this.total[level] -= remaining;
    if (--this.count[level] === 0 && tick === this.best[side]) {
      let k = tick - 1;
      const base = side * this.ladderSize;
      while (k > 0 && this.count[base + k] === 0) k--;
      this.best[side] = k;
    }

    const mp = store.marketPrev[h]!;
    const mn = store.marketNext[h]!;
    if (mp === NIL) this.orderHead = mn;
    else store.marketNext[mp] = mn;
    if (mn === NIL) this.orderTail = mp;
    else store.marketPrev[mn] = mp;
  }

  position(account: number): Position {
    let p = this.positions.get(account);
    if (p === undefined) {
      p = { stakeOne: 0n, stakeTwo: 0n, potOne: 0n, potTwo: 0n };
      this.positions.set(account, p);
    }
    return p;
  }
}
