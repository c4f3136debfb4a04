import type { Database } from 'better-sqlite3';
import type pg from 'pg';
import { type ValueKind, valueKind } from './values.js';

/**
 * Tables of a SQLite data dir that are never copied, whichever side has them, and why. Every other table
 * must be on both sides: one on one side only stops the copy, so that a table added later is never dropped
 * on the way without a decision written here.
 */
export const NOT_COPIED: Readonly<Record<string, string>> = {
  schema_migrations: 'each store records its own migrations',
  chain_schema_version:
    "the embedded chain's own version of its SQLite tables (PostgreSQL's are in schema_migrations)",
  sequencer_leader: "the cluster's leading sequencer (ADR 0018): a single process has none",
  cluster_nodes: "the cluster's running nodes (ADR 0018): a single process registers none",
  role_leases: "the cluster's projector and chain leases (ADR 0018): a single process holds none",
};

/**
 * Columns of SQLite tables that PostgreSQL does not have, and why they are left behind. Any other column on
 * one side only stops the copy.
 */
export const SQLITE_ONLY_COLUMNS: Readonly<Record<string, string>> = {
  'escrow_cursor.fills_rowid':
    'a rowid cursor of the escrows before settlement transactions; nothing reads it',
  'escrow_cursor.outbox_seq': 'the chain outbox cursor before settlement transactions; nothing reads it',
  'escrow_cursor.refund_seq': 'the refund release cursor before settlement transactions; nothing reads it',
};

/** A SQLite database of the data dir, named by its file. */
export type SqliteSource = { readonly file: string; readonly db: Database };

export type CopiedColumn = {
  readonly name: string;
  readonly kind: ValueKind;
  /** The PostgreSQL type, as a cast (`numeric(78,0)`, `bigint`, …). */
  readonly sqlType: string;
  /** A PostgreSQL identity column SQLite has no column for: it takes the rowid (the order rows were kept). */
  readonly fromRowid: boolean;
  /** An identity or serial column: its sequence is set past the largest value copied. */
  readonly sequenced: boolean;
};

export type CopiedTable = {
  readonly name: string;
  readonly source: SqliteSource;
  readonly columns: readonly CopiedColumn[];
  /** Rows read in rowid order (the order they were written), or in primary key order without a rowid. */
  readonly hasRowid: boolean;
};

export type TablePlan = {
  /** In an order where every table comes after the tables its foreign keys name. */
  readonly copied: readonly CopiedTable[];
  readonly notCopied: readonly { table: string; reason: string }[];
  readonly columnsLeft: readonly { column: string; reason: string }[];
};

/** The two schemas do not line up: what differs, one line each. */
export class SchemasDiffer extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`the SQLite data dir and the PostgreSQL schema differ:\n  ${problems.join('\n  ')}`);
    this.name = 'SchemasDiffer';
  }
}

type PostgresColumn = {
  table_name: string;
  column_name: string;
  udt_name: string;
  numeric_scale: number | null;
  sql_type: string;
  sequenced: boolean;
};

/**
 * Matches the tables of the data dir's SQLite databases with the PostgreSQL schema (information_schema, the
 * current schema): every table on both sides is copied, its PostgreSQL columns each from the SQLite column
 * of the same name, converted by the PostgreSQL type.
 */
export async function planCopy(sources: readonly SqliteSource[], client: pg.ClientBase): Promise<TablePlan> {
  const sqlite = new Map<string, { source: SqliteSource; columns: string[]; hasRowid: boolean }>();
  const problems: string[] = [];
  for (const source of sources) {
    const tables = source.db
      .prepare(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
      )
      .all() as { name: string; sql: string }[];
    for (const { name, sql } of tables) {
      const other = sqlite.get(name);
      if (other) {
        problems.push(`table ${name} is in both ${other.source.file} and ${source.file}`);
        continue;
      }
      const columns = source.db
        .prepare('SELECT name FROM pragma_table_info(?)')
        .pluck()
        .all(name) as string[];
      sqlite.set(name, { source, columns, hasRowid: !/\bWITHOUT\s+ROWID\b/i.test(sql) });
    }
  }

  const postgres = new Map<string, PostgresColumn[]>();
  const { rows } = await client.query<PostgresColumn>(`
    SELECT c.table_name, c.column_name, c.udt_name, c.numeric_scale::int AS numeric_scale,
      format_type(a.atttypid, a.atttypmod) AS sql_type,
      (c.is_identity = 'YES' OR c.column_default LIKE 'nextval(%') AS sequenced
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    JOIN pg_attribute a ON a.attrelid = format('%I.%I', c.table_schema, c.table_name)::regclass
      AND a.attname = c.column_name
    WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
    ORDER BY c.table_name, c.ordinal_position`);
  for (const row of rows) {
    const columns = postgres.get(row.table_name) ?? [];
    columns.push(row);
    postgres.set(row.table_name, columns);
  }

  const notCopied: { table: string; reason: string }[] = [];
  const columnsLeft: { column: string; reason: string }[] = [];
  const copied = new Map<string, CopiedTable>();
  for (const name of [...new Set([...sqlite.keys(), ...postgres.keys()])].sort()) {
    const reason = NOT_COPIED[name];
    if (reason !== undefined) {
      notCopied.push({ table: name, reason });
      continue;
    }
    const from = sqlite.get(name);
    const to = postgres.get(name);
    if (!from || !to) {
      problems.push(
        from
          ? `table ${name} (${from.source.file}) is not in the PostgreSQL schema`
          : `table ${name} of the PostgreSQL schema is in no SQLite database of the data dir`,
      );
      continue;
    }
    const columns: CopiedColumn[] = [];
    for (const column of to) {
      const fromRowid = !from.columns.includes(column.column_name);
      if (fromRowid && !(column.sequenced && from.hasRowid)) {
        problems.push(
          `column ${name}.${column.column_name} of the PostgreSQL schema is not in ${from.source.file}`,
        );
        continue;
      }
      columns.push({
        name: column.column_name,
        kind: valueKind(column.udt_name, column.numeric_scale),
        sqlType: column.sql_type,
        fromRowid,
        sequenced: column.sequenced,
      });
    }
    for (const column of from.columns) {
      if (to.some((c) => c.column_name === column)) continue;
      const left = SQLITE_ONLY_COLUMNS[`${name}.${column}`];
      if (left === undefined)
        problems.push(`column ${name}.${column} (${from.source.file}) is not in the PostgreSQL schema`);
      else columnsLeft.push({ column: `${name}.${column}`, reason: left });
    }
    copied.set(name, { name, source: from.source, columns, hasRowid: from.hasRowid });
  }
  if (problems.length > 0) throw new SchemasDiffer(problems);
  return { copied: await inForeignKeyOrder(copied, client), notCopied, columnsLeft };
}

/** The tables with each after the tables its foreign keys refer to (PostgreSQL checks them at each insert). */
async function inForeignKeyOrder(
  tables: Map<string, CopiedTable>,
  client: pg.ClientBase,
): Promise<CopiedTable[]> {
  const { rows } = await client.query<{ child: string; parent: string }>(`
    SELECT child.relname AS child, parent.relname AS parent
    FROM pg_constraint con
    JOIN pg_class child ON child.oid = con.conrelid
    JOIN pg_class parent ON parent.oid = con.confrelid
    WHERE con.contype = 'f' AND con.connamespace = current_schema()::regnamespace`);
  const parents = new Map<string, string[]>();
  for (const { child, parent } of rows) {
    if (child !== parent) parents.set(child, [...(parents.get(child) ?? []), parent]);
  }
  const ordered: CopiedTable[] = [];
  const placed = new Set<string>();
  const place = (name: string, path: readonly string[]) => {
    if (placed.has(name)) return;
    if (path.includes(name))
      throw new SchemasDiffer([`foreign keys in a cycle: ${[...path, name].join(' -> ')}`]);
    for (const parent of parents.get(name) ?? []) place(parent, [...path, name]);
    placed.add(name);
    const table = tables.get(name);
    if (table) ordered.push(table);
  };
  for (const name of tables.keys()) place(name, []);
  return ordered;
}
