/** A statement and its parameters, as `pg` takes them. */
export type Statement = { text: string; values: unknown[] };

/** `INSERT INTO table (columns) SELECT * FROM unnest(arrays)`: one statement for any number of rows. */
export function insertRows(
  table: string,
  columns: readonly [name: string, type: string][],
  rows: unknown[][],
  tail = '',
) {
  return {
    text: `INSERT INTO ${table} (${columns.map(([name]) => name).join(', ')})
      SELECT * FROM unnest(${columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}) ${tail}`,
    values: columns.map((_, i) => rows.map((row) => row[i])),
  };
}

/** `UPDATE table SET ... FROM unnest(arrays) AS u(...) WHERE keys match`: one statement for any number of rows. */
export function updateRows(
  table: string,
  keys: readonly [name: string, type: string][],
  columns: readonly [name: string, type: string, set?: string][],
  rows: unknown[][],
  where = '',
) {
  const all = [...keys, ...columns];
  return {
    text: `UPDATE ${table} AS r SET ${columns.map(([name, , set]) => `${name} = ${set ?? `u.${name}`}`).join(', ')}
      FROM unnest(${all.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}) AS u(${all.map(([name]) => name).join(', ')})
      WHERE ${keys.map(([name]) => `r.${name} = u.${name}`).join(' AND ')} ${where}`,
    values: all.map((_, i) => rows.map((row) => row[i])),
  };
}
