import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../engine/index.js';
import { restoreCheckpoint } from '../sequencer/checkpoint.js';
import type { SequencerInput } from '../sequencer/inputs.js';
import { Sequencer } from '../sequencer/sequencer.js';
import { stateHashOf } from '../sequencer/state-hash.js';
import { openDatabase } from '../store/sqlite/open-database.js';
import { SqliteJournal } from '../store/sqlite/sqlite-journal.js';
import { Checkpointer } from './checkpointer.js';
import { TradingPipeline } from './pipeline.js';
import { ProjectedAtOnce } from './trading.js';

const credit = (amount: bigint): SequencerInput => ({
  kind: 'engine',
  command: { type: 'credit', account: '0xA1', amount },
});

/** A real sequencer on a real SQLite journal, its pipeline (projections elsewhere) and a checkpointer. */
function rig(dir: string) {
  const db = openDatabase(dir);
  const journal = new SqliteJournal(db);
  const sequencer = new Sequencer({
    engine: new Engine(),
    journal,
    clock: { now: () => 1 },
    lastSeq: 0,
    lastTs: 0,
  });
  const pipeline = new TradingPipeline({ sequencer, projector: new ProjectedAtOnce(), onFatal: () => {} });
  const errors: string[] = [];
  const checkpointer = new Checkpointer({
    sequencer,
    pipeline,
    journal,
    chain: null,
    clock: { now: () => 1 },
    restoredSeq: 0,
    intervalMs: 60_000,
    log: { info() {}, error: (_o, msg) => errors.push(msg) },
  });
  return { db, journal, sequencer, pipeline, checkpointer, errors };
}

describe('checkpointer', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const newDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'oddsbook-checkpointer-'));
    dirs.push(dir);
    return dir;
  };

  it('takes the snapshot at once, in the middle of a commit, and stores it once that commit is answered and passed on', async () => {
    const { journal, sequencer, checkpointer, db } = rig(newDir());
    const order: string[] = [];
    const first = sequencer.submit(credit(5n)).then(() => order.push('answered'));
    // The batch is taken and applied in this turn's check phase; its sync is still to come.
    await new Promise((resolve) => setImmediate(resolve));
    expect(sequencer.lastSeq).toBe(1);
    const taken = checkpointer.take().then((t) => {
      order.push('stored');
      return t;
    });
    // Inputs after the snapshot are not in it.
    const second = sequencer.submit(credit(7n));
    expect((await taken)?.seq).toBe(1);
    await Promise.all([first, second]);
    expect(order).toEqual(['answered', 'stored']);
    const stored = (await journal.latestCheckpoint())!;
    expect(stored.seq).toBe(1);
    const restored = restoreCheckpoint(stored.snapshot, {})!;
    expect(restored.engine.balance('0xA1').available).toBe(5n);
    expect(sequencer.engine.balance('0xA1').available).toBe(12n);
    // Nothing new: nothing stored again; then the next.
    expect(await checkpointer.take()).toMatchObject({ seq: 2 });
    expect(await checkpointer.take()).toBeNull();
    expect(stateHashOf(restoreCheckpoint((await journal.latestCheckpoint())!.snapshot, {})!.engine)).toBe(
      stateHashOf(sequencer.engine),
    );
    db.close();
  });

  it('stores nothing of a commit that failed: a checkpoint waiting for it is given up at the stop, and the stop stores none', async () => {
    const { journal, sequencer, pipeline, checkpointer, errors, db } = rig(newDir());
    await sequencer.submit(credit(5n));
    await checkpointer.take();
    // The disk refuses the next commit: the engine holds an input the journal never will.
    db.exec(
      `CREATE TEMP TRIGGER refuse BEFORE INSERT ON journal BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
    );
    const refused = sequencer.submit(credit(7n)).then(
      () => null,
      (error: unknown) => error,
    );
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = checkpointer.take();
    expect(await refused).toMatchObject({ statusCode: 503 });
    expect(sequencer.lastSeq).toBe(2);
    await sequencer.close();
    await pipeline.idle();
    await checkpointer.stop();
    await expect(waiting).rejects.toThrow(/never committed/);
    expect((await journal.latestCheckpoint())?.seq).toBe(1);
    expect(errors).toEqual(['no checkpoint at this stop: the state holds inputs that were never committed']);
    db.close();
  });
});
