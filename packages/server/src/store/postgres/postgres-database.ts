import pg from 'pg';
import { migrate } from './migrations.js';

const INT8 = 20;

/**
 * BIGINT columns (seqs, unix ms, stamps) come back as numbers, as SQLite gives them; a value a number cannot
 * hold exactly is refused rather than rounded. NUMERIC (money) keeps pg's default: a decimal string.
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 && format !== 'binary') return parseInt8;
    return pg.types.getTypeParser(oid, format);
  },
};

function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`BIGINT ${text} is beyond a safe integer`);
  return value;
}

/** The exchange's PostgreSQL database: a pool for reads and short writes, and connections of their own. */
export type PostgresDatabase = {
  readonly pool: pg.Pool;
  /**
   * A connection of its own, for a single writer that keeps its statements in order (`pipeline`: sent
   * without waiting for each answer, one round trip for a batch's statements).
   */
  connect(options?: { pipeline?: boolean }): Promise<pg.Client>;
  close(): Promise<void>;
};

export type PostgresOptions = {
  /** postgres://user@host:port/database (`DATABASE_URL`). */
  url: string;
  /** Connections of the pool (default 10). */
  poolSize?: number;
};

/** Connects to the database at `url` and brings its schema up to date (migrations.ts). */
export async function openPostgres(options: PostgresOptions): Promise<PostgresDatabase> {
  const config = { connectionString: options.url, types, connectionTimeoutMillis: 10_000 };
  const pool = new pg.Pool({ ...config, max: options.poolSize ?? 10 });
  // An idle connection that fails (the server restarted) is dropped by the pool; the next query reconnects.
  pool.on('error', () => {});
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return {
    pool,
    async connect(connectOptions = {}) {
      const client = new pg.Client({ ...config, pipeline: connectOptions.pipeline ?? false });
      client.on('error', () => {});
      await client.connect();
      return client;
    },
    async close() {
      await pool.end();
    },
  };
}
