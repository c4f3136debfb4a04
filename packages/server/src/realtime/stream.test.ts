import { describe, expect, it } from 'vitest';
import { ChannelStream, type StreamSettings } from './stream.js';

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
