import { NIL, type OrderStore } from './order-store.js';
import { mul32 } from './state-hash.js';

const INITIAL_BITS = 12;

/**
 * Order id -> handle, an open-addressing table (linear probing, backward-shift deletion) over typed
 * arrays. A `Map<string, number>` costs two to three times more per entry and, under insert/delete
 * churn, keeps rebuilding its table; this one allocates only when it doubles.
 */
export class OrderIndex {
  size = 0;
  private mask = (1 << INITIAL_BITS) - 1;
  private slots = new Int32Array(1 << INITIAL_BITS).fill(NIL);
  private hashes = new Int32Array(1 << INITIAL_BITS);

  constructor(private readonly store: OrderStore) {}

  get(id: string): number {
    const i = this.slotOf(id, hashId(id));
    return i === NIL ? NIL : this.slots[i]!;
  }

  has(id: string): boolean {
    return this.slotOf(id, hashId(id)) !== NIL;
  }

  /** Adds an id known to be absent. */
  add(id: string, h: number): void {
    if ((this.size + 1) * 2 > this.mask + 1) this.grow();
    this.place(hashId(id), h);
    this.size++;
  }

  delete(id: string): void {
    let i = this.slotOf(id, hashId(id));
    if (i === NIL) return;
    const { slots, hashes, mask } = this;
    // Backward shift: pull later members of the probe run into the hole so lookups never stop early.
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const v = slots[j]!;
      if (v === NIL) break;
      const home = hashes[j]! & mask;
      const between = i <= j ? i < home && home <= j : i < home || home <= j;
      if (!between) {
        slots[i] = v;
        hashes[i] = hashes[j]!;
        i = j;
      }
    }
    slots[i] = NIL;
    this.size--;
  }

  private slotOf(id: string, hash: number): number {
    const { slots, hashes, mask } = this;
    const ids = this.store.ids;
    let i = hash & mask;
    for (;;) {
      const v = slots[i]!;
      if (v === NIL) return NIL;
      if (hashes[i] === hash && ids[v] === id) return i;
      i = (i + 1) & mask;
    }
  }

  private place(hash: number, h: number): void {
    const { slots, mask } = this;
    let i = hash & mask;
    while (slots[i] !== NIL) i = (i + 1) & mask;
    slots[i] = h;
    this.hashes[i] = hash;
  }

  private grow(): void {
    const oldSlots = this.slots;
    const oldHashes = this.hashes;
    const capacity = oldSlots.length * 2;
    this.slots = new Int32Array(capacity).fill(NIL);
    this.hashes = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let i = 0; i < oldSlots.length; i++) {
      if (oldSlots[i] !== NIL) this.place(oldHashes[i]!, oldSlots[i]!);
    }
  }
}

/**
 * Hash of an order id from its first and last 16 characters and its length: production ids are keccak
 * digests (`0x` + 64 hex), so 30 hex digits are plenty, and ids that share a long prefix or suffix still
 * spread. Not a defence against ids crafted to collide; the id is a signature digest, costly to grind.
 */
export function hashId(id: string): number {
  const n = id.length;
  let h = n;
  if (n <= 32) {
    for (let i = 0; i < n; i++) h = (h * 31 + id.charCodeAt(i)) | 0;
  } else {
    for (let i = 0; i < 16; i++) h = (h * 31 + id.charCodeAt(i)) | 0;
    for (let i = n - 16; i < n; i++) h = (h * 31 + id.charCodeAt(i)) | 0;
  }
  h = mul32(h ^ (h >>> 16), 0x45d9f3b);
  return h ^ (h >>> 16);
}
