import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The PostgreSQL server the tests make their databases on, as a role that may CREATE DATABASE
 * (`TEST_POSTGRES_URL`; by default the local server with trust auth).
 */
export const TEST_POSTGRES_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Null when the server answers; else why not. */
async function unreachable(): Promise<string | null> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Whether the PostgreSQL tests run: they do when the server answers; when it does not, they are skipped
 * with the reason printed, except under CI (the CI variable set), where that is an error.
 */
export async function requirePostgres(): Promise<void> {
  const reason = await unreachable();
  if (reason === null) return;
  throw new Error(
    `PostgreSQL at ${TEST_POSTGRES_URL} is unreachable (${reason}): the tests need it (.ci/run starts it; ` +
      'TEST_POSTGRES_URL names another server)',
  );
}

let schemas = 0;

/** A database of its own (one per test file), dropped by `drop`; `schema()` gives a fresh, empty schema in it. */
export type TestDatabase = {
  readonly name: string;
  readonly url: string;
  /** The URL of a new, empty schema of the database (its connections' search_path): one per test. */
  schema(): Promise<string>;
  drop(): Promise<void>;
};

/** Creates `oddsbook_test_<random>` on the test server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `oddsbook_test_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async schema() {
      schemas += 1;
      const schema = `s${schemas}_${randomBytes(3).toString('hex')}`;
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        await client.query(`CREATE SCHEMA ${schema}`);
      } finally {
        await client.end();
      }
      const schemaUrl = new URL(url);
      schemaUrl.searchParams.set('options', `-c search_path=${schema}`);
      return schemaUrl.toString();
    },
    async drop() {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
