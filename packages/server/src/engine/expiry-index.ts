import { F, NIL, type OrderStore } from './order-store.js';

interface Bucket {
  head: number;
  tail: number;
}

/**
 * Resting orders grouped by expiry second, each group a list in placement order (linked through the
 * orders' records), plus a min-heap of the seconds that have (or had) a group. Adding and removing an
 * order are O(1); `expire` visits only due groups.
 */
export class ExpiryIndex {
  private readonly buckets = new Map<number, Bucket>();
  private readonly heap: number[] = [];
  private readonly inHeap = new Set<number>();
  /** The group `add` used last (expiry seconds are never -1). */
  private lastKey = -1;
  private lastBucket: Bucket | undefined = undefined;

  add(store: OrderStore, h: number): void {
    const key = store.u32[(h << 4) + F.EXPIRY]!;
    // Orders placed together often expire in the same second: keep the last group at hand.
    let b = key === this.lastKey ? this.lastBucket : this.buckets.get(key);
    if (b === undefined) {
      b = { head: NIL, tail: NIL };
      this.buckets.set(key, b);
      if (!this.inHeap.has(key)) {
        this.inHeap.add(key);
        this.push(key);
      }
    }
    this.lastKey = key;
    this.lastBucket = b;
    store.i32[(h << 4) + F.EXPIRY_PREV] = b.tail;
    store.i32[(h << 4) + F.EXPIRY_NEXT] = NIL;
    if (b.tail === NIL) b.head = h;
    else store.i32[(b.tail << 4) + F.EXPIRY_NEXT] = h;
    b.tail = h;
  }

  remove(store: OrderStore, h: number): void {
    const prev = store.i32[(h << 4) + F.EXPIRY_PREV]!;
    const next = store.i32[(h << 4) + F.EXPIRY_NEXT]!;
    if (prev !== NIL) store.i32[(prev << 4) + F.EXPIRY_NEXT] = next;
    if (next !== NIL) store.i32[(next << 4) + F.EXPIRY_PREV] = prev;
    if (prev === NIL || next === NIL) {
      const key = store.u32[(h << 4) + F.EXPIRY]!;
      const b = key === this.lastKey ? this.lastBucket! : this.buckets.get(key)!;
      if (prev === NIL) b.head = next;
      if (next === NIL) b.tail = prev;
      if (b.head === NIL) {
        this.buckets.delete(key);
        if (key === this.lastKey) {
          this.lastKey = -1;
          this.lastBucket = undefined;
        }
      }
    }
  }

  /** Orders listed, checking each is listed in its own second in placement order (invariant checks). */
  listed(store: OrderStore): number {
    let n = 0;
    for (const [key, b] of this.buckets) {
      let prev = NIL;
      for (let h = b.head; h !== NIL; h = store.i32[(h << 4) + F.EXPIRY_NEXT]!) {
        if (store.u32[(h << 4) + F.EXPIRY] !== key || store.i32[(h << 4) + F.EXPIRY_PREV] !== prev) return -1;
        if (prev !== NIL && store.placed[h]! <= store.placed[prev]!) return -1;
        prev = h;
        n++;
      }
      if (b.tail !== prev) return -1;
    }
    return n;
  }

  /** The earliest second with resting orders if it is at or before `nowSeconds`, else -1. */
  nextDue(nowSeconds: number): number {
    while (this.heap.length > 0) {
      const key = this.heap[0]!;
      if (this.buckets.has(key)) return key <= nowSeconds ? key : -1;
      this.pop();
      this.inHeap.delete(key);
    }
    return -1;
  }

  /** First order of a second's group, NIL when none. */
  first(key: number): number {
    return this.buckets.get(key)?.head ?? NIL;
  }

  private push(key: number): void {
    const heap = this.heap;
    let i = heap.length;
    heap.push(key);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]! <= key) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = key;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    let i = 0;
    const n = heap.length;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && heap[c + 1]! < heap[c]!) c++;
      if (heap[c]! >= last) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = last;
  }
}
