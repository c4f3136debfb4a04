import { afterAll, describe, expect, it } from 'vitest';
import type { AppliedEntry } from '../../sequencer/inputs.js';
import { createTestDatabase, requirePostgres } from '../test-support/postgres-test-database.js';
import { openPostgres } from './postgres-database.js';
import { PostgresJournal } from './postgres-journal.js';

await requirePostgres();
const database = await createTestDatabase();
afterAll(() => database.drop());

const credit = (seq: number): AppliedEntry => ({
  seq,
  ts: seq,
  input: { kind: 'engine', command: { type: 'credit', account: '0xa', amount: 1n } },
  events: [],
});

describe('the PostgreSQL journal', () => {
  it('writes nothing after a batch that failed, so that it never has a hole', async () => {
    const db = await openPostgres({ url: await database.schema(), poolSize: 2 });
    try {
      const journal = await PostgresJournal.open(db.pool);
      await journal.append([credit(1)]);
      // Batches handed on before the first one is written: the second fails (seq 1 again), the third with it.
      const written: number[] = [];
      const appends = [[credit(2)], [credit(1), credit(3)], [credit(4)]].map((entries) =>
        journal.append(entries, () => written.push(entries[0]!.seq)),
      );
      const settled = await Promise.allSettled(appends);
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
      expect(written).toEqual([2]);
      expect(await journal.last()).toEqual({ seq: 2, ts: 2 });
    } finally {
      await db.close();
    }
  });
});
