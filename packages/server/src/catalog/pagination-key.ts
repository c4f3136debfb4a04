import type { MarketCursor } from '../store/repositories.js';

/** `GET /markets/active` page keys: opaque to clients, base64url JSON of the last row's sort position. */
export function encodePaginationKey(cursor: MarketCursor): string {
  return Buffer.from(
    JSON.stringify([cursor.gameTime, cursor.eventId, cursor.type, cursor.marketHash]),
  ).toString('base64url');
}

/** The cursor of a key, or null when the key was not made by `encodePaginationKey`. */
export function decodePaginationKey(key: string): MarketCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(key, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 4) return null;
    const [gameTime, eventId, type, marketHash] = value;
    if (!Number.isSafeInteger(gameTime) || !Number.isSafeInteger(type)) return null;
    if (typeof eventId !== 'string' || typeof marketHash !== 'string') return null;
    return { gameTime, eventId, type, marketHash };
  } catch {
    return null;
  }
}
