/**
 * JSON kept in this browser's localStorage: a value that is missing, unreadable or not JSON reads as
 * `fallback`; a storage that is full or disabled loses only what would have outlived a reload.
 */
export function readStored<T>(
  key: string,
  fallback: T,
  storage: Storage | undefined = globalThis.localStorage,
): T {
  try {
    const text = storage?.getItem(key);
    return text ? (JSON.parse(text) as T) : fallback;
  } catch {
    return fallback;
  }
}

export function writeStored(
  key: string,
  value: unknown,
  storage: Storage | undefined = globalThis.localStorage,
): void {
  try {
    if (value === null || value === undefined) storage?.removeItem(key);
    else storage?.setItem(key, JSON.stringify(value));
  } catch {
    // Full or disabled: kept for this page only.
  }
}
