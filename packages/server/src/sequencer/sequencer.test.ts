import { describe, expect, it } from 'vitest';
import { Engine } from '../engine/index.js';
import type { AppliedEntry, SequencerInput } from './inputs.js';
import type { Journal } from './journal.js';
import { Sequencer } from './sequencer.js';

type BatchCommitter = Pick<Journal, 'append'>;

type Write = {
  seqs: number[];
  /** Tells the sequencer the batch is written (only when the committer reports writes). */
  written: () => void;
  flush: { resolve: () => void; reject: (e: unknown) => void };
};

/**
 * A committer whose flushes the test completes (or fails) one by one; writes are recorded in order. With
 * `reportWritten`, each write is reported written at once (as the SQLite store does with a free gate),
 * unless `holdWrites` (then the test calls `written`, as a write held behind the checkpointer's gate).
 */
function manualCommitter(options: { reportWritten?: boolean; holdWrites?: boolean } = {}) {
  const writes: Write[] = [];
  const committer: BatchCommitter = {
    append(entries: readonly AppliedEntry[], written) {
      return new Promise<void>((resolve, reject) => {
        const report = () => (options.reportWritten ? written?.() : undefined);
        writes.push({ seqs: entries.map((e) => e.seq), written: report, flush: { resolve, reject } });
        if (!options.holdWrites) report();
      });
    },
  };
  return { committer, writes };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const credit = (n: number): SequencerInput => ({
  kind: 'engine',
  command: { type: 'credit', account: `0x${n.toString(16).padStart(40, '0')}`, amount: 1_000n },
});
const turn = () => new Promise((resolve) => setImmediate(resolve));

function sequencer(
  committer: BatchCommitter,
  options: { onFatal?: () => void; overlapAfterMs?: number } = {},
) {
  return new Sequencer({
    engine: new Engine(),
    journal: committer,
    clock: { now: () => 1_000 },
    lastSeq: 0,
    lastTs: 0,
    ...options,
  });
}

describe('sequencer', () => {
  it('answers a batch once it is durable, then publishes it; inputs arriving meanwhile form the next batch', async () => {
    const { committer, writes } = manualCommitter();
    const s = sequencer(committer);
    const log: string[] = [];
    s.onCommitted(({ entries }) => log.push(`published ${entries.map((e) => e.seq).join(',')}`));
    const answered = (p: Promise<AppliedEntry>) => p.then((e) => log.push(`answered ${e.seq}`));

    const first = answered(s.submit(credit(1)));
    await turn();
    const during = [answered(s.submit(credit(2)))];
    await turn();
    during.push(answered(s.submit(credit(3))));
    await turn();
    // One batch at a time: nothing else is written until the first is durable.
    expect(writes.map((w) => w.seqs)).toEqual([[1]]);
    expect(log).toEqual([]);

    writes[0]!.flush.resolve();
    await first;
    expect(log).toEqual(['answered 1']); // the answer goes before the publication
    await turn();
    expect(log).toEqual(['answered 1', 'published 1']);
    await turn();
    expect(writes.map((w) => w.seqs)).toEqual([[1], [2, 3]]);
    writes[1]!.flush.resolve();
    await Promise.all(during);
    await s.idle();
    expect(log).toEqual(['answered 1', 'published 1', 'answered 2', 'answered 3', 'published 2,3']);
    expect(s.isIdle).toBe(true);
  });

  it('reports each batch to its observers once durable: its inputs and the time from queue to durable', async () => {
    const { committer, writes } = manualCommitter();
    const s = sequencer(committer);
    const observed: { inputs: number; seconds: number }[] = [];
    s.observeBatches((inputs, seconds) => observed.push({ inputs, seconds }));
    const first = s.submitAll([credit(1), credit(2)]);
    await turn();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(observed).toEqual([]); // written, not yet durable
    writes[0]!.flush.resolve();
    await Promise.all(first);
    expect(observed).toHaveLength(1);
    expect(observed[0]!.inputs).toBe(2);
    expect(observed[0]!.seconds).toBeGreaterThanOrEqual(0.015);
    expect(observed[0]!.seconds).toBeLessThan(5);

    writes.length = 0;
    const failing = s.submit(credit(3));
    await turn();
    writes[0]!.flush.reject(new Error('disk gone'));
    await expect(failing).rejects.toMatchObject({ statusCode: 503 });
    expect(observed).toHaveLength(1); // a batch that never became durable is not counted
  });

  it('a failed flush refuses everything not yet answered, stops, and reports once', async () => {
    const { committer, writes } = manualCommitter();
    let fatal = 0;
    const s = sequencer(committer, { onFatal: () => (fatal += 1) });
    const published: number[] = [];
    s.onCommitted(({ entries }) => published.push(...entries.map((e) => e.seq)));
    const a = s.submit(credit(1));
    await turn();
    const b = s.submit(credit(2)); // queued behind the batch in flight
    writes[0]!.flush.reject(new Error('disk gone'));
    const results = await Promise.allSettled([a, b]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason).toMatchObject({ statusCode: 503 });
    await turn();
    await turn();
    expect(writes).toHaveLength(1);
    expect(published).toEqual([]);
    expect(fatal).toBe(1);
    expect(() => s.submit(credit(4))).toThrow(/stopped/);
    await s.idle(); // a stopped sequencer has nothing left to wait for
  });

  it('a write that throws refuses its batch and the queue', async () => {
    let fatal = 0;
    const s = sequencer(
      {
        append() {
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
  it('writes the next batch while a slow one is made durable, and still answers and publishes in order', async () => {
    const { committer, writes } = manualCommitter({ reportWritten: true });
    const s = sequencer(committer, { overlapAfterMs: 20 });
    const log: string[] = [];
    s.onCommitted(({ entries }) => log.push(`published ${entries.map((e) => e.seq).join(',')}`));
    const answered = (p: Promise<AppliedEntry>) => p.then((e) => log.push(`answered ${e.seq}`));

    const first = answered(s.submit(credit(1)));
    await turn();
    const second = answered(s.submit(credit(2)));
    await turn();
    expect(writes.map((w) => w.seqs)).toEqual([[1]]); // its sync has not been slow yet
    await sleep(40);
    expect(writes.map((w) => w.seqs)).toEqual([[1], [2]]);
    const third = answered(s.submit(credit(3)));
    await sleep(40);
    expect(writes).toHaveLength(2); // at most one batch overlaps the slow one

    writes[1]!.flush.resolve(); // the second is durable first: it waits for the first
    await turn();
    expect(log).toEqual([]);
    writes[0]!.flush.resolve();
    await Promise.all([first, second]);
    await turn();
    expect(log).toEqual(['answered 1', 'answered 2', 'published 1', 'published 2']);
    await turn();
    expect(writes.map((w) => w.seqs)).toEqual([[1], [2], [3]]);
    writes[2]!.flush.resolve();
    await third;
    await s.idle();
    expect(log.slice(4)).toEqual(['answered 3', 'published 3']);
  });

  it('does not write the next batch while one is still being written, however long it waits', async () => {
    const { committer, writes } = manualCommitter({ reportWritten: true, holdWrites: true });
    const s = sequencer(committer, { overlapAfterMs: 5 });
    const first = s.submit(credit(1));
    await turn();
    const second = s.submit(credit(2));
    await sleep(30);
    expect(writes.map((w) => w.seqs)).toEqual([[1]]);
    writes[0]!.written(); // the gate let it through
    await sleep(30);
    expect(writes.map((w) => w.seqs)).toEqual([[1], [2]]);
    writes[1]!.written();
    for (const w of writes) w.flush.resolve();
    expect((await first).seq).toBe(1);
    expect((await second).seq).toBe(2);
  });

  it('a batch durable within overlapAfterMs is followed by one batch of what queued meanwhile', async () => {
    const { committer, writes } = manualCommitter({ reportWritten: true });
    const s = sequencer(committer, { overlapAfterMs: 30 });
    const first = s.submit(credit(1));
    await turn();
    const rest = [s.submit(credit(2)), s.submit(credit(3))];
    writes[0]!.flush.resolve();
    await first;
    await turn();
    await sleep(50); // the overlap timer, if any, finds nothing to do
    expect(writes.map((w) => w.seqs)).toEqual([[1], [2, 3]]);
    writes[1]!.flush.resolve();
    await Promise.all(rest);
  });

  it('a failed sync refuses the batch overlapping it too', async () => {
    const { committer, writes } = manualCommitter({ reportWritten: true });
    let fatal = 0;
    const s = sequencer(committer, { overlapAfterMs: 5, onFatal: () => (fatal += 1) });
    const published: number[] = [];
    s.onCommitted(({ entries }) => published.push(...entries.map((e) => e.seq)));
    const a = s.submit(credit(1));
    await turn();
    const b = s.submit(credit(2));
    await sleep(30);
    expect(writes).toHaveLength(2);
    writes[1]!.flush.resolve();
    writes[0]!.flush.reject(new Error('disk gone'));
    const results = await Promise.allSettled([a, b]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await turn();
    expect(published).toEqual([]);
    expect(fatal).toBe(1);
  });
});
