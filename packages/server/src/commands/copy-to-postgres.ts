import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type pg from 'pg';
import { type Config, ConfigError, loadConfig, shownDatabaseUrl } from '../config/config.js';
import { connect as connectPostgres } from '../exchange/exchange-storage.js';
import { type ReplayCheck, replayCheckPassed, runReplayCheck } from '../exchange/replay-check.js';
import type { PostgresDatabase } from '../store/postgres/postgres-database.js';
import { DataDirInUse, lockDataDir } from '../store/sqlite/data-dir-lock.js';
import { DATABASE_FILE, openDatabase } from '../store/sqlite/open-database.js';
import { JOURNAL_FILE, openJournalDatabase } from '../store/sqlite/open-journal.js';
import { compareTables } from '../store/sqlite-to-postgres/compare-tables.js';
import { copyTables, TargetNotEmpty } from '../store/sqlite-to-postgres/copy-tables.js';
import { planCopy, SchemasDiffer, type TablePlan } from '../store/sqlite-to-postgres/table-plan.js';
import { printReplayCheck } from './replay.js';

export const COPY_TO_POSTGRES_USAGE = `Usage: oddsbook copy-to-postgres --database-url <postgres://user@host:port/database> [--data-dir <dir>]
                                 [--verify-only]

Copies the data dir's SQLite databases (oddsbook.sqlite and journal.sqlite) into an empty PostgreSQL
database, in one transaction, then verifies the copy: every table's rows and contents on both sides, and
the replay of both journals (the state hashes from the journal and from the projections, equal on both
sides, and the reconciliation with the chain). The exchange must be stopped (the command holds the data
dir's lock); the data dir is left as it was, so that starting without DATABASE_URL goes back to it.
--verify-only verifies an earlier copy again and copies nothing. Exit code 0 when verified; 1 when the
data dir is in use, does not replay identically or the copy differs; 2 for a database that cannot be
reached or already holds an exchange's rows. Other options (--network, ...) as for serve.`;

const VERIFY_ONLY = '--verify-only';

/** `oddsbook copy-to-postgres`: the data dir copied into DATABASE_URL and verified by replay. */
export async function copyToPostgresCommand(argv: readonly string[]): Promise<number> {
  const verifyOnly = argv.includes(VERIFY_ONLY);
  const config = loadConfig(argv.filter((arg) => arg !== VERIFY_ONLY));
  const names = config.settingNames;
  if (!config.databaseUrl)
    throw new ConfigError(
      `copy-to-postgres needs DATABASE_URL (--database-url postgres://user@host:port/database): the empty database to copy ${config.dataDir} into`,
    );
  if (!existsSync(join(config.dataDir, DATABASE_FILE)))
    throw new ConfigError(`${names.dataDir} ${config.dataDir} holds no ${DATABASE_FILE}: nothing to copy`);
  let releaseDataDir: () => void;
  try {
    releaseDataDir = lockDataDir(config.dataDir);
  } catch (error) {
    if (!(error instanceof DataDirInUse)) throw error;
    console.error(`oddsbook: ${error.message}: stop the exchange before copying its data dir`);
    return 1;
  }
  try {
    const database = await connectPostgres(config);
    try {
      return await copyAndVerify(config, database, verifyOnly);
    } finally {
      await database.close();
    }
  } finally {
    releaseDataDir();
  }
}

async function copyAndVerify(
  config: Config,
  database: PostgresDatabase,
  verifyOnly: boolean,
): Promise<number> {
  const target = shownDatabaseUrl(config.databaseUrl);
  const db = openDatabase(config.dataDir);
  let journalDb: Database | undefined;
  const client = await database.connect();
  try {
    if (!existsSync(join(config.dataDir, JOURNAL_FILE)) && !hasTable(db, 'journal'))
      throw new ConfigError(
        `${config.settingNames.dataDir} ${config.dataDir} holds no journal (${JOURNAL_FILE}): not the data dir of an exchange on SQLite`,
      );
    journalDb = openJournalDatabase(config.dataDir, db);

    console.log(`the data dir ${config.dataDir} (SQLite):`);
    const source = await runReplayCheck({ ...config, databaseUrl: '' });
    if (!printReplayCheck(source, '  ')) {
      console.error(
        `the data dir itself does not replay identically or reconcile (oddsbook replay shows the same): nothing was ${verifyOnly ? 'verified' : 'copied'}`,
      );
      return 1;
    }

    let plan: TablePlan;
    try {
      plan = await planCopy(
        [
          { file: DATABASE_FILE, db },
          { file: JOURNAL_FILE, db: journalDb },
        ],
        client,
      );
    } catch (error) {
      if (!(error instanceof SchemasDiffer)) throw error;
      console.error(`oddsbook: ${error.message}`);
      return 1;
    }
    if (!verifyOnly) await copy(plan, client, config, target);
    printLeftBehind(plan);

    if (!(await verify(plan, client, config, source))) {
      console.error('The data dir is as it was: keep running on it.');
      return 1;
    }
    console.log(
      `verified: start the exchange with DATABASE_URL=${target} (the data dir is needed for its lock alone)`,
    );
    return 0;
  } catch (error) {
    if (error instanceof TargetNotEmpty)
      throw new ConfigError(
        `${config.settingNames.databaseUrl} ${target}: ${error.message}: give it an empty database (createdb), or verify an earlier copy with ${VERIFY_ONLY}`,
      );
    throw error;
  } finally {
    await client.end();
    journalDb?.close();
    db.close();
  }
}

/**
 * The copy against the data dir: every table's rows and contents, the replay of the copy, and its journal's end
 * and state hash against the data dir's (`source`). Prints what differs; whether nothing does.
 */
async function verify(
  plan: TablePlan,
  client: pg.ClientBase,
  config: Config,
  source: ReplayCheck,
): Promise<boolean> {
  const target = shownDatabaseUrl(config.databaseUrl);
  console.log(`comparing the tables of ${target} with the data dir's:`);
  const tables = await compareTables(plan, client);
  const differing = tables.filter((t) => !t.identical);
  for (const t of differing)
    console.error(
      `  MISMATCH in ${t.table}: SQLite ${t.sqlite.rows} rows (digest ${t.sqlite.digest.slice(0, 16)}), PostgreSQL ${t.postgres.rows} rows (digest ${t.postgres.digest.slice(0, 16)})`,
    );
  const rows = tables.reduce((sum, t) => sum + t.sqlite.rows, 0);
  console.log(
    `  ${tables.length - differing.length} of ${tables.length} tables identical (${rows} rows in the data dir)`,
  );

  console.log(`${target} (PostgreSQL):`);
  const copied = await runReplayCheck(config);
  const copiedPassed = printReplayCheck(copied, '  ');
  const sameReplay = compareReplays(source, copied);
  if (differing.length === 0 && copiedPassed && sameReplay) return true;
  console.error(
    `NOT VERIFIED: the copy differs from the data dir${differing.length > 0 ? ` (${differing.map((t) => t.table).join(', ')})` : ''}.`,
  );
  return false;
}

async function copy(plan: TablePlan, client: pg.ClientBase, config: Config, target: string): Promise<void> {
  console.log(`copying ${plan.copied.length} tables into ${target} (one transaction):`);
  const width = Math.max(...plan.copied.map((t) => t.name.length));
  const started = Date.now();
  const counts = await copyTables(plan, client, ({ table, rows, done }) =>
    console.log(
      `  ${table.padEnd(width)} ${String(rows).padStart(10)} ${rows === 1 ? 'row' : 'rows'}${done ? '' : ' …'}`,
    ),
  );
  const rows = counts.reduce((sum, c) => sum + c.rows, 0);
  console.log(
    `copied ${counts.length} tables, ${rows} rows in ${((Date.now() - started) / 1000).toFixed(1)} s (from ${config.dataDir})`,
  );
}

function printLeftBehind(plan: TablePlan): void {
  for (const { table, reason } of plan.notCopied) console.log(`not copied: ${table} (${reason})`);
  for (const { column, reason } of plan.columnsLeft) console.log(`not copied: ${column} (${reason})`);
}

/** The journal's end and the state replayed from it, the same on both sides. */
function compareReplays(source: ReplayCheck, copied: ReplayCheck): boolean {
  let same = true;
  if (source.lastSeq !== copied.lastSeq) {
    console.error(
      `MISMATCH: the journal ends at seq ${source.lastSeq} in the data dir, ${copied.lastSeq} in the copy`,
    );
    same = false;
  } else console.log(`journal: last seq ${copied.lastSeq} on both`);
  if (source.journalHash !== copied.journalHash) {
    console.error(
      `MISMATCH: state hash from the data dir's journal ${source.journalHash}, from the copy's ${copied.journalHash}`,
    );
    same = false;
  } else console.log(`state hash from both journals: ${copied.journalHash}`);
  return same && replayCheckPassed(copied);
}

function hasTable(db: Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;
}
