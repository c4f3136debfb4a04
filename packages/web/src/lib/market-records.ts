import type { Market } from '@oddsbook/protocol';
import { useEffect, useState } from 'preact/hooks';
import { publicClient } from './session.js';

/** `GET /markets/find` takes at most this many hashes a call. */
const FIND_LIMIT = 30;

/**
 * The market records the page has read, by lower-case hash, kept for the page's life: a row's names never
 * change, so a record read once names every later row of its market, whatever the page has selected.
 */
const records = new Map<string, Market>();
const loading = new Set<string>();
const listeners = new Set<() => void>();

export function knownMarket(hash: string): Market | undefined {
  return records.get(hash.toLowerCase());
}

/** Records a market the page already has (the selected one, a catalog page). */
export function rememberMarkets(markets: readonly Market[]): void {
  let added = false;
  for (const m of markets) {
    const hash = m.marketHash.toLowerCase();
    if (!records.has(hash)) added = true;
    records.set(hash, m);
  }
  if (added) for (const l of listeners) l();
}

/** Reads the records of the hashes not known yet (30 a call); a failed read is asked again next time. */
export async function loadMarkets(hashes: readonly string[]): Promise<void> {
  const missing = [...new Set(hashes.map((h) => h.toLowerCase()))].filter(
    (h) => !records.has(h) && !loading.has(h),
  );
  const calls: Promise<void>[] = [];
  for (let i = 0; i < missing.length; i += FIND_LIMIT) {
    const chunk = missing.slice(i, i + FIND_LIMIT);
    for (const h of chunk) loading.add(h);
    calls.push(
      publicClient()
        .findMarkets(chunk)
        .then(rememberMarkets)
        .finally(() => {
          for (const h of chunk) loading.delete(h);
        }),
    );
  }
  await Promise.all(calls);
}

/**
 * The records of `hashes` (and of the markets they refer to: a quarter line's legs), read when missing;
 * re-renders when one arrives. Returns a lookup by hash.
 */
export function useMarketRecords(hashes: readonly string[]): (hash: string) => Market | undefined {
  const [, setTick] = useState(0);
  const key = [...new Set(hashes.map((h) => h.toLowerCase()))].sort().join(',');
  useEffect(() => {
    const changed = () => setTick((t) => t + 1);
    listeners.add(changed);
    return () => {
      listeners.delete(changed);
    };
  }, []);
  useEffect(() => {
    if (key) void loadMarkets(key.split(',')).catch(() => undefined);
  }, [key]);
  return knownMarket;
}
