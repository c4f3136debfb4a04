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
 * Field offsets inside a record, in units of the view that reads them: the record of handle h starts at
 * u64/f64 index h*8, u32/i32 index h*16 and u16 index h*32.
 */
export const F = {
  SIZE: 0, // u64
  REMAINING: 1, // u64
  PLACED_SEQ: 2, // f64
  EXPIRY: 6, // u32
  TICK: 14, // u16
  SIDE: 15, // u16: 0 betting outcome one, 1 outcome two
  MARKET: 8, // i32
  ACCOUNT: 9,
  LEVEL_PREV: 10,
  LEVEL_NEXT: 11,
  ACCOUNT_PREV: 12,
  ACCOUNT_NEXT: 13,
  EXPIRY_PREV: 14,
  EXPIRY_NEXT: 15,
} as const;

/**
 * Resting orders as fixed 64-byte records in one growable buffer, addressed by integer handles with a
 * free list. A record holds the order's numbers and its links in three intrusive doubly linked lists
 * (price level, account, expiry second), so reading or unlinking an order touches one cache line of its
 * own; the id string is the only per-order object.
 */
export class OrderStore {
  capacity = 0;
  ids: string[] = [];
  u64 = new BigUint64Array(0);
  f64 = new Float64Array(0);
  i32 = new Int32Array(0);
  u32 = new Uint32Array(0);
  u16 = new Uint16Array(0);
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
      this.freeHead = this.i32[(h << 4) + F.LEVEL_NEXT]!;
    } else {
      if (this.top === this.capacity) this.grow(this.capacity * 2);
      h = this.top++;
    }
    this.live++;
    return h;
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
    this.u64 = new BigUint64Array(buffer);
    this.f64 = new Float64Array(buffer);
    this.i32 = new Int32Array(buffer);
    this.u32 = new Uint32Array(buffer);
    this.u16 = new Uint16Array(buffer);
    this.capacity = capacity;
  }
}
