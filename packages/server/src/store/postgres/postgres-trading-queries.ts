import type pg from 'pg';
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
import { holdsNul, named } from './named-parameters.js';
import { FILLS, TRADES } from './trading-rows.js';

type Row = Record<string, unknown>;

/**
 * The SQL sort columns of each listing (`trading-reads.ts`), in the order of its `keyOf` values, each with
 * the type its page key value is compared as.
 */
const ORDER_COLUMNS: Record<OrderSort, readonly string[]> = {
  createdAt: ['created_at', 'id'],
  event: ['event_id', 'market_hash', 'created_at', 'id'],
  // Canonical decimal strings sort numerically by length first: as numbers, here.
  totalBetSize: ['length(total_bet_size::text)', 'total_bet_size', 'created_at', 'id'],
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

/** How a page key's value is typed in SQL: numbers are BIGINT, text is text (a NUMERIC column casts it). */
const keyParam = (name: string, value: string | number) =>
  typeof value === 'number' ? `@${name}::bigint` : `@${name}::text`;

/**
 * The SQL of a keyset page: the row-value condition after the key (the index seeks to it, no rows are
 * skipped over), the ORDER BY and the LIMIT, with their parameters.
 */
function keyset(columns: readonly string[], asc: boolean, page: Page) {
  const dir = asc ? 'ASC' : 'DESC';
  const params: Record<string, string | number> = { limit: page.limit };
  let where: string | null = null;
  if (page.after) {
    const values = page.after.map((v, i) => {
      params[`k${i}`] = v;
      const typed = keyParam(`k${i}`, v);
      // A decimal string compared with a NUMERIC column is read as a number.
      return columns[i] === 'total_bet_size' ? `(${typed})::numeric` : typed;
    });
    where = `(${columns.join(', ')}) ${asc ? '>' : '<'} (${values.join(', ')})`;
  }
  return {
    where,
    tail: `ORDER BY ${columns.map((c) => `${c} ${dir}`).join(', ')} LIMIT @limit`,
    params,
  };
}

/** A trade filter's market: the trade's own, or the quarter-line market it is a leg of. */
const MARKET_OR_PARENT = '(market_hash = @marketHash OR quarter_line_parent = @marketHash)';

/**
 * Read side of trading on the PostgreSQL projections, query for query the SQLite one's (account lists are
 * arrays, `= ANY(...)`). Fills and trades are read with their settlement state and shown by the rules of
 * `records/shown.ts`; a status filter is applied to the rows as shown.
 */
export class PostgresTradingQueries implements TradingReads {
  constructor(private readonly pool: pg.Pool) {}

  private async all(text: string, params: Record<string, unknown> = {}): Promise<Row[]> {
    const query = named(text, params);
    if (holdsNul(query.values)) return [];
    return (await this.pool.query(query.text, query.values)).rows;
  }

  async escrowRows(receipt: EscrowReceipt): Promise<{ fills: FillRecord[]; trades: TradeRecord[] }> {
    // A legacy fill id starts with its match id, `<seq>-<n>`: its seq is the range's last.
    const seq = 'fillId' in receipt ? Number.parseInt(receipt.fillId, 10) : receipt.lastSeq;
    const [where, params] =
      'fillId' in receipt
        ? ['seq = @seq AND id = @id', { seq, id: receipt.fillId, lastSeq: seq }]
        : [
            // One account's fills in a seq range, found by the account's index within the times of the
            // range's first and last seq (a fill's created_at is its entry's time).
            `account = @account
              AND created_at BETWEEN (SELECT created_at FROM fills WHERE seq = @firstSeq LIMIT 1)
                AND (SELECT created_at FROM fills WHERE seq = @lastSeq LIMIT 1)
              AND seq BETWEEN @firstSeq AND @lastSeq`,
            { account: receipt.account, firstSeq: receipt.firstSeq, lastSeq: seq },
          ];
    const [fills, trades] = await Promise.all([
      this.all(`SELECT * FROM ${FILLS} WHERE ${where} ORDER BY seq, id`, params),
      // A landed escrow decides the trades whose last fill it covers, a failed one all of them.
      this.all(
        `SELECT * FROM ${TRADES} WHERE id IN (SELECT trade_id FROM fills WHERE ${where})
          ${receipt.ok ? 'AND last_fill_seq <= @lastSeq' : ''} ORDER BY last_fill_seq, id`,
        params,
      ),
    ]);
    return { fills: fills.map(toShownFill), trades: trades.map(toShownTrade) };
  }

  async settledOf(
    marketHash: string,
    accounts: readonly string[],
  ): Promise<{ trades: TradeRecord[]; fills: FillRecord[] }> {
    const params = { marketHash, accounts };
    const [trades, fills] = await Promise.all([
      this.all(
        `SELECT * FROM ${TRADES} WHERE market_hash = @marketHash AND account = ANY(@accounts::text[])
          ORDER BY created_at, id`,
        params,
      ),
      // A quarter-line order's fills are on both legs: only this market's.
      this.all(
        `SELECT * FROM ${FILLS}
          WHERE order_id IN (SELECT order_id FROM trades
              WHERE market_hash = @marketHash AND account = ANY(@accounts::text[]))
            AND market_hash = @marketHash ORDER BY seq, id`,
        params,
      ),
    ]);
    return {
      trades: trades.map(toShownTrade).filter((t) => t.status === 'SETTLED'),
      fills: fills.map(toShownFill).filter((f) => f.status === 'SETTLED'),
    };
  }

  async accountsWithFills(firstSeq: number, lastSeq: number): Promise<string[]> {
    const rows = await this.all(
      'SELECT DISTINCT account FROM fills WHERE seq BETWEEN @firstSeq AND @lastSeq ORDER BY account',
      { firstSeq, lastSeq },
    );
    return rows.map((r) => r.account as string);
  }

  async lockedRows(
    firstSeq: number,
    lastSeq: number,
    accounts: readonly string[],
  ): Promise<{ fills: FillRecord[]; trades: TradeRecord[] }> {
    const params = { firstSeq, lastSeq, accounts };
    const [fills, trades] = await Promise.all([
      this.all(
        `SELECT * FROM ${FILLS} WHERE seq BETWEEN @firstSeq AND @lastSeq AND account = ANY(@accounts::text[])
          ORDER BY seq, id`,
        params,
      ),
      this.all(
        `SELECT * FROM ${TRADES} WHERE account = ANY(@accounts::text[])
          AND last_fill_seq BETWEEN @firstSeq AND @lastSeq ORDER BY last_fill_seq, id`,
        params,
      ),
    ]);
    return {
      fills: fills.map(toShownFill).filter((f) => f.status === 'LOCKED'),
      trades: trades.map(toShownTrade).filter((t) => t.status === 'LOCKED'),
    };
  }

  async paidPayouts(
    firstSeq: number,
    lastSeq: number,
    paidAt: number,
  ): Promise<{ marketHash: string; account: string }[]> {
    const rows = await this.all(
      `SELECT market_hash, account FROM settlement_payouts
        WHERE seq BETWEEN @firstSeq AND @lastSeq AND paid_at = @paidAt ORDER BY market_hash, account`,
      { firstSeq, lastSeq, paidAt },
    );
    return rows.map((r) => ({ marketHash: r.market_hash as string, account: r.account as string }));
  }

  async settlements(): Promise<{ marketHash: string; outcome: 0 | 1 | 2 }[]> {
    const rows = await this.all('SELECT market_hash, outcome FROM market_settlements ORDER BY market_hash');
    return rows.map((r) => ({ marketHash: r.market_hash as string, outcome: r.outcome as 0 | 1 | 2 }));
  }

  async getOrder(account: string, orderId: string): Promise<OrderRecord | null> {
    const [row] = await this.all('SELECT * FROM orders WHERE id = @orderId AND account = @account', {
      orderId,
      account,
    });
    return row ? toOrder(row) : null;
  }

  async getOrderByClientId(account: string, clientOrderId: string): Promise<OrderRecord | null> {
    // A tag may name a new order once the one before expired: the newest is the one meant.
    const [row] = await this.all(
      `SELECT * FROM orders WHERE account = @account AND client_order_id = @clientOrderId
        ORDER BY created_at DESC, id DESC LIMIT 1`,
      { account, clientOrderId },
    );
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
    const rows = await this.list(
      'orders',
      where,
      { account, ...filter },
      ORDER_COLUMNS[listing.sortBy],
      listing.asc,
      page,
    );
    return rows.map(toOrder);
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
    const rows = await this.list(FILLS, where, { account, ...filter }, FILL_COLUMNS, listing.asc, page);
    return rows.map(toShownFill);
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
    const read = async (p: Page) =>
      (await this.list(TRADES, where, params, TRADE_COLUMNS, listing.asc, p)).map(toShownTrade);
    const statuses = filter.status;
    if (!statuses?.length) return read(page);
    return keptPage(read, listing, page, (t) => statuses.includes(t.status));
  }

  async positions(account: string, filter: PositionFilter, page: Page): Promise<PositionRecord[]> {
    const where = ['p.account = @account'];
    if (filter.marketHash) where.push('p.market_hash = @marketHash');
    if (filter.eventId) where.push('m.event_id = @eventId');
    if (page.after) where.push('p.market_hash > @after::text');
    // engine_markets is written with the positions (same projection batch): every position's market is there.
    const rows = await this.all(
      `SELECT p.*, m.event_id FROM positions p LEFT JOIN engine_markets m ON m.market_hash = p.market_hash
        WHERE ${where.join(' AND ')} ORDER BY p.market_hash LIMIT @limit`,
      { account, ...filter, after: page.after?.[0], limit: page.limit },
    );
    return rows.map(toPosition);
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
      isMaker: filter.maker === true,
    };
    const matching = `SELECT * FROM ce_refunds WHERE ${where.join(' AND ')}`;
    const dir = page.sortAsc ? 'ASC' : 'DESC';
    const [counted] = await this.all(
      `SELECT count(DISTINCT market_hash) AS n FROM (${matching}) AS matching`,
      params,
    );
    const count = (counted?.n as number | undefined) ?? 0;
    const markets = (
      await this.all(
        `SELECT market_hash, min(seq) AS first_seq FROM (${matching}) AS matching GROUP BY market_hash
          ORDER BY first_seq ${dir}, market_hash ${dir} LIMIT @limit OFFSET @offset`,
        { ...params, limit: page.limit, offset: page.offset },
      )
    ).map((r) => r.market_hash as string);
    if (markets.length === 0) return { markets: [], count };
    // One market's matching refunds at a time, each a range of ce_refunds_by_account (account, market, seq).
    const inMarket = `${where.join(' AND ')} AND market_hash = @market`;
    return {
      markets: await Promise.all(
        markets.map(async (marketHash) => {
          const market = { ...params, market: marketHash };
          const [total, events, eventCount] = await Promise.all([
            this.all(
              `SELECT refunded_total FROM ce_refunds WHERE account = @account AND market_hash = @market
                ORDER BY seq DESC LIMIT 1`,
              { account, market: marketHash },
            ),
            this.all(
              `SELECT * FROM ce_refunds WHERE ${inMarket} ORDER BY seq ${dir}, fill_id ${dir}
                LIMIT @limit OFFSET @offset`,
              { ...market, limit: page.eventsLimit, offset: page.eventsOffset },
            ),
            this.all(`SELECT count(*) AS n FROM ce_refunds WHERE ${inMarket}`, market),
          ]);
          return {
            marketHash,
            totalRefunded: total[0]!.refunded_total as string,
            eventCount: eventCount[0]!.n as number,
            events: events.map(toRefund),
          };
        }),
      ),
      count,
    };
  }

  /** Taker bets, newest first: the public tape. */
  async signedOrders(orderIds: readonly string[]): Promise<SignedOrderRecord[]> {
    if (orderIds.length === 0) return [];
    const rows = await this.all('SELECT * FROM orders WHERE id = ANY(@ids::text[])', { ids: [...orderIds] });
    return rows.map((r) => ({
      ...toOrder(r),
      salt: r.salt as string,
      signature: r.signature as string,
      baseToken: r.base_token as string,
    }));
  }

  async marketTrades(
    filter: MarketTradeFilter,
    listing: Listing<TradeRecord>,
    page: Page,
  ): Promise<TradeRecord[]> {
    const where: string[] = ['TRUE'];
    const params: Record<string, unknown> = {};
    if (filter.account !== undefined) {
      where.push('account = @account');
      params.account = filter.account;
    }
    if (filter.marketHashes?.length) {
      where.push('market_hash = ANY(@marketHashes::text[])');
      params.marketHashes = [...filter.marketHashes];
    }
    if (filter.orderIds?.length) {
      where.push('order_id = ANY(@orderIds::text[])');
      params.orderIds = [...filter.orderIds];
    }
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
    return (await this.list(TRADES, where, params, TRADE_COLUMNS, listing.asc, page)).map(toShownTrade);
  }

  async publicTrades(
    filter: { marketHash?: string },
    listing: Listing<TradeRecord>,
    page: Page,
  ): Promise<TradeRecord[]> {
    const where = ['NOT is_maker'];
    if (filter.marketHash) where.push('market_hash = @marketHash');
    return (await this.list(TRADES, where, filter, TRADE_COLUMNS, listing.asc, page)).map(toShownTrade);
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
      common.push(`t.created_at ${listing.asc ? '>=' : '<='} @after::bigint`);
      params.after = page.after[0];
    }
    const dir = listing.asc ? 'ASC' : 'DESC';
    let branches = 0;
    const branch = (select: string, from: string, where: string[], rank: string) => {
      const k = keyset(['t.created_at', 't.order_id', rank], listing.asc, page);
      Object.assign(params, k.params);
      const conditions = k.where ? [...where, k.where] : where;
      branches += 1;
      return `SELECT * FROM (SELECT t.created_at AS created_at, t.order_id AS order_id, ${rank} AS rank, ${select}
        FROM ${from} WHERE ${conditions.join(' AND ')} ${k.tail}) AS branch${branches}`;
    };
    const trades = ['t.account = @account', ...common];
    if (filter.marketHash)
      trades.push('(t.market_hash = @marketHash OR t.quarter_line_parent = @marketHash)');
    if (filter.hideQuarterLineLegs) trades.push('t.quarter_line_parent IS NULL');
    const sql = [
      branch(
        't.id AS trade_id',
        'trades t LEFT JOIN engine_markets m ON m.market_hash = t.quarter_line_parent',
        trades,
        '(CASE WHEN t.quarter_line_parent IS NULL THEN 0 WHEN t.market_hash = m.whole_leg THEN 1 ELSE 2 END)',
      ),
    ];
    if (!filter.hideQuarterLineParents) {
      // A parent's key comes from its whole-line leg's row (one per quarter-line order).
      const parents = ['t.account = @account', 't.quarter_line_parent IS NOT NULL', ...common];
      if (filter.marketHash) parents.push('t.quarter_line_parent = @marketHash');
      sql.push(
        branch(
          'NULL::text AS trade_id',
          'trades t JOIN engine_markets m ON m.market_hash = t.quarter_line_parent AND m.whole_leg = t.market_hash',
          parents,
          // Not a bare 0, which ORDER BY would read as a column number.
          'abs(0)',
        ),
      );
    }
    const keys = (await this.all(
      `${sql.join(' UNION ALL ')} ORDER BY created_at ${dir}, order_id ${dir}, rank ${dir} LIMIT @limit`,
      params,
    )) as { order_id: string; rank: number; trade_id: string | null }[];
    const ids = keys.flatMap((key) =>
      key.trade_id !== null ? [key.trade_id] : [legTradeIdOf(key.order_id, 0), legTradeIdOf(key.order_id, 1)],
    );
    const byId = new Map(
      (await this.all(`SELECT * FROM ${TRADES} WHERE id = ANY(@ids::text[])`, { ids })).map((row) => [
        row.id as string,
        toShownTrade(row),
      ]),
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
  ): Promise<Row[]> {
    const k = keyset(columns, asc, page);
    const conditions = k.where ? [...where, k.where] : where;
    return this.all(`SELECT * FROM ${source} WHERE ${conditions.join(' AND ')} ${k.tail}`, {
      ...params,
      ...k.params,
    });
  }
}

/**
 * A keyset page of the rows `keep` keeps: pages of `read` in turn from `page.after`, until `page.limit` rows
 * are kept or the rows run out (a filter on how rows show cannot be a condition of the store's query).
 */
async function keptPage<T>(
  read: (page: Page) => Promise<T[]>,
  listing: Listing<T>,
  page: Page,
  keep: (row: T) => boolean,
): Promise<T[]> {
  const kept: T[] = [];
  let after = page.after;
  for (;;) {
    const rows = await read({ limit: page.limit, after });
    for (const row of rows) {
      if (keep(row)) kept.push(row);
      if (kept.length === page.limit) return kept;
    }
    if (rows.length < page.limit) return kept;
    after = listing.keyOf(rows[rows.length - 1]!);
  }
}
