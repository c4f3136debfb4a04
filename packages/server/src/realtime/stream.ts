/**
 * One channel's publication stream: an epoch (a random id of this stream instance), a top offset
 * that grows by one per publication, and a bounded history (size and age) for recovery. Pure and
 * synchronous: the caller passes the time. Modelled on the centrifuge memory broker (memstream).
 */
import { randomBytes } from 'node:crypto';

export type StreamSettings = {
  /** Publications kept for recovery and history; 0 turns history off (no offsets, not recoverable). */
  readonly historySize: number;
  /** Age after which a kept publication is dropped. */
  readonly historyTtlMs: number;
  /** Whether subscribers may recover missed publications from the history. */
  readonly recoverable: boolean;
};

/** A publication as kept and as sent: its encoded `Publication` object (`{"data":..,"offset":N,..}`). */
export type StreamPublication = { readonly offset: number; readonly json: string };

export type StreamPosition = { readonly offset: number; readonly epoch: string };

export type RecoveryResult =
  | { readonly recovered: true; readonly publications: readonly StreamPublication[] }
  | { readonly recovered: false };

export function newEpoch(): string {
  return randomBytes(6).toString('base64url');
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The publication's data as JSON, with `messageId` put first into a JSON object that lacks one. */
function encodeData(data: unknown, messageId: string | undefined): string {
  const json = JSON.stringify(data);
  if (json === undefined) throw new TypeError('publication data is not JSON');
  if (messageId === undefined || !isPlainObject(data) || data.messageId !== undefined) return json;
  const idField = `"messageId":${JSON.stringify(messageId)}`;
  return json === '{}' ? `{${idField}}` : `{${idField},${json.slice(1)}`;
}

/**
 * A publication of a stream. It keeps its data as the publisher gave it and encodes it the first time
 * its JSON is asked for (a live subscriber, a recovery, a history call), then keeps only the JSON: a
 * stream nobody reads never pays for the encoding. The data must therefore not change once published.
 */
class Entry implements StreamPublication {
  readonly offset: number;
  readonly time: number;
  /** Its neighbours in the budget's list of every kept publication, oldest first; its stream. */
  older: Entry | undefined;
  newer: Entry | undefined;
  stream: ChannelStream | undefined;
  #data: unknown;
  #messageId: string | undefined;
  #json: string | undefined;

  /** `dataJson`: the data already encoded (then the publication is encoded at once and the data not kept). */
  constructor(offset: number, time: number, data: unknown, messageId: string | undefined, dataJson?: string) {
    this.offset = offset;
    this.time = time;
    if (dataJson === undefined) {
      this.#data = data;
      this.#messageId = messageId;
      this.#json = undefined;
    } else {
      this.#data = undefined;
      this.#messageId = undefined;
      this.#json = encodePublication(dataJson, offset, messageId);
    }
  }

  /** `{"data":..,"offset":N,"tags":{"messageId":..}}`; without offset for a stream without history, without tags without a messageId. */
  get json(): string {
    let json = this.#json;
    if (json === undefined) {
      json = encodePublication(encodeData(this.#data, this.#messageId), this.offset, this.#messageId);
      this.#json = json;
      this.#data = undefined;
      this.#messageId = undefined;
    }
    return json;
  }
}

function encodePublication(dataJson: string, offset: number, messageId: string | undefined): string {
  const tags = messageId === undefined ? '' : `,"tags":{"messageId":${JSON.stringify(messageId)}}`;
  return offset > 0 ? `{"data":${dataJson},"offset":${offset}${tags}}` : `{"data":${dataJson}${tags}}`;
}

/**
 * Caps the publications kept over all the streams that share it. Each stream bounds its own history by
 * size and age, but streams multiply with users (three account channels each): past the cap, the oldest
 * kept publication of all is dropped first, from whichever stream holds it, so memory stays bounded
 * however many users trade. A client whose position it dropped gets `recovered: false` and reseeds from
 * REST, as after any gap in the history.
 */
export class HistoryBudget {
  readonly max: number;
  #kept = 0;
  #evicted = 0;
  #oldest: Entry | undefined;
  #newest: Entry | undefined;

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1)
      throw new RangeError('a history budget keeps at least 1 publication');
    this.max = max;
  }

  /** Publications kept now, over all streams. */
  get kept(): number {
    return this.#kept;
  }

  /** Publications dropped to stay within the cap (not those that left by their stream's size or age). */
  get evicted(): number {
    return this.#evicted;
  }

  /** A stream kept `entry` (its newest): counted, and the oldest ones beyond the cap dropped. */
  add(entry: Entry, stream: ChannelStream): void {
    entry.stream = stream;
    entry.older = this.#newest;
    if (this.#newest) this.#newest.newer = entry;
    else this.#oldest = entry;
    this.#newest = entry;
    this.#kept++;
    // Streams append in time order and drop from their oldest end, so the oldest kept publication of
    // all is also the oldest of its own stream.
    while (this.#kept > this.max) {
      this.#evicted++;
      this.#oldest!.stream!.dropOldest();
    }
  }

  /** A stream dropped `entry` (its oldest). */
  remove(entry: Entry): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.#oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.#newest = entry.older;
    entry.older = entry.newer = entry.stream = undefined;
    this.#kept--;
  }
}

/** Throws for a value JSON cannot encode at all; the rest of the encoding happens when the JSON is first read. */
function checkData(data: unknown): void {
  const type = typeof data;
  if (data === undefined || type === 'function' || type === 'symbol' || type === 'bigint') {
    throw new TypeError('publication data is not JSON');
  }
}

export class ChannelStream {
  readonly settings: StreamSettings;
  readonly epoch: string;
  private topOffset = 0;
  /** Ring buffer of the newest `count` publications; the newest has offset `topOffset`. */
  private readonly ring: (Entry | undefined)[] = [];
  private head = 0;
  private count = 0;
  lastPublishAt: number;
  private readonly budget: HistoryBudget | undefined;

  constructor(settings: StreamSettings, now: number, epoch: string = newEpoch(), budget?: HistoryBudget) {
    if (settings.recoverable && settings.historySize <= 0)
      throw new RangeError('a recoverable stream needs history');
    this.settings = settings;
    this.epoch = epoch;
    this.lastPublishAt = now;
    this.budget = budget;
  }

  get hasHistory(): boolean {
    return this.settings.historySize > 0;
  }

  get top(): number {
    return this.topOffset;
  }

  get position(): StreamPosition {
    return { offset: this.topOffset, epoch: this.epoch };
  }

  /**
   * Appends a publication and returns it with its offset (0 without history). `data` is any JSON value;
   * an object without a `messageId` gets `messageId` first, and `messageId` also goes in the tags.
   * Unless `encodeNow` (the caller sends it at once), the data is encoded on the first read of `json`
   * (of the returned publication or of a recovered one), so it must not change once appended, and
   * data JSON cannot encode fails then rather than here.
   */
  append(data: unknown, now: number, messageId?: string, encodeNow = false): StreamPublication {
    // Encoded first when asked, so that data JSON refuses is not appended.
    let dataJson: string | undefined;
    if (encodeNow) dataJson = encodeData(data, messageId);
    else checkData(data);
    this.lastPublishAt = now;
    const offset = this.hasHistory ? ++this.topOffset : 0;
    const entry = new Entry(offset, now, data, messageId, dataJson);
    if (offset === 0) return entry;
    if (this.count === this.settings.historySize) this.dropOldest();
    this.ring[(this.head + this.count) % this.settings.historySize] = entry;
    this.count++;
    this.budget?.add(entry, this);
    this.expire(now);
    return entry;
  }

  /** Drops publications older than the TTL. */
  expire(now: number): void {
    const cutoff = now - this.settings.historyTtlMs;
    while (this.count > 0 && this.ring[this.head]!.time <= cutoff) this.dropOldest();
  }

  /** Drops every kept publication (the stream is being forgotten); its position stays. */
  clear(): void {
    while (this.count > 0) this.dropOldest();
  }

  /** Drops the oldest kept publication (there is one). */
  dropOldest(): void {
    const entry = this.ring[this.head]!;
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) % this.settings.historySize;
    this.count--;
    this.budget?.remove(entry);
  }

  /** Offset of the oldest kept publication, or top + 1 when none is kept. */
  oldestOffset(now: number): number {
    this.expire(now);
    return this.topOffset - this.count + 1;
  }

  /** Kept publications with offset in (after, after + limit], oldest first. */
  readAfter(after: number, limit: number, now: number): StreamPublication[] {
    const oldest = this.oldestOffset(now);
    const from = Math.max(after + 1, oldest);
    const to = Math.min(this.topOffset, from + limit - 1);
    const out: StreamPublication[] = [];
    for (let offset = from; offset <= to; offset++) out.push(this.at(offset));
    return out;
  }

  /** Kept publications with offset < before (all when before is 0), newest first, at most `limit`. */
  readBefore(before: number, limit: number, now: number): StreamPublication[] {
    const oldest = this.oldestOffset(now);
    const from = before > 0 ? Math.min(before - 1, this.topOffset) : this.topOffset;
    const out: StreamPublication[] = [];
    for (let offset = from; offset >= oldest && out.length < limit; offset--) out.push(this.at(offset));
    return out;
  }

  /**
   * The publications a subscriber at `since` missed, when the history still holds every one of them
   * and there are at most `limit`. An empty epoch matches any epoch (as in Centrifugo); a different
   * epoch means the stream the client knew is gone.
   */
  recover(since: StreamPosition, limit: number, now: number): RecoveryResult {
    if (since.epoch !== '' && since.epoch !== this.epoch) return { recovered: false };
    if (since.offset > this.topOffset) return { recovered: false };
    const missed = this.topOffset - since.offset;
    if (missed === 0) return { recovered: true, publications: [] };
    if (!this.settings.recoverable || missed > limit) return { recovered: false };
    if (since.offset + 1 < this.oldestOffset(now)) return { recovered: false };
    return { recovered: true, publications: this.readAfter(since.offset, missed, now) };
  }

  private at(offset: number): StreamPublication {
    const index = (this.head + (offset - (this.topOffset - this.count + 1))) % this.settings.historySize;
    return this.ring[index]!;
  }
}
