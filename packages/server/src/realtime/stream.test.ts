import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HistoryBudget, KEPT_OVERHEAD_BYTES, keptBytes } from './history-budget.js';
import { ChannelStream, type StreamSettings } from './stream.js';

const RECOVERABLE: StreamSettings = {
  historySize: 5,
  historyBytes: 1e12,
  historyTtlMs: 60_000,
  recoverable: true,
  recovery: 'stream',
};
const CACHE: StreamSettings = { ...RECOVERABLE, historySize: 100, recovery: 'cache' };
const NO_HISTORY: StreamSettings = { ...RECOVERABLE, historySize: 0, recoverable: false };

function publishN(stream: ChannelStream, n: number, now = 0) {
  return Array.from({ length: n }, (_, i) => stream.append({ i }, now));
}

describe('ChannelStream', () => {
  it('numbers publications 1, 2, 3 and encodes each with its offset', () => {
    const stream = new ChannelStream(RECOVERABLE, 0, 'E1');
    const [a, b] = publishN(stream, 2);
    expect(a?.offset).toBe(1);
    expect(a?.json).toBe('{"data":{"i":0},"offset":1}');
    expect(b?.offset).toBe(2);
    expect(stream.position).toEqual({ offset: 2, epoch: 'E1' });
    expect(stream.append({}, 0, 'm').json).toBe(
      '{"data":{"messageId":"m"},"offset":3,"tags":{"messageId":"m"}}',
    );
    expect(stream.append({ a: [1, 'x'] }, 0, 'n"2').json).toBe(
      '{"data":{"messageId":"n\\"2","a":[1,"x"]},"offset":4,"tags":{"messageId":"n\\"2"}}',
    );
    expect(stream.append({ messageId: 'own', b: null }, 0, 'own').json).toBe(
      '{"data":{"messageId":"own","b":null},"offset":5,"tags":{"messageId":"own"}}',
    );
    expect(stream.append([{ c: 1 }], 0, 'arr').json).toBe(
      '{"data":[{"c":1}],"offset":6,"tags":{"messageId":"arr"}}',
    );
  });

  it('encodes a publication when appended, once, and reads back the same publication', () => {
    const stream = new ChannelStream(RECOVERABLE, 0, 'E1');
    let encoded = 0;
    const data = {
      toJSON() {
        encoded++;
        return { x: 1 };
      },
    };
    const pub = stream.append(data, 0, 'm');
    expect(encoded).toBe(1);
    expect(stream.readAfter(0, 10, 0)[0]).toBe(pub);
    expect(pub.json).toBe('{"data":{"messageId":"m","x":1},"offset":1,"tags":{"messageId":"m"}}');
    expect(stream.readBefore(0, 10, 0)[0]?.json).toBe(pub.json);
    expect(encoded).toBe(1);
    expect(stream.bytes).toBe(keptBytes(pub.json));
  });

  it('refuses data JSON cannot encode, nested too, without appending it', () => {
    const stream = new ChannelStream(RECOVERABLE, 0);
    for (const bad of [undefined, () => 1, Symbol('s')]) {
      expect(() => stream.append(bad, 0)).toThrow(/not JSON/);
    }
    expect(() => stream.append(1n, 0)).toThrow(TypeError);
    expect(() => stream.append({ a: 1n }, 0, 'm')).toThrow(TypeError);
    expect([stream.top, stream.size, stream.bytes]).toEqual([0, 0, 0]);
    const pub = stream.append({ a: 1 }, 0, 'm');
    expect(pub.json).toBe('{"data":{"messageId":"m","a":1},"offset":1,"tags":{"messageId":"m"}}');
    expect(stream.readAfter(0, 1, 0)[0]).toBe(pub);
  });

  it('gives a stream without history no offsets and no recovery', () => {
    const stream = new ChannelStream(NO_HISTORY, 0);
    const pub = stream.append(1, 0);
    expect(pub.offset).toBe(0);
    expect(pub.json).toBe('{"data":1}');
    expect([stream.top, stream.size, stream.bytes]).toEqual([0, 0, 0]);
    expect(() => new ChannelStream({ ...NO_HISTORY, recoverable: true }, 0)).toThrow();
  });

  it('epochs differ between stream instances', () => {
    expect(new ChannelStream(RECOVERABLE, 0).epoch).not.toBe(new ChannelStream(RECOVERABLE, 0).epoch);
  });

  it('keeps the newest historySize publications', () => {
    const stream = new ChannelStream(RECOVERABLE, 0);
    publishN(stream, 12);
    expect(stream.size).toBe(5);
    expect(stream.readAfter(0, 100, 0).map((p) => p.offset)).toEqual([8, 9, 10, 11, 12]);
    expect(stream.readAfter(9, 2, 0).map((p) => p.offset)).toEqual([10, 11]);
    expect(stream.readBefore(0, 3, 0).map((p) => p.offset)).toEqual([12, 11, 10]);
    expect(stream.readBefore(10, 10, 0).map((p) => p.offset)).toEqual([9, 8]);
  });

  it('drops publications older than the TTL but keeps the position', () => {
    const stream = new ChannelStream({ ...RECOVERABLE, historyTtlMs: 1000 }, 0);
    stream.append(1, 0);
    stream.append(2, 500);
    expect(stream.readAfter(0, 10, 999).map((p) => p.offset)).toEqual([1, 2]);
    expect(stream.readAfter(0, 10, 1000).map((p) => p.offset)).toEqual([2]);
    expect(stream.readAfter(0, 10, 1500)).toEqual([]);
    expect(stream.top).toBe(2);
    expect(stream.recover({ offset: 2, epoch: stream.epoch }, 10, 5000)).toEqual({
      recovered: true,
      publications: [],
    });
    expect(stream.recover({ offset: 1, epoch: stream.epoch }, 10, 5000)).toEqual({ recovered: false });
  });

  describe('recover', () => {
    it('returns exactly the missed publications when history covers the gap', () => {
      const stream = new ChannelStream(RECOVERABLE, 0);
      publishN(stream, 4);
      const result = stream.recover({ offset: 1, epoch: stream.epoch }, 100, 0);
      expect(result.recovered).toBe(true);
      expect(result.recovered && result.publications.map((p) => p.offset)).toEqual([2, 3, 4]);
    });

    it('treats an empty epoch as any epoch and a different one as a lost stream', () => {
      const stream = new ChannelStream(RECOVERABLE, 0);
      publishN(stream, 2);
      expect(stream.recover({ offset: 1, epoch: '' }, 100, 0).recovered).toBe(true);
      expect(stream.recover({ offset: 1, epoch: 'other' }, 100, 0).recovered).toBe(false);
    });

    it('fails when the gap is trimmed, longer than the limit, or ahead of the top', () => {
      const stream = new ChannelStream(RECOVERABLE, 0);
      publishN(stream, 12);
      expect(stream.recover({ offset: 6, epoch: stream.epoch }, 100, 0).recovered).toBe(false);
      expect(stream.recover({ offset: 7, epoch: stream.epoch }, 100, 0).recovered).toBe(true);
      expect(stream.recover({ offset: 7, epoch: stream.epoch }, 4, 0).recovered).toBe(false);
      expect(stream.recover({ offset: 13, epoch: stream.epoch }, 100, 0).recovered).toBe(false);
      expect(stream.recover({ offset: 12, epoch: stream.epoch }, 100, 0)).toEqual({
        recovered: true,
        publications: [],
      });
    });

    it('does not recover from a stream that is positioned only', () => {
      const stream = new ChannelStream({ ...RECOVERABLE, recoverable: false }, 0);
      publishN(stream, 3);
      expect(stream.recover({ offset: 1, epoch: stream.epoch }, 100, 0).recovered).toBe(false);
    });
  });
});

describe('ChannelStream byte bound', () => {
  /** A publication whose JSON is `chars` characters long (offsets below 10 and no messageId). */
  const sized = (chars: number) => 'x'.repeat(chars - '{"data":"","offset":1}'.length);

  it('charges each publication 2 bytes a character plus the overhead, and keeps at most historyBytes, oldest out first', () => {
    const stream = new ChannelStream(
      { ...RECOVERABLE, historySize: 100, historyBytes: 3 * keptBytes('x'.repeat(1000)) },
      0,
    );
    const pub = stream.append(sized(1000), 0);
    expect(pub.json.length).toBe(1000);
    expect(stream.bytes).toBe(2 * 1000 + KEPT_OVERHEAD_BYTES);
    stream.append(sized(1000), 0);
    stream.append(sized(1000), 0);
    expect([stream.size, stream.bytes]).toEqual([3, 3 * keptBytes(pub.json)]);
    stream.append(sized(1000), 0); // the fourth: the oldest goes
    expect(stream.readAfter(0, 10, 0).map((p) => p.offset)).toEqual([2, 3, 4]);
    expect(stream.bytes).toBe(stream.settings.historyBytes);
    stream.append(sized(1001), 0); // one character more than the one it replaces: two go
    expect(stream.readAfter(0, 10, 0).map((p) => p.offset)).toEqual([4, 5]);
    expect(stream.recover({ offset: 2, epoch: stream.epoch }, 10, 0).recovered).toBe(false);
    expect(stream.recover({ offset: 3, epoch: stream.epoch }, 10, 0).recovered).toBe(true);
  });

  it('keeps nothing of a publication bigger than the bound by itself (sent, never recoverable)', () => {
    const stream = new ChannelStream({ ...RECOVERABLE, historySize: 100, historyBytes: 5_000 }, 0);
    stream.append(sized(100), 0);
    const big = stream.append(sized(3_000), 0);
    expect(big.offset).toBe(2);
    expect([stream.size, stream.bytes, stream.top]).toEqual([0, 0, 2]);
    expect(stream.recover({ offset: 1, epoch: stream.epoch }, 10, 0).recovered).toBe(false);
    expect(stream.recover({ offset: 2, epoch: stream.epoch }, 10, 0)).toEqual({
      recovered: true,
      publications: [],
    });
    stream.append(sized(100), 0);
    expect(stream.readAfter(0, 10, 0).map((p) => p.offset)).toEqual([3]);
  });
});

describe('ChannelStream in cache mode', () => {
  const keysOf = (pubs: readonly { json: string }[]) =>
    pubs.map((p) => (JSON.parse(p.json) as { data: { k: string; v: number } }).data);

  it('keeps the latest publication of each key; without keys, the latest of the channel', () => {
    const stream = new ChannelStream(CACHE, 0, 'C');
    stream.append({ k: 'a', v: 1 }, 0, undefined, 'a');
    stream.append({ k: 'b', v: 2 }, 0, undefined, 'b');
    stream.append({ k: 'a', v: 3 }, 0, undefined, 'a');
    expect(stream.top).toBe(3);
    expect(stream.readAfter(0, 10, 0).map((p) => p.offset)).toEqual([2, 3]);
    expect(keysOf(stream.readAfter(0, 10, 0))).toEqual([
      { k: 'b', v: 2 },
      { k: 'a', v: 3 },
    ]);
    expect(stream.readBefore(0, 10, 0).map((p) => p.offset)).toEqual([3, 2]);
    expect(stream.readBefore(3, 10, 0).map((p) => p.offset)).toEqual([2]);
    expect(stream.bytes).toBe(stream.readAfter(0, 10, 0).reduce((sum, p) => sum + keptBytes(p.json), 0));

    const single = new ChannelStream(CACHE, 0, 'S');
    for (let v = 1; v <= 5; v++) single.append({ k: '', v }, 0);
    expect(single.readAfter(0, 10, 0).map((p) => p.offset)).toEqual([5]);
    expect(single.size).toBe(1);
  });

  it('recovers the latest of each key published after the position, offsets not contiguous', () => {
    const stream = new ChannelStream(CACHE, 0, 'C');
    for (let v = 1; v <= 9; v++)
      stream.append({ k: v % 3 === 0 ? 'c' : 'd', v }, 0, `m${v}`, v % 3 === 0 ? 'c' : 'd');
    // kept: d@8, c@9. A client at 7 missed d@8 and c@9; at 8 only c@9; at 2 every key's latest.
    const at = (offset: number) => stream.recover({ offset, epoch: 'C' }, 100, 0);
    const offsetsOf = (r: ReturnType<typeof at>) =>
      r.recovered ? r.publications.map((p) => p.offset) : false;
    expect(offsetsOf(at(7))).toEqual([8, 9]);
    expect(offsetsOf(at(8))).toEqual([9]);
    expect(offsetsOf(at(2))).toEqual([8, 9]);
    expect(offsetsOf(at(0))).toEqual([8, 9]);
    expect(offsetsOf(at(9))).toEqual([]);
    expect(at(10)).toEqual({ recovered: false });
    expect(stream.recover({ offset: 2, epoch: 'other' }, 100, 0)).toEqual({ recovered: false });
    expect(stream.recover({ offset: 2, epoch: '' }, 100, 0).recovered).toBe(true);
    // More keys to deliver than the limit: not recovered.
    expect(stream.recover({ offset: 2, epoch: 'C' }, 1, 0)).toEqual({ recovered: false });
  });

  it('loses recovery from before a publication dropped by age, size or bytes, not by supersession', () => {
    const stream = new ChannelStream({ ...CACHE, historySize: 2, historyTtlMs: 1_000 }, 0, 'C');
    stream.append({ k: 'a' }, 0, undefined, 'a'); // 1
    stream.append({ k: 'b' }, 0, undefined, 'b'); // 2
    stream.append({ k: 'c' }, 0, undefined, 'c'); // 3: a third key, a@1 goes by size
    expect(stream.readAfter(0, 10, 0).map((p) => p.offset)).toEqual([2, 3]);
    expect(stream.recover({ offset: 0, epoch: 'C' }, 10, 0).recovered).toBe(false);
    expect(stream.recover({ offset: 1, epoch: 'C' }, 10, 0).recovered).toBe(true);
    stream.append({ k: 'b' }, 500, undefined, 'b'); // 4 supersedes b@2: nothing lost
    expect(stream.recover({ offset: 1, epoch: 'C' }, 10, 500).recovered).toBe(true);
    // c@3 is past its age at 1,000: whoever was before it cannot be brought up to date.
    expect(stream.readAfter(0, 10, 1_000).map((p) => p.offset)).toEqual([4]);
    expect(stream.recover({ offset: 2, epoch: 'C' }, 10, 1_000).recovered).toBe(false);
    const r = stream.recover({ offset: 3, epoch: 'C' }, 10, 1_000);
    expect(r.recovered && r.publications.map((p) => p.offset)).toEqual([4]);
  });
});

describe('HistoryBudget', () => {
  const KEEP: StreamSettings = { ...RECOVERABLE, historySize: 10 };
  const offsets = (stream: ChannelStream, now = 0) => stream.readAfter(0, 1_000, now).map((p) => p.offset);

  it('drops the oldest publication of all streams first once the total passes the cap', () => {
    const budget = new HistoryBudget(3);
    const a = new ChannelStream(KEEP, 0, 'A', budget);
    const b = new ChannelStream(KEEP, 0, 'B', budget);
    a.append({ n: 'a1' }, 0);
    b.append({ n: 'b1' }, 0);
    a.append({ n: 'a2' }, 0);
    expect(budget.kept).toBe(3);
    b.append({ n: 'b2' }, 0); // a1 is the oldest of all
    expect([offsets(a), offsets(b), budget.kept, budget.evicted]).toEqual([[2], [1, 2], 3, 1]);
    a.append({ n: 'a3' }, 0); // then b1
    expect([offsets(a), offsets(b), budget.evicted]).toEqual([[2, 3], [2], 2]);
    // A position inside what the budget dropped cannot be recovered; one after it can.
    expect(a.recover({ offset: 0, epoch: 'A' }, 100, 0)).toEqual({ recovered: false });
    const recovered = a.recover({ offset: 1, epoch: 'A' }, 100, 0);
    expect(recovered.recovered && recovered.publications.map((p) => p.offset)).toEqual([2, 3]);
    expect(a.position).toEqual({ offset: 3, epoch: 'A' });
  });

  it('gets back what a stream drops by its own size, age or clear, without counting it as evicted', () => {
    const budget = new HistoryBudget(100);
    const small = new ChannelStream({ ...KEEP, historySize: 2, historyTtlMs: 1_000 }, 0, 'S', budget);
    const other = new ChannelStream(KEEP, 0, 'O', budget);
    for (let i = 0; i < 5; i++) small.append({ i }, 0);
    other.append({}, 0);
    expect(budget.kept).toBe(3); // 2 of small's 5, other's 1
    small.append({ late: true }, 2_000); // the two older ones are past the TTL
    expect([offsets(small, 2_000), budget.kept]).toEqual([[6], 2]);
    other.clear();
    expect([offsets(other), other.position.offset, budget.kept, budget.evicted]).toEqual([[], 1, 1, 0]);
  });

  it('refuses a cap below one', () => {
    expect(() => new HistoryBudget(0)).toThrow(RangeError);
    expect(() => new HistoryBudget(1, 0)).toThrow(RangeError);
  });

  it('keeps the bytes of many channels of big publications within its byte cap, oldest dropped first', () => {
    const book = (i: number) => ({ i, levels: 'l'.repeat(20_000 + ((i * 7919) % 30_000)) });
    const maxBytes = 2_000_000;
    const budget = new HistoryBudget(1_000_000, maxBytes);
    const streams = Array.from(
      { length: 40 },
      (_, i) => new ChannelStream({ ...KEEP, historySize: 50, historyBytes: 400_000 }, 0, `B${i}`, budget),
    );
    let evicted = 0;
    for (let n = 0; n < 2_000; n++) {
      const stream = streams[(n * 13) % streams.length]!;
      stream.append(book(n), n);
      expect(budget.bytes).toBeLessThanOrEqual(maxBytes);
      expect(stream.bytes).toBeLessThanOrEqual(400_000);
      // The kept publications are the newest of all: every one kept is newer than every one dropped.
      if (budget.evicted > evicted) {
        evicted = budget.evicted;
        const kept = streams.flatMap((s) => s.readAfter(0, 1_000, n).map((p) => JSON.parse(p.json).data.i));
        const newest = Array.from({ length: kept.length }, (_, k) => n - kept.length + 1 + k);
        expect(kept.sort((x, y) => x - y)).toEqual(newest);
      }
    }
    expect(budget.evicted).toBeGreaterThan(0);
    const total = streams.reduce((sum, s) => sum + s.bytes, 0);
    expect(budget.bytes).toBe(total);
    expect(budget.kept).toBe(streams.reduce((sum, s) => sum + s.size, 0));
  });

  it('agrees with a model: own bounds first, then the totals in count and bytes, oldest of all dropped first; recovery exactly when nothing it needs was lost', () => {
    type Stream = { size: number; bytes: number; cache: boolean };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1_000, max: 8_000 }),
        fc.array(
          fc.record({
            size: fc.integer({ min: 1, max: 6 }),
            bytes: fc.integer({ min: 500, max: 4_000 }),
            cache: fc.boolean(),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        fc.array(fc.record({ pick: fc.nat(3), key: fc.nat(2), chars: fc.nat(1_500) }), { maxLength: 120 }),
        (max, maxBytes, specs: Stream[], appends) => {
          const budget = new HistoryBudget(max, maxBytes);
          const streams = specs.map(
            (spec, i) =>
              new ChannelStream(
                {
                  ...KEEP,
                  historySize: spec.size,
                  historyBytes: spec.bytes,
                  historyTtlMs: 1e12,
                  recovery: spec.cache ? 'cache' : 'stream',
                },
                0,
                `E${i}`,
                budget,
              ),
          );
          // The model: every kept publication, oldest first; per stream the newest offset lost.
          type Kept = { s: number; offset: number; key: number; bytes: number };
          let kept: Kept[] = [];
          const lost = specs.map(() => 0);
          const tops = specs.map(() => 0);
          const drop = (k: Kept) => {
            kept = kept.filter((x) => x !== k);
            lost[k.s] = Math.max(lost[k.s]!, k.offset);
          };
          for (const { pick, key, chars } of appends) {
            const i = pick % streams.length;
            const spec = specs[i]!;
            const pub = streams[i]!.append('x'.repeat(chars), 0, undefined, String(key));
            tops[i]! += 1;
            const entry: Kept = { s: i, offset: tops[i]!, key, bytes: keptBytes(pub.json) };
            if (spec.cache) kept = kept.filter((x) => !(x.s === i && x.key === key));
            kept.push(entry);
            const own = () => kept.filter((x) => x.s === i);
            const ownBytes = () => own().reduce((sum, x) => sum + x.bytes, 0);
            while (own().length > 0 && (own().length > spec.size || ownBytes() > spec.bytes)) drop(own()[0]!);
            const total = () => kept.reduce((sum, x) => sum + x.bytes, 0);
            if (kept.includes(entry)) while (kept.length > max || total() > maxBytes) drop(kept[0]!);

            expect([budget.kept, budget.bytes]).toEqual([kept.length, total()]);
            expect(budget.bytes).toBeLessThanOrEqual(maxBytes);
            streams.forEach((stream, s) => {
              const mine = kept.filter((x) => x.s === s).map((x) => x.offset);
              expect(stream.readAfter(0, 1_000, 0).map((p) => p.offset)).toEqual(mine);
              for (let since = 0; since <= tops[s]!; since++) {
                const result = stream.recover({ offset: since, epoch: `E${s}` }, 1_000, 0);
                const expected = since === tops[s] || since >= lost[s]!;
                expect(result.recovered).toBe(expected);
                if (result.recovered)
                  expect(result.publications.map((p) => p.offset)).toEqual(mine.filter((o) => o > since));
              }
            });
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
