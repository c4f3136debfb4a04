import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../engine/index.js';
import { Harness } from '../engine/test-support/harness.js';
import { openDatabase } from '../store/sqlite/open-database.js';
import { openJournalDatabase } from '../store/sqlite/open-journal.js';
import { SqliteJournal } from '../store/sqlite/sqlite-journal.js';
import { exchangeEngineOptions, recoverEngine } from './recovery.js';

const USDC = 1_000_000n;

/** A backs outcome one for 100 at 50 % against B, then outcome two for 100 at 50 % against C. */
function hedge(h: Harness) {
  h.apply({ type: 'openMarket', marketHash: 'M', eventId: 'E' });
  for (const a of ['A', 'B', 'C']) h.apply({ type: 'credit', account: a, amount: 1_000n * USDC });
  h.place({ id: 'b1', account: 'B', one: false, tick: 400, size: 100n * USDC });
  h.place({ id: 'a1', account: 'A', tick: 400, size: 100n * USDC, tif: 'IOC' });
  h.place({ id: 'c1', account: 'C', tick: 400, size: 100n * USDC });
  return h.place({ id: 'a2', account: 'A', one: false, tick: 400, size: 100n * USDC, tif: 'IOC' });
}
const refunds = (events: ReturnType<typeof hedge>) => events.filter((e) => e.type === 'ceRefund');

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function journalIn(dir = mkdtempSync(join(tmpdir(), 'oddsbook-recovery-'))) {
  dirs.push(dir);
  const main = openDatabase(dir);
  const db = openJournalDatabase(dir, main);
  const close = () => {
    db.close();
    main.close();
  };
  return { dir, journal: new SqliteJournal(db), close };
}

describe('the engine the exchange runs', () => {
  it('has capital efficiency from the first seq of a journal begun with it', async () => {
    const { journal, close } = journalIn();
    expect(journal.features).toEqual({ capitalEfficiency: 1, honestLiquidity: 1, chainSettlement: 1 });
    const started = new Harness((await recoverEngine(journal, 800)).engine);
    expect(refunds(hedge(started))).toHaveLength(1);
    expect(started.engine.balance('A').escrowed).toBe(0n);
    close();
  });

  it('replays the commands of a journal begun before it as they were applied, then refunds', () => {
    // A journal of 7 commands written without capital efficiency: the feature starts at seq 8.
    const older = journalIn();
    const db = (older.journal as unknown as { db: import('better-sqlite3').Database }).db;
    db.exec('DROP TABLE IF EXISTS journal_features');
    const insert = db.prepare('INSERT INTO journal (seq, ts, kind, payload) VALUES (?, ?, ?, ?)');
    for (let seq = 1; seq <= 7; seq++) insert.run(seq, seq, 'credit', '{}');
    older.close();
    const opened = journalIn(older.dir);
    expect(opened.journal.features.capitalEfficiency).toBe(8);
    // The entries after it do not move it.
    (opened.journal as unknown as { db: import('better-sqlite3').Database }).db
      .prepare('INSERT INTO journal (seq, ts, kind, payload) VALUES (?, ?, ?, ?)')
      .run(8, 8, 'credit', '{}');
    opened.close();
    // Recorded: a later start (more entries since) keeps it.
    const again = journalIn(older.dir);
    expect(again.journal.features.capitalEfficiency).toBe(8);
    again.close();

    // The hedge is seqs 1-8: its last command (seq 8) runs with capital efficiency, the rest as before.
    const engine = new Harness(800, { capitalEfficiencyFromSeq: 8 });
    const events = hedge(engine);
    expect(refunds(events)).toEqual([
      expect.objectContaining({ account: 'A', amount: 200n * USDC, refundedTotal: 200n * USDC }),
    ]);
    const before = new Harness(800, { capitalEfficiencyFromSeq: 9 });
    expect(refunds(hedge(before))).toHaveLength(0);
    expect(before.engine.balance('A').escrowed).toBe(200n * USDC);
    // An engine restored from before the seq switches on at its first command at or after it.
    const restored = new Harness(
      Engine.restoreBytes(before.engine.snapshotBytes(), { capitalEfficiencyFromSeq: 9 }),
    );
    restored.seq = 8;
    restored.place({ id: 'c2', account: 'C', one: false, tick: 400, size: 10n * USDC });
    const more = restored.place({ id: 'b2', account: 'B', tick: 400, size: 10n * USDC, tif: 'IOC' });
    // B (on outcome two since b1) and C (on outcome one since c1) each hedge 10 at 50 %: 20 is certain.
    expect(refunds(more)).toEqual([
      expect.objectContaining({ account: 'C', amount: 20n * USDC, maker: true }),
      expect.objectContaining({ account: 'B', amount: 20n * USDC, maker: false }),
    ]);
  });

  it('follows the journal it is built for', () => {
    expect(
      exchangeEngineOptions({
        features: { capitalEfficiency: 42, honestLiquidity: 50, chainSettlement: 60 },
      }),
    ).toEqual({
      capitalEfficiency: true,
      capitalEfficiencyFromSeq: 42,
      honestLiquidity: true,
      honestLiquidityFromSeq: 50,
    });
  });
});
