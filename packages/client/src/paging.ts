/**
 * Listings as async iterators: `for await (const fill of client.fills())` reads page after page (keyset
 * `nextKey`) until the last, one request at a time, as the loop asks for rows.
 */
export async function* keysetRows<Row, Page extends { nextKey: string | null }>(
  readPage: (nextKey: string | undefined) => Promise<Page>,
  rowsOf: (page: Page) => readonly Row[],
): AsyncGenerator<Row, void, undefined> {
  let nextKey: string | undefined;
  do {
    const page = await readPage(nextKey);
    yield* rowsOf(page);
    nextKey = page.nextKey ?? undefined;
  } while (nextKey !== undefined);
}

/** Offset-paged listings (the legacy refunds route): pages from 0 until one comes back short. */
export async function* offsetRows<Row>(
  readPage: (page: number) => Promise<readonly Row[]>,
  perPage: number,
): AsyncGenerator<Row, void, undefined> {
  for (let page = 0; ; page++) {
    const rows = await readPage(page);
    yield* rows;
    if (rows.length < perPage) return;
  }
}

/** All rows of an iterator in an array (for listings known to be small). */
export async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}
