import type { Database, Statement } from 'better-sqlite3';
import {
  type FillRecord,
  type TradeRecord,
  toFill,
  toTrade,
} from '../../store/sqlite/sqlite-trading-queries.js';

/** The projection rows escrow-lock publications need, read after the chain's update. */
export type TradingRows = {
  trade(tradeId: string): TradeRecord | null;
  fill(fillId: string): FillRecord | null;
};

/** Reads by id on the trading projections, with the column mappings of `sqlite-trading-queries.ts`. */
export function sqliteTradingRows(db: Database): TradingRows {
  const s: Record<string, Statement> = {
    trade: db.prepare('SELECT * FROM trades WHERE id = ?'),
    fill: db.prepare('SELECT * FROM fills WHERE id = ?'),
  };
  return {
    trade(tradeId) {
      const row = s.trade!.get(tradeId) as Record<string, unknown> | undefined;
      return row ? toTrade(row) : null;
    },
    fill(fillId) {
      const row = s.fill!.get(fillId) as Record<string, unknown> | undefined;
      return row ? toFill(row) : null;
    },
  };
}
