import type { OrderRow } from '@oddsbook/protocol';
import { readStored, writeStored } from './stored.js';

/** The account's orders the page has seen, by id: open ones and those that ended (kept, never dropped). */
export type OrderHistory = Record<string, OrderRow>;

/** At most this many ended orders are kept in the browser per account (the newest). */
export const HISTORY_LIMIT = 200;

/** Adds rows to the history; a row replaces an older one of the same order (by `updatedAt`), never a newer one. */
export function mergeOrders(history: OrderHistory, rows: readonly OrderRow[]): OrderHistory {
  let next: OrderHistory | undefined;
  for (const row of rows) {
    const old = history[row.id];
    if (old && old.updatedAt > row.updatedAt) continue;
    if (old && old.updatedAt === row.updatedAt && old.status === row.status) continue;
    next ??= { ...history };
    next[row.id] = row;
  }
  return next ?? history;
}

/** Orders the history holds as open that the exchange's open listing no longer has: read each to learn how it ended. */
export function vanishedOrders(history: OrderHistory, open: readonly OrderRow[]): string[] {
  const still = new Set(open.map((o) => o.id));
  return Object.values(history)
    .filter((o) => o.status !== 'INACTIVE' && !still.has(o.id))
    .map((o) => o.id);
}

/** The ended orders, newest first, at most `limit`. */
export function endedOrders(history: OrderHistory, limit = HISTORY_LIMIT): OrderRow[] {
  return Object.values(history)
    .filter((o) => o.status === 'INACTIVE')
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id))
    .slice(0, limit);
}

/** The history trimmed for storage: every open order and the newest ended ones. */
export function trimHistory(history: OrderHistory): OrderHistory {
  const open = Object.values(history).filter((o) => o.status !== 'INACTIVE');
  return Object.fromEntries([...open, ...endedOrders(history)].map((o) => [o.id, o]));
}

const ENDINGS: Record<string, string> = {
  FILLED: 'Filled',
  USER_REQUESTED: 'Cancelled by you',
  EXPIRED: 'Expired',
  NO_LIQUIDITY: 'Not matched: nothing on the other side at its odds',
  INSUFFICIENT_BALANCE: 'Pulled: the available balance no longer covered it',
  EVENT_LIFECYCLE: 'Closed with its market or game',
  HEARTBEAT_TIMEOUT: 'Cancelled by the heartbeat (not refreshed in time)',
  SYSTEM: 'Cancelled by the exchange',
};

/** How an order ended in words, with what of it matched before: "Cancelled by you after 4.00 of 10.00 matched". */
export function orderEnding(
  row: Pick<OrderRow, 'inactiveReason' | 'fillAmount' | 'totalBetSize'>,
  amount: (units: string) => string,
): string {
  const reason = row.inactiveReason ?? '';
  const text = ENDINGS[reason] ?? (reason ? reason.toLowerCase().replaceAll('_', ' ') : 'Ended');
  if (reason === 'FILLED' || BigInt(row.fillAmount) === 0n) return text;
  // A take that matched and left a rest nothing could match (often dust of rounding) is a match, not a refusal.
  if (reason === 'NO_LIQUIDITY')
    return `Matched ${amount(row.fillAmount)} of ${amount(row.totalBetSize)}; nothing on the other side for the rest`;
  return `${text} after ${amount(row.fillAmount)} of ${amount(row.totalBetSize)} matched`;
}

const storageKey = (address: string) => `oddsbook.orders.${address.toLowerCase()}`;

/** The history this browser kept for the account (empty when none or unreadable). */
export function loadHistory(address: string): OrderHistory {
  return readStored<OrderHistory>(storageKey(address), {});
}

export function saveHistory(address: string, history: OrderHistory): void {
  writeStored(storageKey(address), trimHistory(history));
}
