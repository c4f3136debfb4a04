/** The null handle of every intrusive list. */
export const NIL = -1;

/** Sizes are stored in 64 bits; larger stakes are refused (`INVALID_SIZE`). */
export const MAX_ORDER_SIZE = (1n << 64n) - 1n;

/** Expiries are stored as unsigned 32-bit seconds (until 2106). */
export const MAX_EXPIRY = 0xffff_ffff;

const INITIAL_CAPACITY = 1024;

/** Bytes per order record: one 64-byte cache line. */
const RECORD_BYTES = 64;

/**
 * Field offsets inside a record in 32-bit units: the record of handle h starts at i32/u32 index h*16
 * and at u64 index h*8, where the two stakes sit (see `U`).
 */
export const F = {
  EXPIRY: 4, // u32
  MARKET: 5,
  ACCOUNT: 6,
  LEVEL_PREV: 7,
  LEVEL_NEXT: 8,
  TICK_SIDE: 9, // tick | side << SIDE_SHIFT | FILLED
  HASH: 10, // hashId of the order id, to find its index slot without reading the id
  ACCOUNT_PREV: 11,
  ACCOUNT_NEXT: 12,
  EXPIRY_PREV: 13,
  EXPIRY_NEXT: 14,
} as const;

/** The 64-bit fields of a record, in u64 units from h*8. */
export const U = {
  /** Valid once the order has filled (`FILLED`); until then its remaining stake is its size. */
  REMAINING: 0,
  SIZE: 1,
} as const;

/** In `TICK_SIDE`: the tick in the low 16 bits, the side (0 outcome one, 1 outcome two) in bit 16. */
export const TICK_MASK = 0xffff;
export const SIDE_SHIFT = 16;
/** In `TICK_SIDE`: set once the order has filled, so while clear its remaining stake is its size. */
export const FILLED = 1 << 17;

/**
 * Resting orders as fixed 64-byte records in one growable buffer, addressed by integer handles with a
 * free list. A record holds everything about an order but its id string and placed seq: its stakes,
 * expiry, account, tick and side, the hash of its id, and its links in three doubly linked lists (its
 * price level's FIFO, its account's orders and its expiry second's orders, all in placement order). So
 * matching reads one cache line per order, and taking an order off the book touches its own line and
 * its neighbours' in the three lists. Placed seqs (read only by snapshots, views and checks) sit in a
 * dense array of their own.
 */
export class OrderStore {
  capacity = 0;
  ids: string[] = [];
  i32 = new Int32Array(0);
  u32 = new Uint32Array(0);
  u64 = new BigUint64Array(0);
  placed = new Float64Array(0);
  /** Handles in use. */
  live = 0;
  private top = 0;
  private freeHead = NIL;

  constructor() {
    this.grow(INITIAL_CAPACITY);
  }

  /** A free handle; the caller fills its record and dense entries. */
  allocate(): number {
    let h = this.freeHead;
    if (h !== NIL) {
      this.freeHead = this.i32[(h << 4) + F.LEVEL_NEXT]!;
    } else {
      if (this.top === this.capacity) this.grow(this.capacity * 2);
      h = this.top++;
      // Keep the id array packed: handles are handed out in order.
      this.ids.push('');
    }
    this.live++;
    return h;
  }

  /** Room for `count` orders without growing (a restore knows how many it brings). */
  reserve(count: number): void {
    if (count > this.capacity) this.grow(count);
  }

  /** The remaining stake of resting order `h`: its size until it first fills. */
  remainingOf(h: number): bigint {
    return (this.i32[(h << 4) + F.TICK_SIDE]! & FILLED) === 0
      ? this.u64[(h << 3) + U.SIZE]!
      : this.u64[(h << 3) + U.REMAINING]!;
  }

  release(h: number): void {
    this.ids[h] = '';
    this.i32[(h << 4) + F.LEVEL_NEXT] = this.freeHead;
    this.freeHead = h;
    this.live--;
  }

  private grow(capacity: number): void {
    const buffer = new ArrayBuffer(capacity * RECORD_BYTES);
    new Uint8Array(buffer).set(new Uint8Array(this.i32.buffer));
    this.i32 = new Int32Array(buffer);
    this.u32 = new Uint32Array(buffer);
    this.u64 = new BigUint64Array(buffer);
    const placed = new Float64Array(capacity);
    placed.set(this.placed);
    this.placed = placed;
    this.capacity = capacity;
  }
}
