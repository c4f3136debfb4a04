/**
 * JSON kept in this browser's localStorage: a value that is missing, unreadable or not JSON reads as
 * `fallback`; a storage that is full or disabled loses only what would have outlived a reload.
 */
export function readStored<T>(key: string, fallback: T): T {
  try {
    const text = globalThis.localStorage?.getItem(key);
    return text ? (JSON.parse(text) as T) : fallback;
  } catch {
    return fallback;
  }
}

/** Stores `value` as JSON under `key`; null or undefined removes it. */
export function writeStored(key: string, value: unknown): void {
  try {
    if (value === null || value === undefined) globalThis.localStorage?.removeItem(key);
    else globalThis.localStorage?.setItem(key, JSON.stringify(value));
  } catch {
    // Full or disabled: kept for this page only.
  }
}
