import { F, NIL, type OrderStore } from './order-store.js';

const INITIAL_BITS = 12;

/**
 * Order id -> handle, an open-addressing table (linear probing, backward-shift deletion) in one typed
 * array of (handle, hash) pairs, so a probe reads one cache line. A `Map<string, number>` costs two to
 * three times more per entry and, under insert/delete churn, keeps rebuilding its table; this one
 * allocates only when it doubles. Each order's record keeps its hash, so removing a resting order
 * finds its slot by handle without hashing or comparing the id again.
 */
export class OrderIndex {
  size = 0;
  /** Slots - 1; slot i is at table[2i] (handle, NIL when empty) and table[2i + 1] (hash). */
  private mask = (1 << INITIAL_BITS) - 1;
  private table = new Int32Array(2 << INITIAL_BITS).fill(NIL);

  constructor(private readonly store: OrderStore) {}

  get(id: string): number {
    const slot = this.find(id, hashId(id));
    return slot === NIL ? NIL : this.table[slot << 1]!;
  }

  has(id: string): boolean {
    return this.find(id, hashId(id)) !== NIL;
  }

  /** Room for `count` ids without growing. */
  reserve(count: number): void {
    while (count * 2 > this.mask + 1) this.grow();
  }

  /** Adds an id known to be absent. */
  add(id: string, h: number): void {
    this.addHashed(hashId(id), h);
  }

  delete(id: string): void {
    const slot = this.find(id, hashId(id));
    if (slot !== NIL) this.removeSlot(slot);
  }

  /** The slot holding `id` (whose hash is `hash`), or NIL. */
  find(id: string, hash: number): number {
    const table = this.table;
    const mask = this.mask;
    const ids = this.store.ids;
    let i = hash & mask;
    for (;;) {
      const v = table[i << 1]!;
      if (v === NIL) return NIL;
      if (table[(i << 1) + 1] === hash && ids[v] === id) return i;
      i = (i + 1) & mask;
    }
  }

  /**
   * The first slot at or after `from` in the probe run of `hash` whose hash matches, or NIL: a candidate
   * for an id with that hash, to be confirmed by comparing ids (`find` does both).
   */
  candidate(hash: number, from: number): number {
    const table = this.table;
    const mask = this.mask;
    for (let i = from & mask; ; i = (i + 1) & mask) {
      const v = table[i << 1]!;
      if (v === NIL) return NIL;
      if (table[(i << 1) + 1] === hash) return i;
    }
  }

  /** The handle in a slot returned by `find`. */
  handleAt(slot: number): number {
    return this.table[slot << 1]!;
  }

  /** Adds handle `h` (absent) whose id hashes to `hash`, and records the hash in its record. */
  addHashed(hash: number, h: number): void {
    if ((this.size + 1) * 2 > this.mask + 1) this.grow();
    this.store.i32[(h << 4) + F.HASH] = hash;
    this.place(hash, h);
    this.size++;
  }

  /** Removes resting order `h` (present), found through the hash kept in its record. */
  removeHandle(h: number): void {
    const table = this.table;
    const mask = this.mask;
    let i = this.store.i32[(h << 4) + F.HASH]! & mask;
    while (table[i << 1] !== h) i = (i + 1) & mask;
    this.removeSlot(i);
  }

  /** Empties a slot returned by `find`. */
  removeSlot(slot: number): void {
    const table = this.table;
    const mask = this.mask;
    let i = slot;
    // Backward shift: pull later members of the probe run into the hole so lookups never stop early.
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const v = table[j << 1]!;
      if (v === NIL) break;
      const hash = table[(j << 1) + 1]!;
      const home = hash & mask;
      const between = i <= j ? i < home && home <= j : i < home || home <= j;
      if (!between) {
        table[i << 1] = v;
        table[(i << 1) + 1] = hash;
        i = j;
      }
    }
    table[i << 1] = NIL;
    this.size--;
  }

  private place(hash: number, h: number): void {
    const table = this.table;
    const mask = this.mask;
    let i = hash & mask;
    while (table[i << 1] !== NIL) i = (i + 1) & mask;
    table[i << 1] = h;
    table[(i << 1) + 1] = hash;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2).fill(NIL);
    this.mask = old.length - 1;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] !== NIL) this.place(old[i + 1]!, old[i]!);
    }
  }
}

/**
 * Hash of an order id. Short ids (16 characters or fewer) are hashed whole; longer ones from their length,
 * characters 6-9 and their last 4 characters, packed four to a 32-bit word (integer operations only).
 * Production ids are keccak digests (`0x` + 64 hex), so those 8 hex digits carry 32 random bits, and ids
 * that share a long prefix or suffix still spread. Any string is a valid id (lookups compare the whole
 * id); this only decides how well they spread. Not a defence against ids crafted to collide; the id is a
 * signature digest, costly to grind.
 */
export function hashId(id: string): number {
  const n = id.length;
  let h = n;
  if (n <= 16) {
    for (let i = 0; i < n; i++) h = (((h << 5) - h) ^ id.charCodeAt(i)) | 0;
  } else {
    const m = n - 4;
    const head =
      id.charCodeAt(6) | (id.charCodeAt(7) << 8) | (id.charCodeAt(8) << 16) | (id.charCodeAt(9) << 24);
    const tail =
      id.charCodeAt(m) |
      (id.charCodeAt(m + 1) << 8) |
      (id.charCodeAt(m + 2) << 16) |
      (id.charCodeAt(m + 3) << 24);
    h = head ^ mul32(tail ^ n, 0x2c1b3c6d);
  }
  h = mul32(h ^ (h >>> 16), 0x45d9f3b);
  return h ^ (h >>> 16);
}

// 32-bit multiply without Math.imul (the engine avoids Math): low 32 bits of a * b.
export function mul32(a: number, b: number): number {
  const ah = (a >>> 16) & 0xffff;
  const al = a & 0xffff;
  const bh = (b >>> 16) & 0xffff;
  const bl = b & 0xffff;
  return (al * bl + (((ah * bl + al * bh) << 16) >>> 0)) | 0;
}
