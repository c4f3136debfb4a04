import { describe, expect, it } from 'vitest';
import { ChannelStream, type StreamSettings } from './stream.js';

const RECOVERABLE: StreamSettings = { historySize: 5, historyTtlMs: 60_000, recoverable: true };

function publishN(stream: ChannelStream, n: number, now = 0) {
  return Array.from({ length: n }, (_, i) => stream.append(JSON.stringify({ i }), now));
}

describe('ChannelStream', () => {
  it('numbers publications 1, 2, 3 and encodes each once with its offset', () => {
    const stream = new ChannelStream(RECOVERABLE, 0, 'E1');
    const [a, b] = publishN(stream, 2);
    expect(a).toEqual({ offset: 1, json: '{"data":{"i":0},"offset":1}' });
    expect(b?.offset).toBe(2);
    expect(stream.position).toEqual({ offset: 2, epoch: 'E1' });
    expect(stream.append('{}', 0, '{"messageId":"m"}').json).toBe(
      '{"data":{},"offset":3,"tags":{"messageId":"m"}}',
    );
  });

  it('gives a stream without history no offsets and no recovery', () => {
    const stream = new ChannelStream({ historySize: 0, historyTtlMs: 0, recoverable: false }, 0);
    expect(stream.append('1', 0)).toEqual({ offset: 0, json: '{"data":1}' });
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
    stream.append('1', 0);
    stream.append('2', 500);
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
