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
