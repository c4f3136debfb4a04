import { afterAll, inject } from 'vitest';
import {
  createTestDatabase,
  type TestDatabase,
} from '../../src/store/test-support/postgres-test-database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** On a run on PostgreSQL, the migrated database every test database is a copy of (postgres-template.ts). */
    postgresTemplate: string | undefined;
  }
}

/**
 * `ODDSBOOK_TEST_STORE=postgres`: every exchange the integration tests start (in this process or as an
 * `oddsbook` process) keeps its store on PostgreSQL, in a database of its own per data dir
 * (`oddsbook_test_<random>`, dropped after the test file; a copy of the run's migrated template,
 * postgres-template.ts); by default, SQLite in the data dir.
 */
export const TEST_STORE = process.env.ODDSBOOK_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

const databases: TestDatabase[] = [];
/** The database of each data dir: an exchange started again on a data dir finds its store there. */
const databaseOfDataDir = new Map<string, Promise<string>>();
if (TEST_STORE === 'postgres') {
  afterAll(async () => {
    databaseOfDataDir.clear();
    for (const database of databases.splice(0)) await database.drop();
  });
}

/** The DATABASE_URL an exchange on `dataDir` runs with: none on SQLite. */
export function databaseUrlOf(dataDir: string): Promise<string | undefined> {
  if (TEST_STORE === 'sqlite') return Promise.resolve(undefined);
  let url = databaseOfDataDir.get(dataDir);
  if (!url) {
    url = createTestDatabase({ template: inject('postgresTemplate') }).then((database) => {
      databases.push(database);
      return database.url;
    });
    databaseOfDataDir.set(dataDir, url);
  }
  return url;
}

/** `env` with the DATABASE_URL of its DATA_DIR added, when the tests run on PostgreSQL and it has none. */
export async function withTestStore(env: Record<string, string>): Promise<Record<string, string>> {
  if (TEST_STORE === 'sqlite' || env.DATABASE_URL !== undefined || env.DATA_DIR === undefined) return env;
  const url = await databaseUrlOf(env.DATA_DIR);
  return url ? { ...env, DATABASE_URL: url } : env;
}
