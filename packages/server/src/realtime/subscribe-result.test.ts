import { describe, expect, it } from 'vitest';
import { ChannelStream } from './stream.js';
import { publicationsBytes, publicationsJson, subscribeResult } from './subscribe-result.js';

const stream = () => {
  const s = new ChannelStream(
    { historySize: 3, historyBytes: 1e9, historyTtlMs: 60_000, recoverable: true, recovery: 'stream' },
    0,
    'E',
  );
  for (let i = 1; i <= 5; i++) s.append(i, 0);
  return s;
};
const result = (req: Parameters<typeof subscribeResult>[1], s = stream()) =>
  subscribeResult(s, req, { maxPublications: 100, maxBytes: Number.POSITIVE_INFINITY }, 0);

describe('subscribeResult', () => {
  it('is empty for a plain subscription and for a stream without history', () => {
    expect(result({ channel: 'c' })).toEqual({ type: 'ok', resultJson: '{}' });
    const none = new ChannelStream(
      { historySize: 0, historyBytes: 0, historyTtlMs: 0, recoverable: false, recovery: 'stream' },
      0,
    );
    expect(result({ channel: 'c', positioned: true, recoverable: true }, none)).toEqual({
      type: 'ok',
      resultJson: '{}',
    });
  });

  it('gives the top position to a first positioned or recoverable subscribe', () => {
    expect(result({ positioned: true })).toEqual({
      type: 'ok',
      resultJson: '{"epoch":"E","offset":5,"positioned":true}',
    });
    expect(result({ positioned: true, recoverable: true, flag: 1 })).toEqual({
      type: 'ok',
      resultJson: '{"recoverable":true,"epoch":"E","offset":5,"positioned":true}',
    });
  });

  it('recovers from the requested offset, with the position set back to it', () => {
    expect(result({ positioned: true, recoverable: true, recover: true, offset: 3, epoch: 'E' })).toEqual({
      type: 'ok',
      resultJson:
        '{"recoverable":true,"epoch":"E","publications":[{"data":4,"offset":4},{"data":5,"offset":5}],"recovered":true,"offset":3,"positioned":true,"was_recovering":true}',
    });
  });

  it('reports a failed recovery at the top, or 112 when the client asked for it (flag 2)', () => {
    expect(result({ positioned: true, recoverable: true, recover: true, offset: 1, epoch: 'E' })).toEqual({
      type: 'ok',
      resultJson: '{"recoverable":true,"epoch":"E","offset":5,"positioned":true,"was_recovering":true}',
    });
    expect(
      result({ positioned: true, recoverable: true, recover: true, offset: 1, epoch: 'E', flag: 3 }),
    ).toEqual({
      type: 'unrecoverable',
    });
  });

  it('does not recover more bytes than the connection may still be sent: recovered false, or 112', () => {
    const s = stream();
    const missed = s.readAfter(3, 10, 0);
    const bytes = publicationsBytes(missed);
    expect(bytes).toBe(publicationsJson(missed)!.raw.length);
    const req = { positioned: true, recoverable: true, recover: true, offset: 3, epoch: 'E' };
    const within = subscribeResult(s, req, { maxPublications: 100, maxBytes: bytes }, 0);
    expect(within.type === 'ok' && within.resultJson).toContain('"recovered":true');
    expect(subscribeResult(s, req, { maxPublications: 100, maxBytes: bytes - 1 }, 0)).toEqual({
      type: 'ok',
      resultJson: '{"recoverable":true,"epoch":"E","offset":5,"positioned":true,"was_recovering":true}',
    });
    expect(subscribeResult(s, { ...req, flag: 2 }, { maxPublications: 100, maxBytes: bytes - 1 }, 0)).toEqual(
      {
        type: 'unrecoverable',
      },
    );
  });
});
