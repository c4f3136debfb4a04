import type { Database, Statement } from 'better-sqlite3';
import {
  type FillRecord,
  type OrderRecord,
  type SqliteTradingQueries,
  type TradeRecord,
  toFill,
  toTrade,
} from '../../store/sqlite/sqlite-trading-queries.js';

/** The projection rows the trading publications need, read after the batch committed. */
export type TradingRows = {
  order(account: string, orderId: string): OrderRecord | null;
  /** Owner and create command of an order (a withdrawal names only the order ids). */
  orderRef(orderId: string): { account: string; commandId: string } | null;
  trade(tradeId: string): TradeRecord | null;
  fill(fillId: string): FillRecord | null;
  /** Rows settled by a market's resolution. */
  settledTrades(marketHash: string): TradeRecord[];
  settledFills(marketHash: string): FillRecord[];
};

/**
 * Reads by id on the trading projections, with the column mappings of `sqlite-trading-queries.ts`.
 */
export function sqliteTradingRows(db: Database, queries: SqliteTradingQueries): TradingRows {
  const s: Record<string, Statement> = {
    orderRef: db.prepare('SELECT account, command_id FROM orders WHERE id = ?'),
    trade: db.prepare('SELECT * FROM trades WHERE id = ?'),
    fill: db.prepare('SELECT * FROM fills WHERE id = ?'),
    settledTrades: db.prepare(
      "SELECT * FROM trades WHERE market_hash = ? AND status = 'SETTLED' ORDER BY created_at, id",
    ),
    settledFills: db.prepare(
      // Through the trades (indexed by market): fills have no market index.
      `SELECT f.* FROM trades t JOIN fills f ON f.trade_id = t.id
        WHERE t.market_hash = ? AND f.status = 'SETTLED' ORDER BY f.seq, f.id`,
    ),
  };
  return {
    order: (account, orderId) => queries.getOrder(account, orderId),
    orderRef(orderId) {
      const row = s.orderRef!.get(orderId) as { account: string; command_id: string } | undefined;
      return row ? { account: row.account, commandId: row.command_id } : null;
    },
    trade(tradeId) {
      const row = s.trade!.get(tradeId) as Record<string, unknown> | undefined;
      return row ? toTrade(row) : null;
    },
    fill(fillId) {
      const row = s.fill!.get(fillId) as Record<string, unknown> | undefined;
      return row ? toFill(row) : null;
    },
    settledTrades: (marketHash) =>
      (s.settledTrades!.all(marketHash) as Record<string, unknown>[]).map(toTrade),
    settledFills: (marketHash) => (s.settledFills!.all(marketHash) as Record<string, unknown>[]).map(toFill),
  };
}
