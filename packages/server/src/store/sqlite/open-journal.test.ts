import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from './open-database.js';
import { openJournalDatabase } from './open-journal.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the journal in its own file', () => {
  it('moves the journal and checkpoints of an older data dir out of the exchange database, once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'oddsbook-journal-'));
    dirs.push(dir);
    // As an older version left it: the journal inside oddsbook.sqlite.
    const main = openDatabase(dir);
    const insert = main.prepare('INSERT INTO journal (seq, ts, kind, payload) VALUES (?, ?, ?, ?)');
    for (let seq = 1; seq <= 3; seq++) insert.run(seq, 1_000 + seq, 'credit', `{"seq":${seq}}`);
    main
      .prepare('INSERT INTO engine_checkpoints (seq, digest, snapshot, created_at) VALUES (?, ?, ?, ?)')
      .run(2, 'ab', Buffer.from([1, 2, 3]), 5);

    const journal = openJournalDatabase(dir, main);
    expect(journal.prepare('SELECT seq, ts, kind, payload FROM journal ORDER BY seq').all()).toEqual([
      { seq: 1, ts: 1_001, kind: 'credit', payload: '{"seq":1}' },
      { seq: 2, ts: 1_002, kind: 'credit', payload: '{"seq":2}' },
      { seq: 3, ts: 1_003, kind: 'credit', payload: '{"seq":3}' },
    ]);
    expect(journal.prepare('SELECT seq, digest FROM engine_checkpoints').all()).toEqual([
      { seq: 2, digest: 'ab' },
    ]);
    const tables = () =>
      main
        .prepare("SELECT name FROM sqlite_master WHERE name IN ('journal', 'engine_checkpoints')")
        .pluck()
        .all();
    expect(tables()).toEqual([]);
    journal
      .prepare('INSERT INTO journal (seq, ts, kind, payload) VALUES (4, 1004, ?, ?)')
      .run('credit', '{}');
    journal.close();

    // A second start finds nothing to move and keeps what the journal has.
    const again = openJournalDatabase(dir, main);
    expect(again.prepare('SELECT count(*) FROM journal').pluck().get()).toBe(4);
    again.close();
    main.close();
  });
});
