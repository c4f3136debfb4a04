/**
 * Which store a bench runs the exchange on (issue 36): SQLite in the data dir (the default store), or
 * PostgreSQL at `DATABASE_URL`, a fresh database per run on the server of BENCH_POSTGRES_URL (default the
 * local one, as the tests use: postgres://postgres@127.0.0.1:5432/postgres), dropped after the run.
 *
 * The choice: `--store sqlite|postgres|both` on the bench's command line (`npm run bench:orders -- --store
 * postgres`), or BENCH_STORE; each bench has its own default.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

export type StoreKind = 'sqlite' | 'postgres';

const CHOICES: Record<string, StoreKind[]> = {
  sqlite: ['sqlite'],
  postgres: ['postgres'],
  both: ['sqlite', 'postgres'],
};

/** The stores to run on, in order: `--store <choice>` (or `--store=<choice>`), else BENCH_STORE, else `fallback`. */
export function storesToRun(fallback: keyof typeof CHOICES): StoreKind[] {
  const args = process.argv.slice(2);
  const at = args.findIndex((a) => a === '--store' || a.startsWith('--store='));
  const given =
    at < 0 ? process.env.BENCH_STORE : args[at]!.includes('=') ? args[at]!.split('=')[1] : args[at + 1];
  const choice = given ?? fallback;
  const stores = CHOICES[choice];
  if (!stores) throw new Error(`--store must be sqlite, postgres or both, got ${choice}`);
  return stores;
}

/** The server the bench databases are made on, as a role that may CREATE DATABASE. */
export const BENCH_POSTGRES_URL =
  process.env.BENCH_POSTGRES_URL ??
  process.env.TEST_POSTGRES_URL ??
  'postgres://postgres@127.0.0.1:5432/postgres';

// BIGINT columns as numbers (seqs, counts), as the exchange reads them.
pg.types.setTypeParser(20, (text) => Number(text));

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A PostgreSQL database of the bench's own. */
export type BenchDatabase = { name: string; url: string; drop(): Promise<void> };

const toDrop = new Set<string>();

/**
 * Creates `oddsbook_bench_<random>`, or opens `existing` (one a kept run made); dropped by `drop`, or, unless
 * `keep`, by `dropLeftDatabases` when the bench ends without having dropped it.
 */
export async function benchDatabase(
  options: { existing?: string; keep?: boolean } = {},
): Promise<BenchDatabase> {
  const database = options.existing ?? `oddsbook_bench_${randomBytes(5).toString('hex')}`;
  if (!options.existing) await admin(`CREATE DATABASE ${database}`);
  if (!options.keep) toDrop.add(database);
  const url = new URL(BENCH_POSTGRES_URL);
  url.pathname = `/${database}`;
  return {
    name: database,
    url: url.toString(),
    async drop() {
      toDrop.delete(database);
      await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    },
  };
}

/** Drops the databases the bench made and did not drop (it failed first); called as it ends. */
export async function dropLeftDatabases(): Promise<void> {
  for (const name of [...toDrop]) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  toDrop.clear();
}

/** The exchange's environment for the store: DATABASE_URL for PostgreSQL, nothing for SQLite. */
export const storeEnv = (database: BenchDatabase | null): Record<string, string> =>
  database ? { DATABASE_URL: database.url } : {};

/**
 * Read-only queries on the exchange's projections, wherever they are: the data dir's SQLite file or the
 * bench's PostgreSQL database. The embedded chain is always in the data dir (`chain()`). SQL in the dialect
 * both share (the `?` of SQLite is written `$1`).
 */
export type StoreReader = {
  /** The first column of the first row. */
  value(sql: string, params?: unknown[]): Promise<number>;
  rows(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** The first column of the first row, from the data dir's SQLite database (the embedded chain). */
  chain(sql: string): number;
  close(): Promise<void>;
};

export function storeReader(dataDir: string, database: BenchDatabase | null): StoreReader {
  const sqlite = new Database(join(dataDir, 'oddsbook.sqlite'), { readonly: true, fileMustExist: true });
  const statements = new Map<string, Database.Statement>();
  const prepared = (sql: string) => {
    let s = statements.get(sql);
    if (!s) {
      s = sqlite.prepare(sql.replace(/\$\d+/g, '?'));
      statements.set(sql, s);
    }
    return s;
  };
  const pool = database ? new pg.Pool({ connectionString: database.url, max: 2 }) : null;
  pool?.on('error', () => {});
  return {
    async value(sql, params = []) {
      if (!pool)
        return Number(
          prepared(sql)
            .pluck()
            .get(...params),
        );
      const { rows } = await pool.query({ text: sql, values: params, rowMode: 'array' });
      return Number(rows[0]?.[0]);
    },
    async rows(sql, params = []) {
      if (!pool) return prepared(sql).all(...params) as Record<string, unknown>[];
      return (await pool.query(sql, params)).rows;
    },
    chain: (sql) => Number(prepared(sql).pluck().get()),
    async close() {
      sqlite.close();
      await pool?.end();
    },
  };
}

function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds of PostgreSQL's processes, read from /proc (the server on this machine). */
export type PostgresCpu = {
  /** The backends connected to the bench's database: the exchange's pool and its projector's connection. */
  backends: number;
  /**
   * The server's own processes (WAL writer, checkpointer, background writer, ...): they serve every database
   * of the server, the other sessions' test databases too.
   */
  shared: number;
};

/** Per process, its CPU seconds so far. */
export type PostgresCpuReading = Map<number, PostgresCpu>;

export type PostgresCpuMeter = {
  read(): Promise<PostgresCpuReading>;
  /** CPU seconds spent since the reading `before`. */
  since(before: PostgresCpuReading): Promise<PostgresCpu>;
  close(): Promise<void>;
};

/**
 * A reader of the CPU the server spends for the bench's database. A backend that exits between two readings
 * takes its CPU with it; the exchange keeps its connections while it runs.
 */
export function postgresCpu(database: BenchDatabase): PostgresCpuMeter {
  const pool = new pg.Pool({ connectionString: BENCH_POSTGRES_URL, max: 1 });
  pool.on('error', () => {});
  const read = async () => {
    const { rows } = await pool.query<{ pid: number; datname: string | null; backend_type: string }>(
      `SELECT pid, datname, backend_type FROM pg_stat_activity WHERE pid <> pg_backend_pid()
        AND (datname = $1 OR backend_type <> 'client backend')`,
      [database.name],
    );
    const out = new Map<number, PostgresCpu>();
    for (const row of rows) {
      const cpu = cpuSecondsOf(row.pid);
      if (Number.isNaN(cpu)) continue;
      const shared = row.backend_type !== 'client backend';
      out.set(row.pid, { backends: shared ? 0 : cpu, shared: shared ? cpu : 0 });
    }
    return out;
  };
  return {
    read,
    async since(before) {
      const after = await read();
      const total = { backends: 0, shared: 0 };
      for (const [pid, now] of after) {
        const then = before.get(pid) ?? { backends: 0, shared: 0 };
        total.backends += now.backends - then.backends;
        total.shared += now.shared - then.shared;
      }
      return total;
    },
    close: () => pool.end(),
  };
}
