const MAX_U64 = (1n << 64n) - 1n;

/**
 * A growable array of non-negative bigint cells kept in a `BigUint64Array`: reading or writing one touches
 * eight bytes of a dense array (no bigint object to chase, no write barrier), which is what balances and
 * positions need on every fill. A value outside 0..2^64-1 (a balance credited past 2^64, or a negative
 * one, which only a bug could produce and the invariant checks must see) moves its cell to a side map,
 * so any bigint is still held exactly.
 */
export class U64Cells {
  private data: BigUint64Array;
  private readonly wide = new Map<number, bigint>();
  /** `wide.size`, read on every access. */
  private wideCount = 0;

  constructor(capacity = 64) {
    this.data = new BigUint64Array(capacity);
  }

  get(i: number): bigint {
    return this.wideCount === 0 ? this.data[i]! : (this.wide.get(i) ?? this.data[i]!);
  }

  set(i: number, v: bigint): void {
    if (v >= 0n && v <= MAX_U64) {
      this.data[i] = v;
      if (this.wideCount !== 0 && this.wide.delete(i)) this.wideCount--;
    } else {
      if (!this.wide.has(i)) this.wideCount++;
      this.wide.set(i, v);
    }
  }

  /** Adds `delta` (not negative) to cell i. */
  increase(i: number, delta: bigint): void {
    if (this.wideCount === 0) {
      const v = this.data[i]! + delta;
      if (v <= MAX_U64) {
        this.data[i] = v;
        return;
      }
    }
    this.set(i, this.get(i) + delta);
  }

  /** Subtracts `delta` (not negative) from cell i. */
  decrease(i: number, delta: bigint): void {
    if (this.wideCount === 0) {
      const v = this.data[i]! - delta;
      if (v >= 0n) {
        this.data[i] = v;
        return;
      }
    }
    this.set(i, this.get(i) - delta);
  }

  /** Makes room for cells 0..n-1 (new cells are 0). */
  ensure(n: number): void {
    if (n <= this.data.length) return;
    let capacity = this.data.length * 2;
    while (capacity < n) capacity *= 2;
    const data = new BigUint64Array(capacity);
    data.set(this.data);
    this.data = data;
  }

  /** Sets cells 0..n-1 back to 0. */
  clear(n: number): void {
    this.data.fill(0n, 0, n);
    this.wide.clear();
    this.wideCount = 0;
  }
}
