/**
 * What the hub keeps for recovery, over every stream: each kept publication with its byte cost, in one list
 * oldest first, and the total bounded in count and in bytes.
 */

/**
 * Bytes charged for a kept publication beyond its JSON characters: the entry object, its time's number
 * box, the string's header, its slot in its stream's map. `bench/realtime-history-cost.ts` measures
 * 140-165 bytes on Node 20 x64; twice that is charged.
 */
export const KEPT_OVERHEAD_BYTES = 320;

/**
 * The bytes a kept publication of this JSON is charged: two per character, V8's worst case (a string
 * holding any character past Latin-1 takes two bytes per character; the JSON of an ASCII payload takes
 * one, so its true cost is about half the charge), plus the overhead above. Never less than what it holds.
 */
export function keptBytes(json: string): number {
  return 2 * json.length + KEPT_OVERHEAD_BYTES;
}

/** What a stream must do when the budget takes back one of its publications (its oldest). */
export type BudgetedStream = { drop(entry: KeptPublication): void };

/** A publication as a stream keeps it: its encoded `Publication` object and what it costs. */
export class KeptPublication {
  readonly offset: number;
  readonly time: number;
  readonly json: string;
  /** What a newer publication with the same key supersedes (cache recovery); the offset in a plain stream. */
  readonly key: string | number;
  readonly bytes: number;
  /** Its neighbours in the budget's list, oldest first, and the stream that keeps it. */
  older: KeptPublication | undefined;
  newer: KeptPublication | undefined;
  stream: BudgetedStream | undefined;

  constructor(offset: number, time: number, json: string, key: string | number) {
    this.offset = offset;
    this.time = time;
    // Reading a character makes V8 flatten the string built by concatenation (a tree of pieces and
    // nodes, about 350 bytes more for a small publication) into one: kept, it holds its characters only.
    if (json.charCodeAt(0) !== 0x7b) throw new TypeError('a publication is a JSON object');
    this.json = json;
    this.key = key;
    this.bytes = keptBytes(json);
  }
}

/**
 * Caps the publications kept over all the streams that share it, in count and in bytes (`keptBytes`). Each
 * stream bounds its own history by size, bytes and age, but streams multiply with users and books: past
 * either cap, the oldest kept publication of all is dropped first, from whichever stream holds it, so
 * memory stays bounded however many channels publish. A client whose position it dropped gets
 * `recovered: false` and reseeds from REST, as after any gap in the history.
 */
export class HistoryBudget {
  readonly max: number;
  readonly maxBytes: number;
  #kept = 0;
  #bytes = 0;
  #evicted = 0;
  #oldest: KeptPublication | undefined;
  #newest: KeptPublication | undefined;

  constructor(max: number, maxBytes = Number.POSITIVE_INFINITY) {
    if (!Number.isInteger(max) || max < 1)
      throw new RangeError('a history budget keeps at least 1 publication');
    if (!(maxBytes >= 1)) throw new RangeError('a history budget keeps at least 1 byte');
    this.max = max;
    this.maxBytes = maxBytes;
  }

  /** Publications kept now, over all streams. */
  get kept(): number {
    return this.#kept;
  }

  /** Bytes charged for the publications kept now (`keptBytes` each). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Publications dropped to stay within the caps (not those that left by their stream's own bounds). */
  get evicted(): number {
    return this.#evicted;
  }

  /** A stream kept `entry` (its newest): counted, then the oldest ones beyond either cap dropped. */
  add(entry: KeptPublication, stream: BudgetedStream): void {
    entry.stream = stream;
    entry.older = this.#newest;
    if (this.#newest) this.#newest.newer = entry;
    else this.#oldest = entry;
    this.#newest = entry;
    this.#kept++;
    this.#bytes += entry.bytes;
    // A publication bigger than the whole byte cap ends up dropping itself too, after all the others.
    while (this.#kept > this.max || this.#bytes > this.maxBytes) {
      const oldest = this.#oldest!;
      this.#evicted++;
      oldest.stream!.drop(oldest);
    }
  }

  /** A stream dropped `entry` (or the budget asked it to). */
  remove(entry: KeptPublication): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.#oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.#newest = entry.older;
    entry.older = entry.newer = entry.stream = undefined;
    this.#kept--;
    this.#bytes -= entry.bytes;
  }
}
