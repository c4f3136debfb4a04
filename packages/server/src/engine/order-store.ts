/** The null handle of every intrusive list. */
export const NIL = -1;

/** Sizes are stored in 64 bits; larger stakes are refused (`INVALID_SIZE`). */
export const MAX_ORDER_SIZE = (1n << 64n) - 1n;

/** Expiries are stored as unsigned 32-bit seconds (until 2106). */
export const MAX_EXPIRY = 0xffff_ffff;

const INITIAL_CAPACITY = 1024;

/** Bytes per order record: half a 64-byte cache line, aligned. */
const RECORD_BYTES = 32;

/**
 * Field offsets inside a record in 32-bit units: the record of handle h starts at i32/u32 index h*8
 * (and u64 index h*4, where the remaining stake sits).
 */
export const F = {
  REMAINING: 0, // u64 at u64 index h*4 (i32 0-1)
  EXPIRY: 2, // u32
  MARKET: 3, // i32
  ACCOUNT: 4,
  LEVEL_PREV: 5,
  LEVEL_NEXT: 6,
  TICK_SIDE: 7, // tick | side << SIDE_SHIFT | FILLED
} as const;

/** In `TICK_SIDE`: the tick in the low 16 bits, the side (0 outcome one, 1 outcome two) in bit 16. */
export const TICK_MASK = 0xffff;
export const SIDE_SHIFT = 16;
/** In `TICK_SIDE`: set once the order has filled, so while clear its remaining stake is its size. */
export const FILLED = 1 << 17;

/**
 * Resting orders as fixed 32-byte records in one growable buffer, addressed by integer handles with a
 * free list. A record holds what matching reads (remaining stake, expiry, account, tick and side) and the
 * links of the doubly linked FIFO list of its price level, so walking a level touches one cache line per
 * order.
 *
 * Beside the records, dense arrays by handle: `sizes` (the order's stake), `hashes` (hashId of its id,
 * to find its index slot without reading the id), `placed` (the place command's seq), `ids` (the id
 * strings), and the links of the account and expiry-second lists. Those links are written when an order
 * rests or leaves but never read by matching; kept out of the records, unlinking an order touches its
 * neighbours' entries in small arrays that stay in cache rather than their records.
 */
function grown(a: Int32Array<ArrayBuffer>, capacity: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(capacity);
  b.set(a);
  return b;
}

export class OrderStore {
  capacity = 0;
  ids: string[] = [];
  i32 = new Int32Array(0);
  u32 = new Uint32Array(0);
  u64 = new BigUint64Array(0);
  sizes = new BigUint64Array(0);
  hashes = new Int32Array(0);
  placed = new Float64Array(0);
  accountPrev = new Int32Array(0);
  accountNext = new Int32Array(0);
  expiryPrev = new Int32Array(0);
  expiryNext = new Int32Array(0);
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
      this.freeHead = this.i32[(h << 3) + F.LEVEL_NEXT]!;
    } else {
      if (this.top === this.capacity) this.grow(this.capacity * 2);
      h = this.top++;
      // Keep the id array packed: handles are handed out in order.
      this.ids.push('');
    }
    this.live++;
    return h;
  }

  release(h: number): void {
    this.ids[h] = '';
    this.i32[(h << 3) + F.LEVEL_NEXT] = this.freeHead;
    this.freeHead = h;
    this.live--;
  }

  private grow(capacity: number): void {
    const buffer = new ArrayBuffer(capacity * RECORD_BYTES);
    new Uint8Array(buffer).set(new Uint8Array(this.i32.buffer));
    this.i32 = new Int32Array(buffer);
    this.u32 = new Uint32Array(buffer);
    this.u64 = new BigUint64Array(buffer);
    const sizes = new BigUint64Array(capacity);
    sizes.set(this.sizes);
    this.sizes = sizes;
    const hashes = new Int32Array(capacity);
    hashes.set(this.hashes);
    this.hashes = hashes;
    const placed = new Float64Array(capacity);
    placed.set(this.placed);
    this.placed = placed;
    this.accountPrev = grown(this.accountPrev, capacity);
    this.accountNext = grown(this.accountNext, capacity);
    this.expiryPrev = grown(this.expiryPrev, capacity);
    this.expiryNext = grown(this.expiryNext, capacity);
    this.capacity = capacity;
  }
}
