import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChannelStream, HistoryBudget, type StreamSettings } from './stream.js';

const RECOVERABLE: StreamSettings = { historySize: 5, historyTtlMs: 60_000, recoverable: true };

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

  it('encodes a publication once, when first read, and reads back the same publication', () => {
    const stream = new ChannelStream(RECOVERABLE, 0, 'E1');
    let encoded = 0;
    const data = {
      toJSON() {
        encoded++;
        return { x: 1 };
      },
    };
    const pub = stream.append(data, 0, 'm');
    expect(encoded).toBe(0);
    expect(stream.readAfter(0, 10, 0)[0]).toBe(pub);
    expect(pub.json).toBe('{"data":{"messageId":"m","x":1},"offset":1,"tags":{"messageId":"m"}}');
    expect(stream.readBefore(0, 10, 0)[0]?.json).toBe(pub.json);
    expect(encoded).toBe(1);
  });

  it('refuses data JSON cannot encode at all', () => {
    const stream = new ChannelStream(RECOVERABLE, 0);
    for (const bad of [undefined, () => 1, Symbol('s'), 1n]) {
      expect(() => stream.append(bad, 0)).toThrow(/not JSON/);
    }
    expect(stream.top).toBe(0);
    // Encoded at once when asked (a live subscriber): nested data JSON refuses is not appended either.
    expect(() => stream.append({ a: 1n }, 0, 'm', true)).toThrow(TypeError);
    expect(stream.top).toBe(0);
    const now = stream.append({ a: 1 }, 0, 'm', true);
    expect(now.json).toBe('{"data":{"messageId":"m","a":1},"offset":1,"tags":{"messageId":"m"}}');
    expect(stream.readAfter(0, 1, 0)[0]).toBe(now);
  });

  it('gives a stream without history no offsets and no recovery', () => {
    const stream = new ChannelStream({ historySize: 0, historyTtlMs: 0, recoverable: false }, 0);
    const pub = stream.append(1, 0);
    expect(pub.offset).toBe(0);
    expect(pub.json).toBe('{"data":1}');
    expect(stream.top).toBe(0);
    expect(() => new ChannelStream({ historySize: 0, historyTtlMs: 0, recoverable: true }, 0)).toThrow();
  });

  it('epochs differ between stream instances', () => {
    expect(new ChannelStream(RECOVERABLE, 0).epoch).not.toBe(new ChannelStream(RECOVERABLE, 0).epoch);
  });

  it('keeps the newest historySize publications', () => {
    const stream = new ChannelStream(RECOVERABLE, 0);
    publishN(stream, 12);
    expect(stream.oldestOffset(0)).toBe(8);
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

describe('HistoryBudget', () => {
  const KEEP: StreamSettings = { historySize: 10, historyTtlMs: 60_000, recoverable: true };
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
    const small = new ChannelStream(
      { historySize: 2, historyTtlMs: 1_000, recoverable: true },
      0,
      'S',
      budget,
    );
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
  });

  it('agrees with a model: each stream keeps a newest run, the total never passes the cap, oldest dropped first', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(3), { maxLength: 120 }),
        (max, sizes, appends) => {
          const budget = new HistoryBudget(max);
          const streams = sizes.map(
            (historySize, i) =>
              new ChannelStream({ historySize, historyTtlMs: 1e12, recoverable: true }, 0, `E${i}`, budget),
          );
          // The model: every kept publication as [stream, offset], oldest first.
          let kept: [number, number][] = [];
          const tops = sizes.map(() => 0);
          for (const pick of appends) {
            const i = pick % streams.length;
            streams[i]!.append({ pick }, 0);
            tops[i]! += 1;
            kept.push([i, tops[i]!]);
            const own = kept.filter(([s]) => s === i);
            if (own.length > sizes[i]!) kept = kept.filter((k) => k !== own[0]);
            if (kept.length > max) kept = kept.slice(kept.length - max);
            expect(budget.kept).toBe(kept.length);
            streams.forEach((stream, s) => {
              expect(offsets(stream)).toEqual(kept.filter(([k]) => k === s).map(([, o]) => o));
            });
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
