import type { Database, Statement } from 'better-sqlite3';
import { quarterLineParentTrade } from '../../records/quarter-line-parent.js';
import type { FillRecord, OrderRecord, PositionRecord, TradeRecord } from '../../records/records.js';
import { legTradeIdOf } from '../../records/records.js';
import type { EscrowReceipt } from '../../sequencer/inputs.js';
import type {
  ConsolidatedTradeFilter,
  ConsolidatedTradeRecord,
  FillFilter,
  Listing,
  MarketRefundsPage,
  MarketTradeFilter,
  OrderFilter,
  OrderListing,
  OrderScope,
  OrderSort,
  Page,
  PositionFilter,
  RefundFilter,
  RefundPage,
  SignedOrderRecord,
  TradeFilter,
  TradingReads,
} from '../trading-reads.js';
import { toOrder, toPosition, toRefund, toShownFill, toShownTrade } from '../trading-rows.js';

/**
 * The SQL sort columns of each listing (`trading-reads.ts`), in the order of its `keyOf` values: a page key
 * holds those values, and the keyset condition compares them with these columns.
 */
const ORDER_COLUMNS: Record<OrderSort, readonly string[]> = {
  createdAt: ['created_at', 'id'],
  event: ['event_id', 'market_hash', 'created_at', 'id'],
  // Canonical decimal strings sort numerically by length first.
  totalBetSize: ['length(total_bet_size)', 'total_bet_size', 'created_at', 'id'],
};
/**
 * The status condition of each order listing: the WHERE of its partial index on (account, created_at)
 * (`orders_open_by_account`, `orders_ended_by_account`), written the same so that the planner uses it.
 */
const ORDER_SCOPES: Record<OrderScope, string> = {
  open: "status <> 'INACTIVE'",
  ended: "status = 'INACTIVE'",
};
const FILL_COLUMNS: readonly string[] = ['created_at', 'seq', 'id'];
const TRADE_COLUMNS: readonly string[] = ['created_at', 'id'];

/**
 * The SQL of a keyset page: the row-value condition after the key (the index seeks to it, no rows are
 * skipped over), the ORDER BY and the LIMIT, with their parameters.
 */
function keyset(columns: readonly string[], asc: boolean, page: Page) {
  const dir = asc ? 'ASC' : 'DESC';
  const params: Record<string, string | number> = { limit: page.limit };
  let where: string | null = null;
  if (page.after) {
    page.after.forEach((v, i) => {
      params[`k${i}`] = v;
    });
    where = `(${columns.join(', ')}) ${asc ? '>' : '<'} (${page.after.map((_, i) => `@k${i}`).join(', ')})`;
  }
  return {
    where,
    tail: `ORDER BY ${columns.map((c) => `${c} ${dir}`).join(', ')} LIMIT @limit`,
    params,
  };
}

/**
 * Fills and trades with what decides how they show (`records/shown.ts`): their account's chain watermark,
 * their market's resolution and the account's payout in it; a trade also with whether its market has had a
 * refund. Used as a table (the planner flattens it: the row table's indexes serve the conditions).
 */
const withSettlement = (table: 'fills' | 'trades', x: 'f' | 't', extra = '') =>
  `(SELECT ${x}.*, l.through_seq AS lock_seq, l.locked_at AS locked_at, s.outcome AS resolved_outcome,
      s.settled_at AS resolved_at, p.market_hash IS NOT NULL AS has_payout, p.paid_at AS paid_at${extra}
    FROM ${table} ${x} LEFT JOIN escrow_locks l ON l.account = ${x}.account
      LEFT JOIN market_settlements s ON s.market_hash = ${x}.market_hash
      LEFT JOIN settlement_payouts p ON p.market_hash = ${x}.market_hash AND p.account = ${x}.account)`;
export const FILLS = withSettlement('fills', 'f');
export const TRADES = withSettlement(
  'trades',
  't',
  ', EXISTS (SELECT 1 FROM ce_refunds r WHERE r.market_hash = t.market_hash) AS market_has_refunds',
);

/** A trade filter's market: the trade's own, or the quarter-line market it is a leg of. */
const MARKET_OR_PARENT = '(market_hash = @marketHash OR quarter_line_parent = @marketHash)';

/**
 * Read side of trading on the SQLite projections. Fills and trades are read with their settlement state
 * and shown by the rules of `records/shown.ts` (LOCKED, SETTLED, the payout); a status filter is applied to
 * the rows as shown. Answers are promises, as of any store; SQLite answers at once underneath.
 */
export class SqliteTradingQueries implements TradingReads {
  private readonly s: Record<string, Statement>;
  private readonly escrow: Record<'range' | 'one', { fills: Statement; trades: Statement }>;

  constructor(private readonly db: Database) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      order: p('SELECT * FROM orders WHERE id = ? AND account = ?'),
      // A tag may name a new order once the one before expired (migration 20): the newest is the one meant.
      orderByClientId: p(
        'SELECT * FROM orders WHERE account = ? AND client_order_id = ? ORDER BY created_at DESC, id DESC LIMIT 1',
      ),
      // Through the market's trades (`+account` keeps the planner off the per-account indexes): the cost is
      // the market's size, never the accounts' whole histories (a market maker's may be millions of rows).
      accountsWithFills: p(
        'SELECT DISTINCT account FROM fills INDEXED BY fills_by_seq WHERE seq BETWEEN ? AND ?',
      ).pluck(),
      windowFills: p(`SELECT * FROM ${FILLS} WHERE seq BETWEEN @firstSeq AND @lastSeq
          AND +account IN (SELECT value FROM json_each(@accounts)) ORDER BY seq, id`),
      windowTrades: p(`SELECT * FROM ${TRADES} WHERE account IN (SELECT value FROM json_each(@accounts))
          AND last_fill_seq BETWEEN @firstSeq AND @lastSeq ORDER BY last_fill_seq, id`),
      paidPayouts: p(`SELECT market_hash AS marketHash, account FROM settlement_payouts
          WHERE seq BETWEEN ? AND ? AND paid_at = ?`),
      marketTrades: p(`SELECT * FROM ${TRADES}
        WHERE market_hash = @marketHash AND +account IN (SELECT value FROM json_each(@accounts))
        ORDER BY created_at, id`),
      // A quarter-line order's fills are on both legs: only this market's.
      marketFills: p(`SELECT * FROM ${FILLS}
        WHERE order_id IN (SELECT order_id FROM trades
            WHERE market_hash = @marketHash AND +account IN (SELECT value FROM json_each(@accounts)))
          AND market_hash = @marketHash ORDER BY seq, id`),
      tradesById: p(`SELECT * FROM ${TRADES} WHERE id IN (SELECT value FROM json_each(?))`),
      settlements: p('SELECT market_hash AS marketHash, outcome FROM market_settlements'),
    };
    // An escrow's fills: one account's in a seq range, found by the account's index within the times of
    // the range's first and last seq (a fill's created_at is its entry's time); or one legacy fill.
    const range = `account = @account
      AND created_at BETWEEN (SELECT created_at FROM fills INDEXED BY fills_by_seq WHERE seq = @firstSeq LIMIT 1)
        AND (SELECT created_at FROM fills INDEXED BY fills_by_seq WHERE seq = @lastSeq LIMIT 1)
      AND seq BETWEEN @firstSeq AND @lastSeq`;
    const one = 'seq = @seq AND id = @id';
    const escrow = (where: string) => ({
      fills: p(`SELECT * FROM ${FILLS} WHERE ${where} ORDER BY seq, id`),
      // A landed escrow (@ok = 1) decides the trades whose last fill it covers, a failed one all of them.
      trades: p(`SELECT * FROM ${TRADES} WHERE id IN (SELECT trade_id FROM fills WHERE ${where})
          AND (@ok = 0 OR last_fill_seq <= @lastSeq) ORDER BY last_fill_seq, id`),
    });
    this.escrow = { range: escrow(range), one: escrow(one) };
  }

  async escrowRows(receipt: EscrowReceipt): Promise<{ fills: FillRecord[]; trades: TradeRecord[] }> {
    // A legacy fill id starts with its match id, `<seq>-<n>`: its seq is the range's last.
    const seq = 'fillId' in receipt ? Number.parseInt(receipt.fillId, 10) : receipt.lastSeq;
    const [statements, params] =
      'fillId' in receipt
        ? [this.escrow.one, { seq, id: receipt.fillId, lastSeq: seq }]
        : [this.escrow.range, { account: receipt.account, firstSeq: receipt.firstSeq, lastSeq: seq }];
    return {
      fills: rowsOf(statements.fills.all(params)).map(toShownFill),
      trades: rowsOf(statements.trades.all({ ...params, ok: receipt.ok ? 1 : 0 })).map(toShownTrade),
    };
  }

  async settledOf(
    marketHash: string,
    accounts: readonly string[],
  ): Promise<{ trades: TradeRecord[]; fills: FillRecord[] }> {
    const params = { marketHash, accounts: JSON.stringify(accounts) };
    return {
      trades: rowsOf(this.s.marketTrades!.all(params))
        .map(toShownTrade)
        .filter((t) => t.status === 'SETTLED'),
      fills: rowsOf(this.s.marketFills!.all(params))
        .map(toShownFill)
        .filter((f) => f.status === 'SETTLED'),
    };
  }

  async accountsWithFills(firstSeq: number, lastSeq: number): Promise<string[]> {
    return this.s.accountsWithFills!.all(firstSeq, lastSeq) as string[];
  }

  async lockedRows(
    firstSeq: number,
    lastSeq: number,
    accounts: readonly string[],
  ): Promise<{ fills: FillRecord[]; trades: TradeRecord[] }> {
    const params = { firstSeq, lastSeq, accounts: JSON.stringify(accounts) };
    return {
      fills: rowsOf(this.s.windowFills!.all(params))
        .map(toShownFill)
        .filter((f) => f.status === 'LOCKED'),
      trades: rowsOf(this.s.windowTrades!.all(params))
        .map(toShownTrade)
        .filter((t) => t.status === 'LOCKED'),
    };
  }

  async paidPayouts(
    firstSeq: number,
    lastSeq: number,
    paidAt: number,
  ): Promise<{ marketHash: string; account: string }[]> {
    return this.s.paidPayouts!.all(firstSeq, lastSeq, paidAt) as { marketHash: string; account: string }[];
  }

  async settlements(): Promise<{ marketHash: string; outcome: 0 | 1 | 2 }[]> {
    return this.s.settlements!.all() as { marketHash: string; outcome: 0 | 1 | 2 }[];
  }

  async getOrder(account: string, orderId: string): Promise<OrderRecord | null> {
    const row = this.s.order!.get(orderId, account) as Record<string, unknown> | undefined;
    return row ? toOrder(row) : null;
  }

  async getOrderByClientId(account: string, clientOrderId: string): Promise<OrderRecord | null> {
    const row = this.s.orderByClientId!.get(account, clientOrderId) as Record<string, unknown> | undefined;
    return row ? toOrder(row) : null;
  }

  /** A keyset page of the account's orders of the listing's scope, through that scope's partial index. */
  async orders(
    account: string,
    filter: OrderFilter,
    listing: OrderListing,
    page: Page,
  ): Promise<OrderRecord[]> {
    const where = ['account = @account', ORDER_SCOPES[listing.scope]];
    if (filter.marketHash) where.push('market_hash = @marketHash');
    if (filter.eventId) where.push('event_id = @eventId');
    return this.list(
      'orders',
      where,
      { account, ...filter },
      ORDER_COLUMNS[listing.sortBy],
      listing.asc,
      page,
    ).map(toOrder);
  }

  async fills(
    account: string,
    filter: FillFilter,
    listing: Listing<FillRecord>,
    page: Page,
  ): Promise<FillRecord[]> {
    const where = ['account = @account'];
    // Through the trade's order: fills are indexed by order id (a trade is one order's fills).
    if (filter.tradeId)
      where.push('order_id = (SELECT order_id FROM trades WHERE id = @tradeId)', 'trade_id = @tradeId');
    if (filter.orderId) where.push('order_id = @orderId');
    if (filter.startDate !== undefined) where.push('created_at >= @startDate');
    if (filter.endDate !== undefined) where.push('created_at <= @endDate');
    return this.list(FILLS, where, { account, ...filter }, FILL_COLUMNS, listing.asc, page).map(toShownFill);
  }

  /** The account's trades; a status filter keeps the rows that show one of its statuses. */
  async trades(
    account: string,
    filter: TradeFilter,
    listing: Listing<TradeRecord>,
    page: Page,
  ): Promise<TradeRecord[]> {
    const where = ['account = @account'];
    if (filter.marketHash) where.push(MARKET_OR_PARENT);
    if (filter.startDate !== undefined) where.push('created_at >= @startDate');
    if (filter.endDate !== undefined) where.push('created_at <= @endDate');
    const params = { account, ...filter, status: undefined };
    const read = (p: Page) =>
      this.list(TRADES, where, params, TRADE_COLUMNS, listing.asc, p).map(toShownTrade);
    const statuses = filter.status;
    if (!statuses?.length) return read(page);
    return keptPage(read, listing, page, (t) => statuses.includes(t.status));
  }

  async positions(account: string, filter: PositionFilter, page: Page): Promise<PositionRecord[]> {
    const where = ['p.account = @account'];
    if (filter.marketHash) where.push('p.market_hash = @marketHash');
    if (filter.eventId) where.push('m.event_id = @eventId');
    if (page.after) where.push('p.market_hash > @after');
    // engine_markets is written with the positions (same projection batch): every position's market is there.
    return rowsOf(
      this.db
        .prepare(`SELECT p.*, m.event_id FROM positions p LEFT JOIN engine_markets m ON m.market_hash = p.market_hash
          WHERE ${where.join(' AND ')} ORDER BY p.market_hash LIMIT @limit`)
        .all({ account, ...filter, after: page.after?.[0], limit: page.limit }),
    ).map(toPosition);
  }

  async refunds(
    account: string,
    filter: RefundFilter,
    page: RefundPage,
  ): Promise<{ markets: MarketRefundsPage[]; count: number }> {
    const where = ['account = @account'];
    if (filter.marketHash) where.push('market_hash = @marketHash');
    if (filter.fillId) where.push('fill_id = @fillId');
    if (filter.maker !== undefined) where.push('is_maker = @isMaker');
    const params = {
      account,
      marketHash: filter.marketHash,
      fillId: filter.fillId,
      isMaker: filter.maker ? 1 : 0,
    };
    const matching = `SELECT * FROM ce_refunds WHERE ${where.join(' AND ')}`;
    const dir = page.sortAsc ? 'ASC' : 'DESC';
    const count = this.db
      .prepare(`SELECT count(DISTINCT market_hash) FROM (${matching})`)
      .pluck()
      .get(params) as number;
    const markets = this.db
      .prepare(`SELECT market_hash, min(seq) AS first_seq FROM (${matching}) GROUP BY market_hash
        ORDER BY first_seq ${dir}, market_hash ${dir} LIMIT @limit OFFSET @offset`)
      .pluck()
      .all({ ...params, limit: page.limit, offset: page.offset }) as string[];
    if (markets.length === 0) return { markets: [], count };
    // One market's matching refunds at a time, each a range of ce_refunds_by_account (account, market, seq).
    const inMarket = `${where.join(' AND ')} AND market_hash = @market`;
    const eventCount = this.db.prepare(`SELECT count(*) FROM ce_refunds WHERE ${inMarket}`).pluck();
    const events = this.db.prepare(
      `SELECT * FROM ce_refunds WHERE ${inMarket} ORDER BY seq ${dir}, fill_id ${dir} LIMIT @limit OFFSET @offset`,
    );
    const total = this.db
      .prepare(
        'SELECT refunded_total FROM ce_refunds WHERE account = ? AND market_hash = ? ORDER BY seq DESC LIMIT 1',
      )
      .pluck();
    return {
      markets: markets.map((marketHash) => ({
        marketHash,
        totalRefunded: total.get(account, marketHash) as string,
        eventCount: eventCount.get({ ...params, market: marketHash }) as number,
        events: rowsOf(
          events.all({ ...params, market: marketHash, limit: page.eventsLimit, offset: page.eventsOffset }),
        ).map(toRefund),
      })),
      count,
    };
  }

  /** Taker bets, newest first: the public tape. */
  async signedOrders(orderIds: readonly string[]): Promise<SignedOrderRecord[]> {
    const out: SignedOrderRecord[] = [];
    for (let i = 0; i < orderIds.length; i += 500) {
      const ids = orderIds.slice(i, i + 500);
      const rows = rowsOf(
        this.db.prepare(`SELECT * FROM orders WHERE id IN (${ids.map(() => '?').join(', ')})`).all(...ids),
      );
      for (const r of rows)
        out.push({
          ...toOrder(r),
          salt: r.salt as string,
          signature: r.signature as string,
          baseToken: r.base_token as string,
        });
    }
    return out;
  }

  async marketTrades(
    filter: MarketTradeFilter,
    listing: Listing<TradeRecord>,
    page: Page,
  ): Promise<TradeRecord[]> {
    const where: string[] = ['1 = 1'];
    const params: Record<string, unknown> = {};
    const list = (name: string, values: readonly string[], column: string) => {
      values.forEach((v, i) => {
        params[`${name}${i}`] = v;
      });
      where.push(`${column} IN (${values.map((_, i) => `@${name}${i}`).join(', ')})`);
    };
    if (filter.account !== undefined) {
      where.push('account = @account');
      params.account = filter.account;
    }
    if (filter.marketHashes?.length) list('m', filter.marketHashes, 'market_hash');
    if (filter.orderIds?.length) list('o', filter.orderIds, 'order_id');
    if (filter.eventId !== undefined) {
      where.push('event_id = @eventId');
      params.eventId = filter.eventId;
    }
    if (filter.startDate !== undefined) {
      where.push('created_at >= @startDate');
      params.startDate = filter.startDate;
    }
    if (filter.endDate !== undefined) {
      where.push('created_at <= @endDate');
      params.endDate = filter.endDate;
    }
    return this.list(TRADES, where, params, TRADE_COLUMNS, listing.asc, page).map(toShownTrade);
  }

  async publicTrades(
    filter: { marketHash?: string },
    listing: Listing<TradeRecord>,
    page: Page,
  ): Promise<TradeRecord[]> {
    const where = ['is_maker = 0'];
    if (filter.marketHash) where.push('market_hash = @marketHash');
    return this.list(TRADES, where, filter, TRADE_COLUMNS, listing.asc, page).map(toShownTrade);
  }

  /**
   * The account's trades with each quarter-line bet's synthetic parent: the page's keys are found first
   * (ordinary and leg trades, and one key per quarter-line order), then its rows read by id, the parents
   * built from their legs (`quarterLineParentTrade`).
   */
  async consolidatedTrades(
    account: string,
    filter: ConsolidatedTradeFilter,
    listing: Listing<ConsolidatedTradeRecord>,
    page: Page,
  ): Promise<ConsolidatedTradeRecord[]> {
    const params: Record<string, unknown> = { account, marketHash: filter.marketHash };
    const common: string[] = [];
    if (filter.startDate !== undefined) {
      common.push('t.created_at >= @startDate');
      params.startDate = filter.startDate;
    }
    if (filter.endDate !== undefined) {
      common.push('t.created_at <= @endDate');
      params.endDate = filter.endDate;
    }
    // Each branch seeks the account's index from the page key's time and stops after a page (only a time's
    // ties are sorted); the two pages are then merged.
    if (page.after) {
      common.push(`t.created_at ${listing.asc ? '>=' : '<='} @after`);
      params.after = page.after[0];
    }
    const dir = listing.asc ? 'ASC' : 'DESC';
    const branch = (select: string, from: string, where: string[], rank: string) => {
      const k = keyset(['t.created_at', 't.order_id', rank], listing.asc, page);
      Object.assign(params, k.params);
      const conditions = k.where ? [...where, k.where] : where;
      return `SELECT * FROM (SELECT t.created_at AS created_at, t.order_id AS order_id, ${rank} AS rank, ${select}
        FROM ${from} WHERE ${conditions.join(' AND ')} ${k.tail})`;
    };
    const trades = ['t.account = @account', ...common];
    if (filter.marketHash)
      trades.push('(t.market_hash = @marketHash OR t.quarter_line_parent = @marketHash)');
    if (filter.hideQuarterLineLegs) trades.push('t.quarter_line_parent IS NULL');
    const branches = [
      branch(
        't.id AS trade_id',
        'trades t LEFT JOIN engine_markets m ON m.market_hash = t.quarter_line_parent',
        trades,
        'CASE WHEN t.quarter_line_parent IS NULL THEN 0 WHEN t.market_hash = m.whole_leg THEN 1 ELSE 2 END',
      ),
    ];
    if (!filter.hideQuarterLineParents) {
      // A parent's key comes from its whole-line leg's row (one per quarter-line order).
      const parents = ['t.account = @account', 't.quarter_line_parent IS NOT NULL', ...common];
      if (filter.marketHash) parents.push('t.quarter_line_parent = @marketHash');
      branches.push(
        branch(
          'NULL AS trade_id',
          'trades t JOIN engine_markets m ON m.market_hash = t.quarter_line_parent AND m.whole_leg = t.market_hash',
          parents,
          // Not a bare 0, which ORDER BY would read as a column number.
          'abs(0)',
        ),
      );
    }
    const keys = this.db
      .prepare(
        `${branches.join(' UNION ALL ')} ORDER BY created_at ${dir}, order_id ${dir}, rank ${dir} LIMIT @limit`,
      )
      .all(params) as {
      order_id: string;
      rank: number;
      trade_id: string | null;
    }[];
    const ids = keys.flatMap((key) =>
      key.trade_id !== null ? [key.trade_id] : [legTradeIdOf(key.order_id, 0), legTradeIdOf(key.order_id, 1)],
    );
    const byId = new Map(
      rowsOf(this.s.tradesById!.all(JSON.stringify(ids))).map((row) => [row.id as string, toShownTrade(row)]),
    );
    return keys.flatMap((key): ConsolidatedTradeRecord[] => {
      if (key.trade_id === null) {
        const whole = byId.get(legTradeIdOf(key.order_id, 0));
        const half = byId.get(legTradeIdOf(key.order_id, 1));
        if (!whole || !half) return [];
        return [{ kind: 'parent', trade: quarterLineParentTrade(whole, half), legIndex: null }];
      }
      const trade = byId.get(key.trade_id);
      if (!trade) return [];
      return key.rank === 0
        ? [{ kind: 'trade', trade, legIndex: null }]
        : [{ kind: 'leg', trade, legIndex: key.rank === 1 ? 0 : 1 }];
    });
  }

  /** One keyset page of `source` rows matching every `where` condition, in the order of `columns`. */
  private list(
    source: string,
    where: string[],
    params: Record<string, unknown>,
    columns: readonly string[],
    asc: boolean,
    page: Page,
  ): Record<string, unknown>[] {
    const k = keyset(columns, asc, page);
    const conditions = k.where ? [...where, k.where] : where;
    return this.db
      .prepare(`SELECT * FROM ${source} WHERE ${conditions.join(' AND ')} ${k.tail}`)
      .all({ ...params, ...k.params }) as Record<string, unknown>[];
  }
}

const rowsOf = (rows: unknown[]) => rows as Record<string, unknown>[];

/**
 * A keyset page of the rows `keep` keeps: pages of `read` in turn from `page.after`, until `page.limit` rows
 * are kept or the rows run out (a filter on how rows show cannot be a condition of the store's query).
 */
function keptPage<T>(
  read: (page: Page) => T[],
  listing: Listing<T>,
  page: Page,
  keep: (row: T) => boolean,
): T[] {
  const kept: T[] = [];
  let after = page.after;
  for (;;) {
    const rows = read({ limit: page.limit, after });
    for (const row of rows) {
      if (keep(row)) kept.push(row);
      if (kept.length === page.limit) return kept;
    }
    if (rows.length < page.limit) return kept;
    after = listing.keyOf(rows[rows.length - 1]!);
  }
}
