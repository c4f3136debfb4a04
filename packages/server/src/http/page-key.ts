import { Type } from 'typebox';
import { badRequest } from '../errors/app-error.js';
import type { SortKey } from '../store/trading-reads.js';

/**
 * How a listing is ordered, as a page key names it. `name` tells keys of different orders apart (a key
 * of the `event` sort is refused by the `createdAt` sort), `shape` types the key's values (`n` a safe
 * integer, `s` a string), `keyOf` reads a row's key.
 */
export type Ordering<T> = { name: string; shape: string; keyOf: (row: T) => SortKey };

/** The `nextKey` query parameter of every keyset listing. */
export const NextKeyQuery = Type.String({
  maxLength: 512,
  description: 'the nextKey of the previous page (opaque); omit for the first page',
});

const MAX_KEY_STRING = 160;

/** Opaque page keys: base64url JSON of the ordering's name and the last row's sort key. */
function encodePageKey(name: string, key: SortKey): string {
  return Buffer.from(JSON.stringify([name, ...key])).toString('base64url');
}

function decodePageKey(nextKey: string, ordering: Ordering<unknown>): SortKey {
  try {
    const value: unknown = JSON.parse(Buffer.from(nextKey, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === ordering.shape.length + 1 &&
      value[0] === ordering.name &&
      [...ordering.shape].every((type, i) => {
        const v: unknown = value[i + 1];
        return type === 'n' ? Number.isSafeInteger(v) : typeof v === 'string' && v.length <= MAX_KEY_STRING;
      })
    ) {
      return value.slice(1) as SortKey;
    }
  } catch {
    // fall through
  }
  throw badRequest('BAD_NEXT_KEY', 'nextKey is not a key this server issued for this listing and sort');
}

/**
 * One page of a keyset listing: the rows strictly after the page key's row in the listing's order. Rows
 * that arrive or leave between pages shift nothing, so no row is repeated or skipped (row offsets would).
 * `read` is asked for one row more than the page, which tells whether a next page exists.
 */
export async function readPage<T>(
  nextKey: string | undefined,
  perPage: number,
  ordering: Ordering<T>,
  read: (range: { limit: number; after: SortKey | null }) => Promise<T[]>,
): Promise<{ rows: T[]; nextKey: string | null }> {
  const after = nextKey === undefined ? null : decodePageKey(nextKey, ordering as Ordering<unknown>);
  const rows = await read({ limit: perPage + 1, after });
  if (rows.length <= perPage) return { rows, nextKey: null };
  const page = rows.slice(0, perPage);
  return { rows: page, nextKey: encodePageKey(ordering.name, ordering.keyOf(page[perPage - 1]!)) };
}
