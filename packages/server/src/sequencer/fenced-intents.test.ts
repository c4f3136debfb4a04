import { describe, expect, it } from 'vitest';
import { Engine } from '../engine/index.js';
import { Admission } from './admission.js';
import { applyEntry } from './apply-entry.js';
import { checkpointBytes, restoreCheckpoint } from './checkpoint.js';
import { decide } from './decide.js';
import type { AppliedEntry, SequencerInput } from './inputs.js';
import type { IntentResult } from './intents.js';

/** An engine and admission state driven by intents, as the sequencer applies them. */
class Harness {
  engine = new Engine({ ladderSize: 800 });
  admission = new Admission();
  seq = 0;
  readonly journal: AppliedEntry[] = [];

  fenced(
    epoch: number,
    inputs: readonly SequencerInput[],
    blocks?: { after: number; through: number },
  ): IntentResult {
    const state = { engine: this.engine, admission: this.admission, ts: 1_700_000_000_000 + this.seq };
    const intent = {
      kind: 'fenced' as const,
      lease: { role: 'chain' as const, epoch },
      inputs,
      ...(blocks ? { blocks } : {}),
    };
    return decide(intent, state, (input) => {
      const entry = applyEntry(state, input, ++this.seq, state.ts);
      this.journal.push(entry);
      return entry;
    });
  }
}

/** A chain node's receipts of a block (nothing in them that the engine applies). */
const receipts = (block: number): SequencerInput => ({
  kind: 'settlement',
  block,
  txs: [{ firstSeq: block, lastSeq: block, notLanded: [], landed: [] }],
});

describe('fenced intents (a chain node’s inputs under its lease epoch)', () => {
  it('journal a new epoch before its inputs, and refuse an older epoch’s once a newer one is journaled', () => {
    const h = new Harness();
    // The first epoch: its lease entry, then its receipts.
    expect(h.fenced(1, [receipts(1)]).entries.map((e) => e.input.kind)).toEqual(['lease', 'settlement']);
    expect(h.fenced(1, [receipts(2)]).entries.map((e) => e.input.kind)).toEqual(['settlement']);
    // A successor journals its epoch (an intent of no inputs)...
    const taken = h.fenced(2, []);
    expect(taken.entries.map((e) => e.input)).toEqual([{ kind: 'lease', role: 'chain', epoch: 2 }]);
    // ...and from there on, the former holder's receipts are refused whole: nothing journaled.
    const before = h.seq;
    expect(h.fenced(1, [receipts(3), receipts(4)])).toEqual({ entries: [], fenced: { epoch: 2 } });
    expect(h.seq).toBe(before);
    expect(h.fenced(2, [receipts(3)]).entries.map((e) => e.input.kind)).toEqual(['settlement']);
    expect(h.admission.lease('chain').epoch).toBe(2);
  });

  it('journal the receipts of chain blocks once: a retry or a read-back of blocks the journal holds journals nothing', () => {
    const h = new Harness();
    expect(h.fenced(1, [receipts(2)], { after: 0, through: 2 }).entries).toHaveLength(2);
    // The same receipts again (an answer lost, the intent sent again to a new sequencer leader).
    const before = h.seq;
    expect(h.fenced(1, [receipts(2)], { after: 0, through: 2 })).toEqual({
      entries: [],
      journaled: { through: 2 },
    });
    // Read back with the blocks mined since: none of it is journaled; the sender reads on from block 2.
    expect(h.fenced(1, [receipts(4)], { after: 1, through: 4 })).toEqual({
      entries: [],
      journaled: { through: 2 },
    });
    expect(h.seq).toBe(before);
    expect(h.fenced(1, [receipts(4)], { after: 2, through: 4 }).entries).toHaveLength(1);
    // A successor's epoch goes on from there.
    expect(h.fenced(2, [receipts(4)], { after: 3, through: 5 })).toMatchObject({ journaled: { through: 4 } });
    expect(h.admission.lease('chain')).toEqual({ epoch: 2, receiptsThrough: 4 });
  });

  it('keep the epoch in replays and checkpoints, so a new sequencer leader refuses what the old one would', () => {
    const h = new Harness();
    h.fenced(3, [receipts(1)], { after: 0, through: 1 });
    // A replica replaying the journal (a standby, a restart) holds the same epoch.
    const replayed = new Admission();
    for (const entry of h.journal) replayed.observe(entry.input, entry.ts);
    expect(replayed.lease('chain')).toEqual({ epoch: 3, receiptsThrough: 1 });
    expect(replayed.snapshotBytes()).toEqual(h.admission.snapshotBytes());
    // So does a checkpoint's.
    const restored = restoreCheckpoint(checkpointBytes(h.engine, h.admission), {});
    expect(restored!.admission.lease('chain')).toEqual({ epoch: 3, receiptsThrough: 1 });
    expect(restored!.admission.snapshotBytes()).toEqual(h.admission.snapshotBytes());
    const state = { engine: restored!.engine, admission: restored!.admission, ts: 1 };
    const result = decide(
      { kind: 'fenced', lease: { role: 'chain', epoch: 2 }, inputs: [receipts(2)] },
      state,
      () => {
        throw new Error('nothing is journaled');
      },
    );
    expect(result.fenced).toEqual({ epoch: 3 });
    // A state without a fenced role keeps the bytes it had (state hashes of older journals unchanged).
    expect(new Admission().snapshotBytes()).toEqual(
      Admission.restoreBytes(new Admission().snapshotBytes()).snapshotBytes(),
    );
    expect(new DataView(new Admission().snapshotBytes().buffer).getUint32(0, true)).toBe(0x3141_424f);
  });
});
