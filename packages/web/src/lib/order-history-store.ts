import type { ExchangeClient } from '@oddsbook/client';
import type { OrderRow, TradeRow } from '@oddsbook/protocol';
import { useEffect, useState } from 'preact/hooks';
import { loadHistory, mergeOrders, type OrderHistory, saveHistory, vanishedOrders } from './order-history.js';
import { tradingClient } from './session.js';

/**
 * The account's order history, shared by both pages and kept in this browser per account: every order the
 * page saw open, from the account's channel, or behind a bet, with how it ended; and the newest orders the
 * exchange lists as ended (`GET /orders-v3/ended`), wherever and whenever they ended.
 */
let owner: string | undefined;
let history: OrderHistory = {};
const listeners = new Set<() => void>();
/** Orders being read by id (so that two loads do not read one twice). */
const reading = new Set<string>();
/** How many of the newest ended orders the history reads from the exchange: one page, newest first. */
export const ENDED_ORDERS_READ = 100;
/** The read of an account's ended orders under way (so that two asks at once read once). */
let endedRead: { account: string; done: Promise<void> } | undefined;

/** The account's history as this page holds it (read from the browser's storage on first use). */
export function historyOf(address: string): OrderHistory {
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

/**
 * Reads the account's newest ended orders from the exchange into its history: orders that ended while no
 * page was open, or in another browser, join it; a row the history holds newer is kept. Asked again while
 * a read is under way, it waits for that one. A failed read changes nothing (the next one reads again).
 */
export function loadEndedOrders(
  address: string,
  client?: Pick<ExchangeClient, 'listEndedOrders'>,
): Promise<void> {
  const account = address.toLowerCase();
  if (endedRead?.account === account) return endedRead.done;
  // Through a promise: no key any more (signed out meanwhile) is a failed read, not a throw.
  const done = Promise.resolve()
    .then(() => (client ?? tradingClient()).listEndedOrders({ perPage: ENDED_ORDERS_READ, sortAsc: false }))
    .then(
      (page) => recordOrders(account, page.orders),
      () => undefined,
    )
    .finally(() => {
      if (endedRead?.done === done) endedRead = undefined;
    });
  endedRead = { account, done };
  return done;
}

/** Reads the account's ended orders from the exchange when a page shows its history (with a key to read with). */
export function useEndedOrdersRead(address: string | undefined, apiKey: string | undefined): void {
  useEffect(() => {
    if (address && apiKey) void loadEndedOrders(address);
  }, [address, apiKey]);
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
