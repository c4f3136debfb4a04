/**
 * One channel's publication stream: an epoch (a random id of this stream instance), a top offset that
 * grows by one per publication, and a bounded history (count, bytes and age) for recovery. Pure and
 * synchronous: the caller passes the time. Modelled on the centrifuge memory broker (memstream), with its
 * two recovery modes: `stream` keeps every publication, `cache` only the latest of each key.
 */
import { randomBytes } from 'node:crypto';
import { type HistoryBudget, KeptPublication } from './history-budget.js';

/**
 * How a stream's history serves recovery. `stream`: every publication is kept (up to the bounds) and a
 * recovery returns all those missed. `cache` (Centrifugo's `force_recovery_mode: "cache"`): each
 * publication is a whole state of its key and supersedes the kept publication with the same key (no key:
 * one state for the channel), so the history keeps only the latest of each key and a recovery returns
 * those newer than the client's position; offsets it delivers are then not contiguous.
 */
export type RecoveryMode = 'stream' | 'cache';

export type StreamSettings = {
  /** Publications kept (`cache`: keys kept); 0 turns history off (no offsets, not recoverable). */
  readonly historySize: number;
  /** Bytes kept at most (`keptBytes` of each publication); past it the oldest go first. */
  readonly historyBytes: number;
  /** Age after which a kept publication is dropped. */
  readonly historyTtlMs: number;
  /** Whether subscribers may recover missed publications from the history. */
  readonly recoverable: boolean;
  readonly recovery: RecoveryMode;
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

/**
 * The publication's data as JSON, with `messageId` put first into a JSON object that lacks one. Throws a
 * TypeError for data JSON cannot encode.
 */
export function encodeData(data: unknown, messageId: string | undefined): string {
  const json = JSON.stringify(data);
  if (json === undefined) throw new TypeError('publication data is not JSON');
  if (messageId === undefined || !isPlainObject(data) || data.messageId !== undefined) return json;
  const idField = `"messageId":${JSON.stringify(messageId)}`;
  return json === '{}' ? `{${idField}}` : `{${idField},${json.slice(1)}`;
}

/** `{"data":..,"offset":N,"tags":{"messageId":..}}`; without offset for a stream without history, without tags without a messageId. */
function encodePublication(dataJson: string, offset: number, messageId: string | undefined): string {
  const tags = messageId === undefined ? '' : `,"tags":{"messageId":${JSON.stringify(messageId)}}`;
  return offset > 0 ? `{"data":${dataJson},"offset":${offset}${tags}}` : `{"data":${dataJson}${tags}}`;
}

export class ChannelStream {
  readonly settings: StreamSettings;
  readonly epoch: string;
  private topOffset = 0;
  /**
   * The kept publications by key (`cache`: the publisher's key; `stream`: the offset), oldest first: a Map
   * iterates in insertion order, and a superseding publication is deleted and set again, so at the end.
   */
  private readonly kept = new Map<string | number, KeptPublication>();
  private keptBytes = 0;
  /**
   * The newest offset dropped without a newer publication of its key kept (by size, bytes, age or the
   * budget): a recovery from before it would miss something. Supersession loses nothing.
   */
  private lostUpTo = 0;
  lastPublishAt: number;
  private readonly budget: HistoryBudget | undefined;
  private readonly cache: boolean;

  /**
   * `top`: the offset of the last publication before this stream began (a stream that joins a channel
   * numbered elsewhere, ADR 0018): its next publication is `top + 1`, and what came before is not held.
   */
  constructor(
    settings: StreamSettings,
    now: number,
    epoch: string = newEpoch(),
    budget?: HistoryBudget,
    top = 0,
  ) {
    if (settings.recoverable && settings.historySize <= 0)
      throw new RangeError('a recoverable stream needs history');
    if (!Number.isSafeInteger(top) || top < 0) throw new RangeError('a stream begins at an offset >= 0');
    this.settings = settings;
    this.epoch = epoch;
    this.lastPublishAt = now;
    this.budget = budget;
    this.cache = settings.recovery === 'cache';
    this.topOffset = top;
    this.lostUpTo = top;
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

  /** Publications kept now. */
  get size(): number {
    return this.kept.size;
  }

  /** Bytes charged for them (`keptBytes` each). */
  get bytes(): number {
    return this.keptBytes;
  }

  /**
   * Appends a publication and returns it with its offset (0 without history). `data` is any JSON value;
   * an object without a `messageId` gets `messageId` first, and `messageId` also goes in the tags. `key`
   * names the state it replaces in `cache` mode (default: the channel's one state).
   */
  append(data: unknown, now: number, messageId?: string, key?: string): StreamPublication {
    return this.appendJson(encodeData(data, messageId), now, messageId, key);
  }

  /** As `append`, with the data already encoded by `encodeData` (several channels may share one encoding). */
  appendJson(dataJson: string, now: number, messageId?: string, key = ''): StreamPublication {
    this.lastPublishAt = now;
    if (!this.hasHistory) return { offset: 0, json: encodePublication(dataJson, 0, messageId) };
    const offset = ++this.topOffset;
    const entry = new KeptPublication(
      offset,
      now,
      encodePublication(dataJson, offset, messageId),
      this.cache ? key : offset,
    );
    if (this.cache) {
      const superseded = this.kept.get(key);
      if (superseded !== undefined) this.unlink(superseded);
    }
    this.kept.set(entry.key, entry);
    this.keptBytes += entry.bytes;
    // The stream's own bounds first, so that the budget drops another stream's publication only when the
    // total needs it. The new publication goes too when it alone is over the byte bound: sent live, never
    // recoverable.
    const { historySize, historyBytes } = this.settings;
    while (this.kept.size > 0 && (this.kept.size > historySize || this.keptBytes > historyBytes))
      this.dropOldest();
    this.expire(now);
    if (this.budget !== undefined && this.kept.get(entry.key) === entry) this.budget.add(entry, this);
    return entry;
  }

  /** Drops publications older than the TTL. */
  expire(now: number): void {
    const cutoff = now - this.settings.historyTtlMs;
    for (const entry of this.kept.values()) {
      if (entry.time > cutoff) return;
      this.drop(entry);
    }
  }

  /** Drops every kept publication (the stream is being forgotten); its position stays. */
  clear(): void {
    for (const entry of this.kept.values()) this.drop(entry);
  }

  /** Drops a kept publication (the budget drops only a stream's oldest): recovery from before it is lost. */
  drop(entry: KeptPublication): void {
    if (this.kept.get(entry.key) !== entry) return;
    this.unlink(entry);
    if (entry.offset > this.lostUpTo) this.lostUpTo = entry.offset;
  }

  private dropOldest(): void {
    const oldest = this.kept.values().next().value;
    if (oldest !== undefined) this.drop(oldest);
  }

  private unlink(entry: KeptPublication): void {
    this.kept.delete(entry.key);
    this.keptBytes -= entry.bytes;
    if (entry.stream !== undefined) this.budget?.remove(entry);
  }

  /** Kept publications with offset in (after, ...], oldest first, at most `limit`. */
  readAfter(after: number, limit: number, now: number): StreamPublication[] {
    this.expire(now);
    const out: StreamPublication[] = [];
    if (limit <= 0) return out;
    if (!this.cache) {
      // Offsets of a plain stream are contiguous from its oldest kept one to the top.
      const from = Math.max(after + 1, this.topOffset - this.kept.size + 1);
      const to = Math.min(this.topOffset, from + limit - 1);
      for (let offset = from; offset <= to; offset++) out.push(this.kept.get(offset)!);
      return out;
    }
    for (const entry of this.kept.values()) {
      if (entry.offset <= after) continue;
      out.push(entry);
      if (out.length === limit) break;
    }
    return out;
  }

  /** Kept publications with offset < before (all when before is 0), newest first, at most `limit`. */
  readBefore(before: number, limit: number, now: number): StreamPublication[] {
    this.expire(now);
    const out: StreamPublication[] = [];
    if (limit <= 0) return out;
    const below = before > 0 ? before : this.topOffset + 1;
    if (!this.cache) {
      const oldest = this.topOffset - this.kept.size + 1;
      for (let offset = Math.min(below - 1, this.topOffset); offset >= oldest && out.length < limit; offset--)
        out.push(this.kept.get(offset)!);
      return out;
    }
    const entries = [...this.kept.values()];
    for (let i = entries.length - 1; i >= 0 && out.length < limit; i--)
      if (entries[i]!.offset < below) out.push(entries[i]!);
    return out;
  }

  /**
   * What a subscriber at `since` needs to be up to date, when the history still holds it and it is at
   * most `limit` publications: every publication it missed (`stream`), or the latest of each key among
   * them (`cache`). An empty epoch matches any epoch (as in Centrifugo); a different epoch means the
   * stream the client knew is gone.
   */
  recover(since: StreamPosition, limit: number, now: number): RecoveryResult {
    if (since.epoch !== '' && since.epoch !== this.epoch) return { recovered: false };
    if (since.offset > this.topOffset) return { recovered: false };
    if (since.offset === this.topOffset) return { recovered: true, publications: [] };
    if (!this.settings.recoverable) return { recovered: false };
    this.expire(now);
    if (since.offset < this.lostUpTo) return { recovered: false };
    const publications = this.readAfter(since.offset, limit + 1, now);
    if (publications.length > limit) return { recovered: false };
    return { recovered: true, publications };
  }
}
