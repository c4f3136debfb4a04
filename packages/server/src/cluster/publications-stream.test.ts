import { describe, expect, it } from 'vitest';
import type { StampedPublication } from '../realtime/stamped.js';
import { decodeStampedMessage, encodeStampedMessage, splitBySize } from './publications-stream.js';

const publication = (i: number, dataBytes: number): StampedPublication => ({
  channel: `order_book:0xtoken:0xmarket${i % 7}`,
  messageId: `m-${i}`,
  dataJson: JSON.stringify({ i, pad: 'x'.repeat(dataBytes) }),
  offset: i + 1,
  epoch: '1-0',
});

describe('stamped publications split by size', () => {
  it('keeps every publication once, in order, each run under the limit unless one publication exceeds it', () => {
    const list = Array.from({ length: 900 }, (_, i) => publication(i, 1_000 + (i % 5) * 400));
    const limit = 64 * 1024;
    const runs = splitBySize(list, limit);
    expect(runs.length).toBeGreaterThan(1);
    expect(runs.flat()).toEqual(list);
    for (const run of runs) {
      const bytes = encodeStampedMessage({ leaderEpoch: 1, n: 1, publications: run }).length;
      expect(bytes).toBeLessThanOrEqual(limit);
      expect(
        decodeStampedMessage(encodeStampedMessage({ leaderEpoch: 1, n: 1, publications: run }))?.publications,
      ).toEqual(run);
    }
  });

  it('sends a publication larger than the limit alone, and an empty list as no message', () => {
    const runs = splitBySize([publication(0, 10), publication(1, 5_000), publication(2, 10)], 1_000);
    expect(runs.map((run) => run.map((p) => p.messageId))).toEqual([['m-0'], ['m-1'], ['m-2']]);
    expect(splitBySize([], 1_000)).toEqual([]);
  });
});
