import { describe, expect, it } from 'vitest';
import type { AppliedEntry } from '../sequencer/inputs.js';
import type { EntryChanges } from './batch-projection.js';
import { CoalescingProjector } from './coalescing-projector.js';
import type { ProjectionWriter } from './projection.js';

const entry = (seq: number) =>
  ({ seq, ts: seq, input: { kind: 'heartbeat' }, events: [] }) as unknown as AppliedEntry;
const entries = (...seqs: number[]) => seqs.map(entry);

/**
 * A projector whose projections complete when the test says so; each entry's changes carry its seq (as the
 * id of one refund), and entries at or below the cursor are skipped, as the Projector does.
 */
function heldProjector(cursor = 0) {
  const calls: { seqs: number[]; done: () => void; fail: (e: unknown) => void }[] = [];
  const projector: ProjectionWriter = {
    ordered: true,
    cursor: () => cursor,
    project(given) {
      const fresh = given.filter((e) => e.seq > cursor);
      return new Promise<EntryChanges[]>((resolve, reject) => {
        calls.push({
          seqs: given.map((e) => e.seq),
          done: () => {
            if (fresh.length > 0) cursor = fresh[fresh.length - 1]!.seq;
            resolve(
              fresh.map((e) => ({ orders: [], fills: [], trades: [], refunds: [{ seq: e.seq } as never] })),
            );
          },
          fail: reject,
        });
      });
    },
  };
  return { projector, calls };
}

const seqsOf = (changes: EntryChanges[]) =>
  changes.map((c) => (c.refunds[0] as unknown as { seq: number }).seq);
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('CoalescingProjector', () => {
  it('projects a batch at once when idle, and the batches that came meanwhile together, each answered with its own changes', async () => {
    const { projector, calls } = heldProjector();
    const coalescing = new CoalescingProjector(projector);
    const first = coalescing.project(entries(1, 2));
    expect(calls.map((c) => c.seqs)).toEqual([[1, 2]]);
    const second = coalescing.project(entries(3));
    const third = coalescing.project(entries(4, 5));
    await turn();
    expect(calls).toHaveLength(1);
    calls[0]!.done();
    expect(seqsOf(await first)).toEqual([1, 2]);
    await turn();
    expect(calls.map((c) => c.seqs)).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
    calls[1]!.done();
    expect(seqsOf(await second)).toEqual([3]);
    expect(seqsOf(await third)).toEqual([4, 5]);
    await coalescing.idle();
    expect(coalescing.cursor()).toBe(5);
  });

  it('gives a batch projected before (at or below the cursor) no changes, and the next its own', async () => {
    const { projector, calls } = heldProjector(3);
    const coalescing = new CoalescingProjector(projector);
    const held = coalescing.project(entries(3));
    const replayed = coalescing.project(entries(2, 3));
    const fresh = coalescing.project(entries(4));
    calls[0]!.done();
    expect(await held).toEqual([]);
    await turn();
    calls[1]!.done();
    expect(await replayed).toEqual([]);
    expect(seqsOf(await fresh)).toEqual([4]);
  });

  it('puts no more than its maximum of entries in one projection, unless one batch alone has more', async () => {
    const { projector, calls } = heldProjector();
    const coalescing = new CoalescingProjector(projector, 3);
    void coalescing.project(entries(1));
    void coalescing.project(entries(2, 3));
    void coalescing.project(entries(4));
    void coalescing.project(entries(5, 6, 7, 8));
    calls[0]!.done();
    await turn();
    calls[1]!.done();
    await turn();
    calls[2]!.done();
    await coalescing.idle();
    expect(calls.map((c) => c.seqs)).toEqual([[1], [2, 3, 4], [5, 6, 7, 8]]);
  });

  it('fails the batches of a failed projection, those waiting and every later one', async () => {
    const { projector, calls } = heldProjector();
    const coalescing = new CoalescingProjector(projector);
    const first = coalescing.project(entries(1));
    const waiting = coalescing.project(entries(2));
    const broken = new Error('the database went away');
    calls[0]!.fail(broken);
    await expect(first).rejects.toBe(broken);
    await expect(waiting).rejects.toBe(broken);
    await expect(coalescing.project(entries(3))).rejects.toBe(broken);
    await coalescing.idle();
    expect(calls).toHaveLength(1);
  });
});
