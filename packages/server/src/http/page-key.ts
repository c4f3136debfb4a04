import { badRequest } from '../errors/app-error.js';

/** Opaque page keys of the trading listings: base64url of the next row offset. */
function encodePageKey(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodePageKey(key: string | undefined): number {
  if (key === undefined) return 0;
  try {
    const value = JSON.parse(Buffer.from(key, 'base64url').toString('utf8')) as { o?: unknown };
    if (Number.isSafeInteger(value.o) && (value.o as number) >= 0) return value.o as number;
  } catch {
    // fall through
  }
  throw badRequest('BAD_NEXT_KEY', 'nextKey is not a key this server issued');
}

/**
 * One page of a listing from the page key a client sent: `read` is asked for one row more than the page,
 * which tells whether a next page exists.
 */
export function readPage<T>(
  nextKey: string | undefined,
  perPage: number,
  read: (range: { limit: number; offset: number }) => T[],
): { rows: T[]; nextKey: string | null } {
  const offset = decodePageKey(nextKey);
  const rows = read({ limit: perPage + 1, offset });
  const more = rows.length > perPage;
  return {
    rows: more ? rows.slice(0, perPage) : rows,
    nextKey: more ? encodePageKey(offset + perPage) : null,
  };
}
