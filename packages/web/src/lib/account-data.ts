import type {
  BalanceRow,
  FillRow,
  OrderRow,
  PortfolioRefund,
  PositionRow,
  TradeRow,
} from '@oddsbook/protocol';
import { channels } from '@oddsbook/protocol';
import type { Centrifuge } from 'centrifuge';
import { useEffect, useState } from 'preact/hooks';
import { usePolled } from './hooks.js';
import { loadEndedOrders, recordOrders } from './order-history-store.js';
import { follow } from './realtime.js';
import { mergeRefunds } from './refunds.js';
import { tradingClient } from './session.js';

/** A fallback refresh of the account's rows, on top of the realtime channels. */
const ACCOUNT_POLL_MS = 5000;

export type AccountData = {
  orders: OrderRow[];
  trades: TradeRow[];
  fills: FillRow[];
  positions: PositionRow[];
  refunds: PortfolioRefund[];
  balance: BalanceRow | undefined;
  error: unknown;
  reload: () => void;
};

const strip = <T extends object>(row: T): OrderRow => {
  const { messageId: _m, commandId: _c, outcome: _o, ...order } = row as T & Record<string, unknown>;
  return order as unknown as OrderRow;
};

/**
 * The account's rows, on both pages: open orders, bets, fills, open positions, refunds and balance, reloaded
 * by a poll and on the account's channels (orders, trades, fills, `ce_refunds`) over the page's realtime
 * connection; every order row pushed on the channel joins the order history, whichever table is shown, and
 * whenever the orders channel starts without recovering what it missed, the exchange's newest ended orders do.
 */
export function useAccountData(
  apiKey: string | undefined,
  address: string | undefined,
  centrifuge: Centrifuge | null,
): AccountData {
  const rows = usePolled(
    apiKey && address
      ? async () => {
          const client = tradingClient();
          const [orders, trades, fills, positions, refunds, balance] = await Promise.all([
            client.listOrders({ perPage: 100 }),
            client.listTrades({ perPage: 100 }),
            client.listFills({ perPage: 100 }),
            client.listPositions({ perPage: 100 }),
            client.listRefunds({ bettor: address, perPage: 100 }),
            client.getBalance(),
          ]);
          return {
            orders: orders.orders,
            trades: trades.trades,
            fills: fills.fills,
            positions: positions.positions,
            refunds: refunds.results,
            balance,
          };
        }
      : null,
    ACCOUNT_POLL_MS,
    [apiKey, address],
  );
  const { reload } = rows;
  const [pushedRefunds, setPushedRefunds] = useState<PortfolioRefund[]>([]);
  useEffect(() => setPushedRefunds([]), [address]);

  // The realtime channels: every change reloads; an order row and a refund are also kept as they come.
  useEffect(() => {
    if (!centrifuge || !address) return;
    const handlers = { onData: () => reload(), reseed: () => reload() };
    const stops = [
      follow(centrifuge, channels.accountOrders(address), {
        onData: (row) => {
          recordOrders(address, [strip(row)]);
          reload();
        },
        // What the channel missed may include orders that ended: the history reads them again too.
        reseed: () => {
          reload();
          void loadEndedOrders(address);
        },
      }),
      follow(centrifuge, channels.accountTrades(address), handlers),
      follow(centrifuge, channels.accountFills(), handlers),
      follow(centrifuge, channels.ceRefunds(address), {
        onData: (update) => {
          setPushedRefunds((old) => mergeRefunds(old, update));
          reload();
        },
        reseed: reload,
      }),
    ];
    return () => {
      for (const stop of stops) stop();
    };
  }, [centrifuge, address]);

  const value = rows.value;
  return {
    orders: value?.orders ?? [],
    trades: value?.trades ?? [],
    fills: value?.fills ?? [],
    positions: value?.positions ?? [],
    refunds: mergeRefunds(value?.refunds ?? [], pushedRefunds),
    balance: value?.balance,
    error: rows.error,
    reload,
  };
}
