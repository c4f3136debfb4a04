import { describe, expect, it } from 'vitest';
import { Engine } from '../engine/index.js';
import type { AppliedEntry, SequencerInput } from './inputs.js';
import { type BatchCommitter, Sequencer } from './sequencer.js';

/** A committer whose flushes the test completes (or fails) one by one; writes are recorded in order. */
function manualCommitter() {
  const writes: { seqs: number[]; flush: { resolve: () => void; reject: (e: unknown) => void } }[] = [];
  const committer: BatchCommitter = {
    commitBatch(entries: readonly AppliedEntry[]) {
      return new Promise<void>((resolve, reject) => {
        writes.push({ seqs: entries.map((e) => e.seq), flush: { resolve, reject } });
      });
    },
  };
  return { committer, writes };
}

const credit = (n: number): SequencerInput => ({
  kind: 'engine',
  command: { type: 'credit', account: `0x${n.toString(16).padStart(40, '0')}`, amount: 1_000n },
});
const turn = () => new Promise((resolve) => setImmediate(resolve));

function sequencer(
  committer: BatchCommitter,
  options: { maxInFlight?: number; overlapBelow?: number; onFatal?: () => void } = {},
) {
  return new Sequencer({
    engine: new Engine(),
    committer,
    clock: { now: () => 1_000 },
    lastSeq: 0,
    lastTs: 0,
    ...options,
  });
}

describe('sequencer', () => {
  it('writes the next batch while one flushes, and answers and publishes strictly in seq order', async () => {
    const { committer, writes } = manualCommitter();
    const s = sequencer(committer);
    const log: string[] = [];
    s.onCommitted((entries) => log.push(`published ${entries.map((e) => e.seq).join(',')}`));
    const answered = (p: Promise<AppliedEntry>) => p.then((e) => log.push(`answered ${e.seq}`));

    const a = answered(s.submit(credit(1)));
    await turn();
    const b = answered(s.submit(credit(2)));
    await turn();
    // Batch 2 is written while batch 1 is still flushing; a third waits for a free slot.
    expect(writes.map((w) => w.seqs)).toEqual([[1], [2]]);
    const c = answered(s.submit(credit(3)));
    await turn();
    expect(writes).toHaveLength(2);

    writes[1]!.flush.resolve(); // the later flush finishes first: nothing may be answered yet
    await turn();
    expect(log).toEqual([]);
    writes[0]!.flush.resolve();
    await Promise.all([a, b]);
    await turn();
    expect(log.slice(0, 2)).toEqual(['answered 1', 'answered 2']);
    await turn();
    // Answers go before the batch's publication; batch 3 is written once a slot is free.
    expect(log).toEqual(['answered 1', 'answered 2', 'published 1', 'published 2']);
    expect(writes.map((w) => w.seqs)).toEqual([[1], [2], [3]]);
    writes[2]!.flush.resolve();
    await c;
    await s.idle();
    expect(log.slice(-2)).toEqual(['answered 3', 'published 3']);
    expect(s.isIdle).toBe(true);
  });

  it('with maxInFlight 1, gathers everything queued during a flush into the next batch', async () => {
    const { committer, writes } = manualCommitter();
    const s = sequencer(committer, { maxInFlight: 1 });
    const first = s.submit(credit(1));
    await turn();
    const more = [s.submit(credit(2)), s.submit(credit(3))];
    await turn();
    const later = s.submit(credit(4));
    await turn();
    expect(writes.map((w) => w.seqs)).toEqual([[1]]);
    writes[0]!.flush.resolve();
    expect((await first).seq).toBe(1);
    await turn();
    expect(writes.map((w) => w.seqs)).toEqual([[1], [2, 3, 4]]);
    writes[1]!.flush.resolve();
    expect((await Promise.all([...more, later])).map((e) => e.seq)).toEqual([2, 3, 4]);
  });

  it('under load (a large batch flushing) waits for the flush and gathers one larger batch', async () => {
    const { committer, writes } = manualCommitter();
    const s = sequencer(committer, { overlapBelow: 2 });
    const big = s.submitAll([credit(1), credit(2), credit(3)]);
    await turn();
    const next = [s.submit(credit(4))];
    await turn();
    next.push(s.submit(credit(5)));
    await turn();
    expect(writes.map((w) => w.seqs)).toEqual([[1, 2, 3]]);
    writes[0]!.flush.resolve();
    await Promise.all(big);
    await turn();
    expect(writes.map((w) => w.seqs)).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    writes[1]!.flush.resolve();
    expect((await Promise.all(next)).map((e) => e.seq)).toEqual([4, 5]);
  });

  it('a failed flush refuses everything not yet answered, stops, and reports once', async () => {
    const { committer, writes } = manualCommitter();
    let fatal = 0;
    const s = sequencer(committer, { onFatal: () => (fatal += 1) });
    const published: number[] = [];
    s.onCommitted((entries) => published.push(...entries.map((e) => e.seq)));
    const a = s.submit(credit(1));
    await turn();
    const b = s.submit(credit(2));
    await turn();
    const c = s.submit(credit(3)); // queued behind two in flight
    writes[0]!.flush.reject(new Error('disk gone'));
    const results = await Promise.allSettled([a, b, c]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason).toMatchObject({ statusCode: 503 });
    writes[1]!.flush.resolve(); // batch 2 became durable after all: still not answered, never published
    await turn();
    await turn();
    expect(published).toEqual([]);
    expect(fatal).toBe(1);
    expect(() => s.submit(credit(4))).toThrow(/stopped/);
    await s.idle(); // a stopped sequencer has nothing left to wait for
  });

  it('a write that throws refuses its batch and the queue', async () => {
    let fatal = 0;
    const s = sequencer(
      {
        commitBatch() {
          throw new Error('constraint');
        },
      },
      { onFatal: () => (fatal += 1) },
    );
    const [a, b] = s.submitAll([credit(1), credit(2)]);
    await expect(a).rejects.toMatchObject({ statusCode: 503 });
    await expect(b).rejects.toMatchObject({ statusCode: 503 });
    expect(fatal).toBe(1);
  });
});
