import { join } from 'node:path';
import { ladderSize } from '@oddsbook/protocol';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { Config } from '../../src/config/config.js';
import { openReplayStorage } from '../../src/exchange/exchange-storage.js';
import { compareWithJournal } from '../../src/sequencer/recovery.js';
import { DATABASE_FILE } from '../../src/store/sqlite/open-database.js';

// What a test does to an exchange's store behind its back, on whichever store it runs (test-store.ts).

/**
 * Makes the exchange's store refuse to write a browser session ('disk full'), whichever store it is on;
 * the returned function lifts it.
 */
export async function refuseWebSessions(exchange: {
  storeKind: 'sqlite' | 'postgres';
  db: { exec(sql: string): unknown } | null;
  config: { databaseUrl: string };
}): Promise<() => Promise<void>> {
  const db = exchange.db;
  if (db) {
    db.exec(
      `CREATE TEMP TRIGGER refuse BEFORE INSERT ON web_sessions BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
    );
    return async () => {
      db.exec('DROP TRIGGER refuse');
    };
  }
  const sql = async (text: string) => {
    const client = new pg.Client({ connectionString: exchange.config.databaseUrl });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await sql(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$;
    CREATE TRIGGER refuse BEFORE INSERT ON web_sessions FOR EACH ROW EXECUTE FUNCTION refuse();`);
  return () => sql('DROP TRIGGER refuse ON web_sessions; DROP FUNCTION refuse();');
}

export type StoreSql = {
  /** One statement with `$1`… parameters, on whichever database the exchange's store is. */
  query(text: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
};

/** A connection to the store's database of an exchange on `dataDir` (stopped, or not writing meanwhile). */
export async function storeSql(t: { dataDir: string; config: { databaseUrl: string } }): Promise<StoreSql> {
  if (!t.config.databaseUrl) {
    const db = new BetterSqlite3(join(t.dataDir, DATABASE_FILE));
    return {
      async query(text, params = []) {
        const statement = db.prepare(text.replace(/\$\d+/g, '?'));
        if (!statement.reader) {
          statement.run(...params);
          return [];
        }
        return statement.all(...params) as Record<string, unknown>[];
      },
      async close() {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: t.config.databaseUrl });
  await client.connect();
  return {
    async query(text, params = []) {
      return (await client.query(text, [...params])).rows;
    },
    close: () => client.end(),
  };
}

/**
 * Rebuilds the engine from the journal and from the projections of the exchange's store, as `oddsbook replay`
 * does.
 */
export async function replayStore(t: { dataDir: string; config: Config }) {
  const storage = await openReplayStorage(t.config);
  try {
    const cursor = await storage.projections.cursor();
    return {
      ...(await compareWithJournal(storage.journal, storage.projections, cursor, ladderSize())),
      /** The engine as the projections mirror it. */
      snapshot: await storage.projections.engineSnapshot(ladderSize(), cursor),
    };
  } finally {
    await storage.close();
  }
}
