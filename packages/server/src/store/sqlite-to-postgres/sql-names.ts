/** A table or column name quoted for SQL (both SQLite and PostgreSQL read double quotes so). */
export function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** What a column is read as on the SQLite side: its own name, or the rowid it stands for. */
export function sqliteSelect(columns: readonly { name: string; fromRowid: boolean }[]): string {
  return columns.map((c) => (c.fromRowid ? 'rowid' : quoted(c.name))).join(', ');
}
