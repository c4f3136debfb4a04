import type { OrderRow, TradeRow } from '@oddsbook/protocol';
import { useEffect, useState } from 'preact/hooks';
import { loadHistory, mergeOrders, type OrderHistory, saveHistory, vanishedOrders } from './order-history.js';
import { tradingClient } from './session.js';

/**
 * The account's order history, shared by both pages and kept in this browser per account: every order the
 * page saw open, from the account's channel, or behind a bet, with how it ended.
 */
let owner: string | undefined;
let history: OrderHistory = {};
const listeners = new Set<() => void>();
/** Orders being read by id (so that two loads do not read one twice). */
const reading = new Set<string>();

function historyOf(address: string): OrderHistory {
  if (owner !== address.toLowerCase()) {
    owner = address.toLowerCase();
    history = loadHistory(owner);
    reading.clear();
  }
  return history;
}

export function recordOrders(address: string, rows: readonly OrderRow[]): void {
  const next = mergeOrders(historyOf(address), rows);
  if (next === history) return;
  history = next;
  saveHistory(address, next);
  for (const l of listeners) l();
}

export function useOrderHistory(address: string | undefined): OrderHistory {
  const [, setTick] = useState(0);
  useEffect(() => {
    const changed = () => setTick((t) => t + 1);
    listeners.add(changed);
    return () => {
      listeners.delete(changed);
    };
  }, []);
  return address ? historyOf(address) : {};
}

/**
 * Feeds the history from the open orders and bets the page has: they join it; an order that left the open
 * listing, or is behind a bet and was never seen, is read by id to learn how it ended.
 */
export function useOrderHistoryFeed(
  address: string | undefined,
  open: readonly OrderRow[] | undefined,
  trades: readonly TradeRow[] = [],
): void {
  const key = `${open?.map((o) => `${o.id}:${o.updatedAt}`).join(',')}|${trades.map((t) => t.orderId).join(',')}`;
  useEffect(() => {
    if (!address || !open) return;
    recordOrders(address, open);
    const known = historyOf(address);
    const ids = new Set(vanishedOrders(known, open));
    for (const t of trades) if (!known[t.orderId]) ids.add(t.orderId);
    const toRead = [...ids].filter((id) => !reading.has(id));
    if (toRead.length === 0) return;
    for (const id of toRead) reading.add(id);
    void Promise.all(
      toRead.map((id) =>
        tradingClient()
          .getOrder(id)
          .catch(() => undefined)
          .finally(() => reading.delete(id)),
      ),
    ).then((read) =>
      recordOrders(
        address,
        read.filter((o): o is OrderRow => o !== undefined),
      ),
    );
  }, [address, key]);
}
