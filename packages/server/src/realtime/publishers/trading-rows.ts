import type { Database, Statement } from 'better-sqlite3';
import type {
  FillRecord,
  OrderRecord,
  SqliteTradingQueries,
  TradeRecord,
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

const toTrade = (r: Record<string, unknown>): TradeRecord => ({
  id: r.id as string,
  orderId: r.order_id as string,
  account: r.account as string,
  marketHash: r.market_hash as string,
  eventId: r.event_id as string,
  isBettingOutcomeOne: r.is_outcome_one === 1,
  isMaker: r.is_maker === 1,
  stake: r.stake as string,
  pot: r.pot as string,
  status: r.status as string,
  outcome: (r.outcome as number | null) ?? null,
  payout: (r.payout as string | null) ?? null,
  createdAt: r.created_at as number,
  updatedAt: r.updated_at as number,
});

const toFill = (r: Record<string, unknown>): FillRecord => ({
  id: r.id as string,
  matchId: r.match_id as string,
  orderId: r.order_id as string,
  tradeId: r.trade_id as string,
  account: r.account as string,
  marketHash: r.market_hash as string,
  isBettingOutcomeOne: r.is_outcome_one === 1,
  isMaker: r.is_maker === 1,
  fillAmount: r.fill_amount as string,
  pot: r.pot as string,
  fillOdds: r.fill_odds as string,
  status: r.status as string,
  createdAt: r.created_at as number,
});

/**
 * Reads by id on the trading projections. Orders go through the REST reader; trades and fills by id are
 * not offered there, so they are read here with the same column mapping as `sqlite-trading-queries.ts`.
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
