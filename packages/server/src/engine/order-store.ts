/** The null handle of every intrusive list. */
export const NIL = -1;

/** Sizes are stored in 64 bits; larger stakes are refused (`INVALID_SIZE`). */
export const MAX_ORDER_SIZE = (1n << 64n) - 1n;

const INITIAL_CAPACITY = 1024;

/**
 * Resting orders as a struct of arrays addressed by integer handles, with a free list. An order is
 * linked into four intrusive doubly linked lists at once (its price level, its account, its market and
 * its expiry second), so every removal is O(1) and costs no allocation.
 */
export class OrderStore {
  capacity = 0;
  ids: string[] = [];
  size = new BigUint64Array(0);
  remaining = new BigUint64Array(0);
  tick = new Uint16Array(0);
  /** 0: betting outcome one, 1: betting outcome two. */
  side = new Uint8Array(0);
  market = new Int32Array(0);
  account = new Int32Array(0);
  /** Unix seconds. */
  expiry = new Float64Array(0);
  placedSeq = new Float64Array(0);
  levelPrev = new Int32Array(0);
  levelNext = new Int32Array(0);
  accountPrev = new Int32Array(0);
  accountNext = new Int32Array(0);
  marketPrev = new Int32Array(0);
  marketNext = new Int32Array(0);
  expiryPrev = new Int32Array(0);
  expiryNext = new Int32Array(0);
  /** Handles in use. */
  live = 0;
  private top = 0;
  private freeHead = NIL;

  constructor() {
    this.grow(INITIAL_CAPACITY);
  }

  allocate(): number {
    let h = this.freeHead;
    if (h !== NIL) {
      this.freeHead = this.levelNext[h]!;
    } else {
      if (this.top === this.capacity) this.grow(this.capacity * 2);
      h = this.top++;
    }
    this.live++;
    return h;
  }

  release(h: number): void {
    this.ids[h] = '';
    this.levelNext[h] = this.freeHead;
    this.freeHead = h;
    this.live--;
  }

  private grow(capacity: number): void {
    const g = <T extends { set(a: T): void }>(old: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    this.size = g(this.size, (n) => new BigUint64Array(n));
    this.remaining = g(this.remaining, (n) => new BigUint64Array(n));
    this.tick = g(this.tick, (n) => new Uint16Array(n));
    this.side = g(this.side, (n) => new Uint8Array(n));
    this.market = g(this.market, (n) => new Int32Array(n));
    this.account = g(this.account, (n) => new Int32Array(n));
    this.expiry = g(this.expiry, (n) => new Float64Array(n));
    this.placedSeq = g(this.placedSeq, (n) => new Float64Array(n));
    this.levelPrev = g(this.levelPrev, (n) => new Int32Array(n));
    this.levelNext = g(this.levelNext, (n) => new Int32Array(n));
    this.accountPrev = g(this.accountPrev, (n) => new Int32Array(n));
    this.accountNext = g(this.accountNext, (n) => new Int32Array(n));
    this.marketPrev = g(this.marketPrev, (n) => new Int32Array(n));
    this.marketNext = g(this.marketNext, (n) => new Int32Array(n));
    this.expiryPrev = g(this.expiryPrev, (n) => new Int32Array(n));
    this.expiryNext = g(this.expiryNext, (n) => new Int32Array(n));
    this.capacity = capacity;
  }
}
