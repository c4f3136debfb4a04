/** `@name` → `$n`, compiled once per text. */
const compiled = new Map<string, { text: string; names: string[] }>();

/**
 * A query written with named parameters (`@account`), as the SQLite queries are, turned into PostgreSQL's
 * numbered ones with their values in order; a name used twice is one parameter.
 */
export function named(text: string, params: Record<string, unknown>): { text: string; values: unknown[] } {
  let query = compiled.get(text);
  if (!query) {
    const names: string[] = [];
    const numbered = text.replace(/@(\w+)/g, (_, name: string) => {
      let index = names.indexOf(name);
      if (index < 0) index = names.push(name) - 1;
      return `$${index + 1}`;
    });
    query = { text: numbered, names };
    if (compiled.size < 1_000) compiled.set(text, query);
  }
  return {
    text: query.text,
    values: query.names.map((name) => {
      const value = params[name];
      if (value === undefined) throw new Error(`no value for @${name}`);
      return value;
    }),
  };
}

/**
 * Whether a value holds a NUL character: PostgreSQL text cannot, so such a value equals no stored one
 * (a read answers nothing for it, where the query would fail).
 */
export function holdsNul(values: readonly unknown[]): boolean {
  return values.some((value) =>
    typeof value === 'string' ? value.includes('\u0000') : Array.isArray(value) && holdsNul(value),
  );
}
