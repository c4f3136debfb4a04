import type pg from 'pg';
import { quoted, sqliteSelect } from './sql-names.js';
import type { TablePlan } from './table-plan.js';
import { canonical, TableDigest, toPostgres } from './values.js';

/** Rows per FETCH from the PostgreSQL side. */
const FETCH_ROWS = 2_000;

/** PostgreSQL's text output of every column, as it is sent: no parsing (a BIGINT stays exact). */
const AS_SENT = { getTypeParser: () => (text: string) => text };

export type TableComparison = {
  table: string;
  sqlite: { rows: number; digest: string };
  postgres: { rows: number; digest: string };
  identical: boolean;
};

/**
 * Compares every copied table's contents on both sides: the row counts and a digest of the rows whatever
 * their order (each value in one canonical form: the SQLite value as it was converted, PostgreSQL's text
 * output; a bytea by its SHA-256, computed by PostgreSQL). The PostgreSQL side is read in one snapshot.
 */
export async function compareTables(plan: TablePlan, client: pg.ClientBase): Promise<TableComparison[]> {
  const comparisons: TableComparison[] = [];
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    for (const table of plan.copied) {
      const { columns } = table;
      const fromSqlite = new TableDigest();
      const read = table.source.db
        .prepare(`SELECT ${sqliteSelect(columns)} FROM ${quoted(table.name)}`)
        .raw(true)
        .safeIntegers(true);
      for (const row of read.iterate() as IterableIterator<unknown[]>)
        fromSqlite.add(
          row.map((value, i) => canonical(toPostgres(value, columns[i]!.kind), columns[i]!.kind)),
        );

      const fromPostgres = new TableDigest();
      const selected = columns.map((c) =>
        c.kind === 'bytea' ? `encode(sha256(${quoted(c.name)}), 'hex')` : quoted(c.name),
      );
      await client.query(
        `DECLARE compared NO SCROLL CURSOR FOR SELECT ${selected.join(', ')} FROM ${quoted(table.name)}`,
      );
      for (;;) {
        const { rows } = await client.query<unknown[]>({
          text: `FETCH ${FETCH_ROWS} FROM compared`,
          rowMode: 'array',
          types: AS_SENT,
        });
        for (const row of rows)
          fromPostgres.add(row.map((value, i) => canonical(value as string | null, columns[i]!.kind)));
        if (rows.length < FETCH_ROWS) break;
      }
      await client.query('CLOSE compared');
      comparisons.push({
        table: table.name,
        sqlite: { rows: fromSqlite.rows, digest: fromSqlite.hex },
        postgres: { rows: fromPostgres.rows, digest: fromPostgres.hex },
        identical: fromSqlite.rows === fromPostgres.rows && fromSqlite.hex === fromPostgres.hex,
      });
    }
    return comparisons;
  } finally {
    await client.query('ROLLBACK').catch(() => {});
  }
}
