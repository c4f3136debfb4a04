import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgres } from '../postgres/postgres-database.js';

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

/**
 * Creates `oddsbook_test_<random>` on the test server: empty, or (`template`, a database of
 * `createTemplateDatabase`) a copy of the migrated schema, which takes a fraction of migrating it.
 */
export async function createTestDatabase(options: { template?: string } = {}): Promise<TestDatabase> {
  const name = `oddsbook_test_${randomBytes(6).toString('hex')}`;
  // A commit returns once PostgreSQL has it in its WAL buffers rather than on disk. That trades only the
  // durability of a commit across a crash of PostgreSQL itself (or of the machine), which no test causes:
  // the crash tests kill the exchange's process, never the server, and a committed transaction is visible
  // to every session at once either way. What the exchange does (its journal acknowledges an order only
  // once its commit has returned) is what the tests check, and that is the same with this setting.
  await admin(
    options.template ? `CREATE DATABASE ${name} TEMPLATE ${options.template}` : `CREATE DATABASE ${name}`,
    `ALTER DATABASE ${name} SET synchronous_commit = off`,
  );
  const url = databaseUrl(name);
  return {
    name,
    url,
    async schema() {
      schemas += 1;
      const schema = `s${schemas}_${randomBytes(3).toString('hex')}`;
      const client = new pg.Client({ connectionString: url });
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

/**
 * Creates `oddsbook_template_<random>` holding the exchange's schema, migrated as an exchange migrates its
 * database at start (store/postgres/migrations.ts), to make test databases from: one per test run (vitest's
 * global setup), dropped at its end. It then takes no connections, since PostgreSQL copies a database only
 * while nobody is connected to it.
 */
export async function createTemplateDatabase(): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `oddsbook_template_${randomBytes(6).toString('hex')}`;
  const drop = () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  try {
    const database = await openPostgres({ url: databaseUrl(name), poolSize: 1 });
    await database.close();
    await admin(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
  } catch (error) {
    await drop();
    throw error;
  }
  return { name, drop };
}

function databaseUrl(name: string): string {
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs the statements in turn on one connection to the server's admin database. */
async function admin(...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    for (const sql of statements) await client.query(sql);
  } finally {
    await client.end();
  }
}
