import type pg from 'pg';
import { quoted, sqliteSelect } from './sql-names.js';
import type { CopiedTable, TablePlan } from './table-plan.js';
import { toPostgres, UnconvertibleValue } from './values.js';

/**
 * Tables the PostgreSQL migrations fill (the sports list, the cursors' single rows): emptied before the copy
 * brings the data dir's rows. Rows in any other table mean the database is in use.
 */
export const SEEDED_BY_MIGRATIONS: readonly string[] = ['sports', 'projector_cursor', 'escrow_cursor'];

/** Rows per INSERT, and characters of text per INSERT, at most (a row larger than that goes alone). */
const BATCH_ROWS = 1_000;
const BATCH_CHARS = 4 << 20;
/** A table this large reports its progress every this many rows too. */
const PROGRESS_ROWS = 100_000;

/** The target holds rows of an exchange already: the tables that do. */
export class TargetNotEmpty extends Error {
  constructor(readonly tables: readonly string[]) {
    super(
      `the database already holds an exchange's rows (in ${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ', …' : ''})`,
    );
    this.name = 'TargetNotEmpty';
  }
}

export type CopyProgress = { table: string; rows: number; done: boolean };

/**
 * Copies every planned table into the PostgreSQL database, in one transaction: all of it or nothing. The
 * tables are locked against writers for the transaction, checked empty (but for what the migrations seed,
 * emptied first), filled in batches (one multi-row INSERT from `unnest` of text arrays, cast to each column's
 * type; a table with a bytea column one row per INSERT, the bytes a binary parameter), and their identity or
 * serial sequences set past the largest value copied (or SQLite's AUTOINCREMENT mark, if higher).
 */
export async function copyTables(
  plan: TablePlan,
  client: pg.ClientBase,
  onProgress: (progress: CopyProgress) => void,
): Promise<{ table: string; rows: number }[]> {
  await client.query('BEGIN');
  try {
    await client.query(`LOCK TABLE ${plan.copied.map((t) => quoted(t.name)).join(', ')} IN EXCLUSIVE MODE`);
    const occupied = await occupiedTables(plan, client);
    if (occupied.length > 0) throw new TargetNotEmpty(occupied);
    for (const table of [...plan.copied].reverse())
      if (SEEDED_BY_MIGRATIONS.includes(table.name)) await client.query(`DELETE FROM ${quoted(table.name)}`);
    const counts: { table: string; rows: number }[] = [];
    for (const table of plan.copied) {
      const rows = await copyTable(table, client, (rows) =>
        onProgress({ table: table.name, rows, done: false }),
      );
      onProgress({ table: table.name, rows, done: true });
      counts.push({ table: table.name, rows });
    }
    await client.query('COMMIT');
    return counts;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

async function occupiedTables(plan: TablePlan, client: pg.ClientBase): Promise<string[]> {
  const checked = plan.copied.filter((t) => !SEEDED_BY_MIGRATIONS.includes(t.name));
  if (checked.length === 0) return [];
  const { rows } = await client.query<{ name: string }>(
    checked
      .map((t, i) => `SELECT $${i + 1}::text AS name WHERE EXISTS (SELECT 1 FROM ${quoted(t.name)})`)
      .join(' UNION ALL '),
    checked.map((t) => t.name),
  );
  return rows.map((row) => row.name);
}

async function copyTable(
  table: CopiedTable,
  client: pg.ClientBase,
  onRows: (rows: number) => void,
): Promise<number> {
  const { columns } = table;
  const names = columns.map((c) => quoted(c.name)).join(', ');
  const override = columns.some((c) => c.sequenced) ? ' OVERRIDING SYSTEM VALUE' : '';
  const oneRowAtATime = columns.some((c) => c.kind === 'bytea');
  const insert = oneRowAtATime
    ? `INSERT INTO ${quoted(table.name)} (${names})${override}
        VALUES (${columns.map((c, i) => `$${i + 1}::${c.sqlType}`).join(', ')})`
    : `INSERT INTO ${quoted(table.name)} (${names})${override}
        SELECT ${columns.map((c) => `u.${quoted(c.name)}::${c.sqlType}`).join(', ')}
        FROM unnest(${columns.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${names})`;
  const read = table.source.db
    .prepare(
      `SELECT ${sqliteSelect(columns)} FROM ${quoted(table.name)}${table.hasRowid ? ' ORDER BY rowid' : ''}`,
    )
    .raw(true)
    .safeIntegers(true);
  const highest = columns.map(() => 0n);
  let batch: (string | Buffer | null)[][] = columns.map(() => []);
  let batchRows = 0;
  let batchChars = 0;
  let rows = 0;
  const flush = async () => {
    if (batchRows === 0) return;
    await client.query(insert, batch);
    batch = columns.map(() => []);
    batchRows = 0;
    batchChars = 0;
  };
  // The iterator keeps the source's connection busy across the awaits: nothing else may use it meanwhile.
  const source = read.iterate() as IterableIterator<unknown[]>;
  try {
    for (const row of source) {
      const values = row.map((value, i) => {
        const column = columns[i]!;
        if (column.sequenced && typeof value === 'bigint' && value > highest[i]!) highest[i] = value;
        try {
          return toPostgres(value, column.kind);
        } catch (error) {
          if (error instanceof UnconvertibleValue)
            throw new UnconvertibleValue(`${table.name}.${column.name}: ${error.message}`);
          throw error;
        }
      });
      if (oneRowAtATime) {
        await client.query(insert, values);
      } else {
        for (const [i, value] of values.entries()) {
          batch[i]!.push(value);
          batchChars += typeof value === 'string' ? value.length : 0;
        }
        batchRows += 1;
        if (batchRows >= BATCH_ROWS || batchChars >= BATCH_CHARS) await flush();
      }
      rows += 1;
      if (rows % PROGRESS_ROWS === 0) onRows(rows);
    }
    await flush();
  } finally {
    source.return?.();
  }
  await setSequences(table, highest, client);
  return rows;
}

/** Each sequenced column's sequence continues after the larger of the copied maximum and SQLite's mark. */
async function setSequences(
  table: CopiedTable,
  highest: readonly bigint[],
  client: pg.ClientBase,
): Promise<void> {
  const mark = autoincrementMark(table);
  for (const [i, column] of table.columns.entries()) {
    if (!column.sequenced) continue;
    const last = highest[i]! > mark ? highest[i]! : mark;
    if (last === 0n) continue;
    await client.query('SELECT setval(pg_get_serial_sequence($1, $2), $3::bigint)', [
      quoted(table.name),
      column.name,
      last.toString(),
    ]);
  }
}

/** The highest id SQLite's AUTOINCREMENT handed out in the table (deleted rows included), or 0. */
function autoincrementMark(table: CopiedTable): bigint {
  const { db } = table.source;
  const hasMarks =
    db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_sequence'").get() !== undefined;
  if (!hasMarks) return 0n;
  const mark = db
    .prepare('SELECT seq FROM sqlite_sequence WHERE name = ?')
    .safeIntegers(true)
    .pluck()
    .get(table.name);
  return typeof mark === 'bigint' ? mark : 0n;
}
