import { describe, expect, it } from 'vitest';
import { Engine } from '../engine/index.js';
import type { AppliedEntry } from '../sequencer/inputs.js';
import { Sequencer } from '../sequencer/sequencer.js';
import type { EntryChanges } from '../store/batch-projection.js';
import type { ProjectionWriter } from '../store/projection.js';
import { TradingPipeline } from './pipeline.js';

const credit = (n: number) =>
  ({
    kind: 'engine',
    command: { type: 'credit', account: `0x${n.toString(16).padStart(40, '0')}`, amount: 1n },
  }) as const;

/** A projector on "another thread": each batch's projection completes when the test says so. */
function manualProjector(ordered: boolean) {
  const calls: { seqs: number[]; done: (changes?: EntryChanges[]) => void; fail: (e: unknown) => void }[] =
    [];
  let cursor = 0;
  const projector: ProjectionWriter = {
    ordered,
    cursor: () => cursor,
    project(entries: readonly AppliedEntry[]) {
      return new Promise<EntryChanges[]>((resolve, reject) => {
        calls.push({
          seqs: entries.map((e) => e.seq),
          done: (changes) => {
            cursor = entries[entries.length - 1]!.seq;
            resolve(changes ?? entries.map(() => ({ orders: [], fills: [], trades: [], refunds: [] })));
          },
          fail: reject,
        });
      });
    },
  };
  return { projector, calls };
}

function setUp(ordered: boolean, readWaitMs = 5_000) {
  const sequencer = new Sequencer({
    engine: new Engine(),
    journal: { append: async () => {} },
    clock: { now: () => 1 },
    lastSeq: 0,
    lastTs: 0,
  });
  const { projector, calls } = manualProjector(ordered);
  const fatal: unknown[] = [];
  const pipeline = new TradingPipeline({ sequencer, projector, onFatal: (e) => fatal.push(e), readWaitMs });
  const delivered: number[] = [];
  const submitted: number[] = [];
  pipeline.setPublisher(({ batch }) => delivered.push(batch.lastSeq));
  pipeline.setChain({ submitForBatch: (batch) => submitted.push(batch.lastSeq) });
  return { sequencer, pipeline, calls, delivered, submitted, fatal };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('TradingPipeline', () => {
  it('hands batches on at once to an ordered projector and delivers them in seq order', async () => {
    const { sequencer, pipeline, calls, delivered, submitted } = setUp(true);
    await sequencer.submit(credit(1));
    await turn();
    await sequencer.submit(credit(2));
    await turn();
    expect(calls.map((c) => c.seqs)).toEqual([[1], [2]]);
    calls[1]!.done();
    await turn();
    // The second is projected first: it waits for the first.
    expect(delivered).toEqual([]);
    calls[0]!.done();
    await turn();
    expect(delivered).toEqual([1, 2]);
    expect(submitted).toEqual([1, 2]);
    await pipeline.idle();
    expect(pipeline.projectedSeq).toBe(2);
  });

  it("tells its observers each projected batch's changed rows, in seq order", async () => {
    const { sequencer, pipeline, calls } = setUp(true);
    const observed: { rows: number; seconds: number }[] = [];
    pipeline.observeProjections((rows, seconds) => observed.push({ rows, seconds }));
    await sequencer.submit(credit(1));
    await turn();
    await sequencer.submit(credit(2));
    await turn();
    const row = {} as never;
    calls[1]!.done([{ orders: [row], fills: [], trades: [], refunds: [] }]);
    calls[0]!.done([{ orders: [row, row], fills: [row], trades: [row], refunds: [row] }]);
    await pipeline.idle();
    expect(observed.map((o) => o.rows)).toEqual([5, 1]);
    expect(observed.every((o) => o.seconds >= 0)).toBe(true);
  });

  it('holds the next batch back from a projector that is not ordered until the last is written', async () => {
    const { sequencer, calls, delivered } = setUp(false);
    await sequencer.submit(credit(1));
    await turn();
    await sequencer.submit(credit(2));
    await turn();
    expect(calls.map((c) => c.seqs)).toEqual([[1]]);
    calls[0]!.done();
    await turn();
    expect(calls.map((c) => c.seqs)).toEqual([[1], [2]]);
    calls[1]!.done();
    await turn();
    expect(delivered).toEqual([1, 2]);
  });

  it('lets a read through once what was answered before it is projected (read-your-writes)', async () => {
    const { sequencer, pipeline, calls } = setUp(true);
    expect(pipeline.caughtUp()).toBeNull();
    await sequencer.submit(credit(1));
    const waiting = pipeline.caughtUp();
    expect(waiting).toBeInstanceOf(Promise);
    let through = false;
    void waiting!.then(() => {
      through = true;
    });
    await turn();
    expect(through).toBe(false);
    calls[0]!.done();
    await turn();
    await turn();
    expect(through).toBe(true);
    expect(pipeline.caughtUp()).toBeNull();
  });

  it('answers a read 503 when the projector does not catch up in time, and stops on a failed projection', async () => {
    const { sequencer, pipeline, calls, fatal } = setUp(true, 20);
    await sequencer.submit(credit(1));
    await expect(pipeline.caughtUp()).rejects.toMatchObject({ statusCode: 503 });
    calls[0]!.fail(new Error('disk full'));
    await turn();
    expect(fatal).toHaveLength(1);
    await expect(pipeline.caughtUp()).rejects.toMatchObject({ statusCode: 503 });
  });
});
