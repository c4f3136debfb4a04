import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempSqlite } from '../chain/test-support.js';
import { unsyncedWriteTransaction } from './write-transaction.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function walDatabase(synchronous: 'FULL' | 'NORMAL') {
  const file = tempSqlite();
  const db = file.open();
  cleanups.push(() => {
    db.close();
    file.cleanup();
  });
  db.pragma(`synchronous = ${synchronous}`);
  db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
  return db;
}

const synchronousOf = (db: BetterSqlite3.Database) => Number(db.pragma('synchronous', { simple: true }));

describe('unsyncedWriteTransaction', () => {
  it('commits with synchronous NORMAL and gives the connection back FULL, also when the write throws', () => {
    const db = walDatabase('FULL');
    const seen: number[] = [];
    const write = unsyncedWriteTransaction(db, (v: number) => {
      seen.push(synchronousOf(db));
      db.prepare('INSERT INTO t (v) VALUES (?)').run(v);
      if (v < 0) throw new Error('refused');
      return v * 2;
    });
    expect(write(21)).toBe(42);
    expect(() => write(-1)).toThrow('refused');
    expect(seen).toEqual([1, 1]);
    expect(synchronousOf(db)).toBe(2);
    // The failed write rolled back; the other committed.
    expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual([21]);
  });

  it('leaves a connection that does not sync its commits as it is', () => {
    const db = walDatabase('NORMAL');
    const write = unsyncedWriteTransaction(db, () => synchronousOf(db));
    expect(write()).toBe(1);
    const memory = new BetterSqlite3(':memory:');
    cleanups.push(() => memory.close());
    memory.pragma('synchronous = FULL');
    expect(unsyncedWriteTransaction(memory, () => synchronousOf(memory))()).toBe(2);
  });
});
