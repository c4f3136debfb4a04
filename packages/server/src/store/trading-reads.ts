import type {
  FillRecord,
  MarketRefunds,
  OrderRecord,
  PositionRecord,
  TradeRecord,
} from '../records/records.js';
import type { EscrowReceipt } from '../sequencer/inputs.js';

/** A row's place in a listing's order: its values of the sort fields, the last of them unique (an id). */
export type SortKey = readonly (string | number)[];

/**
 * A listing's order: rows sorted by the values `keyOf` reads (compared in turn, all in one direction, the
 * last unique); `shape` types those values (`n` integer, `s` string) and `name` tells orders apart in page
 * keys. A store sorts by the same values: its sort columns are `keyOf`'s, in its order.
 */
export type Listing<T> = {
  name: string;
  shape: string;
  asc: boolean;
  keyOf: (row: T) => SortKey;
};

/** A keyset page: at most `limit` rows strictly after the row whose sort key is `after`. */
export type Page = { limit: number; after: SortKey | null };

export type OrderSort = 'createdAt' | 'event' | 'totalBetSize';
/** Which of the account's orders a listing holds: open (PENDING, ACTIVE) or ended (INACTIVE). */
export type OrderScope = 'open' | 'ended';
export type OrderListing = Listing<OrderRecord> & { sortBy: OrderSort; scope: OrderScope };

const direction = (asc: boolean) => (asc ? 'asc' : 'desc');

const ORDER_SORTS: Record<OrderSort, Pick<Listing<OrderRecord>, 'shape' | 'keyOf'>> = {
  createdAt: { shape: 'ns', keyOf: (o) => [o.createdAt, o.id] },
  event: { shape: 'ssns', keyOf: (o) => [o.eventId, o.marketHash, o.createdAt, o.id] },
  // Canonical decimal strings sort numerically by length first.
  totalBetSize: {
    shape: 'nsns',
    keyOf: (o) => [o.totalBetSize.length, o.totalBetSize, o.createdAt, o.id],
  },
};

/**
 * `GET /orders-v3` (open orders) and `GET /orders-v3/ended`, in one of the spec's sorts. The two scopes' page
 * keys are told apart; the open listing's name is the one its keys have always had.
 */
export function orderListing(sortBy: OrderSort, asc: boolean, scope: OrderScope = 'open'): OrderListing {
  const prefix = scope === 'open' ? 'orders' : 'orders:ended';
  return { ...ORDER_SORTS[sortBy], sortBy, scope, name: `${prefix}:${sortBy}:${direction(asc)}`, asc };
}

/** `GET /fills-v3`: by time, then the match's journal seq (one instant's fills in match order). */
export function fillListing(asc: boolean): Listing<FillRecord> {
  return { name: `fills:${direction(asc)}`, shape: 'nns', asc, keyOf: (f) => [f.createdAt, f.seq, f.id] };
}

/** `GET /trades-v3` (the account's) and `GET /trades-v3/public` (newest first). */
export function tradeListing(asc: boolean, scope: 'account' | 'public' = 'account'): Listing<TradeRecord> {
  return { name: `trades:${scope}:${direction(asc)}`, shape: 'ns', asc, keyOf: (t) => [t.createdAt, t.id] };
}

/**
 * A row of `GET /trades-v3/consolidated`: an ordinary trade, a quarter-line bet's trade on a leg
 * (`legIndex` 0: the whole line, 1: the half line) or its synthetic parent (`quarterLineParentTrade`).
 */
export type ConsolidatedTradeRecord = {
  kind: 'trade' | 'leg' | 'parent';
  trade: TradeRecord;
  legIndex: 0 | 1 | null;
};

/**
 * `GET /trades-v3/consolidated`: by time, then order id, then the parent before its whole-line and
 * half-line legs (an order has one ordinary trade, or one parent and two legs: the key is unique).
 */
export function consolidatedTradeListing(asc: boolean): Listing<ConsolidatedTradeRecord> {
  return {
    name: `trades:consolidated:${direction(asc)}`,
    shape: 'nsn',
    asc,
    keyOf: (r) => [r.trade.createdAt, r.trade.orderId, r.legIndex === null ? 0 : r.legIndex + 1],
  };
}

/** `GET /positions-v3`: open positions by market hash (one row per market per account). */
export const POSITION_LISTING: Listing<PositionRecord> = {
  name: 'positions',
  shape: 's',
  asc: true,
  keyOf: (p) => [p.marketHash],
};

export type OrderFilter = { marketHash?: string; eventId?: string };
export type FillFilter = { tradeId?: string; orderId?: string; startDate?: number; endDate?: number };
export type PositionFilter = { marketHash?: string; eventId?: string };
/** `GET /trades/portfolio/refunds`: which refund events count (`maker` true: as maker, false: as taker). */
export type RefundFilter = { marketHash?: string; fillId?: string; maker?: boolean };
/**
 * Offset paging over the markets with refunds, ordered by each market's first matching refund, and over
 * each of those markets' matching refunds (`eventsOffset`, `eventsLimit`), in seq order.
 */
export type RefundPage = {
  sortAsc: boolean;
  offset: number;
  limit: number;
  eventsOffset: number;
  eventsLimit: number;
};
/** A market's refunds: one page of its matching events, and how many match (`eventCount`). */
export type MarketRefundsPage = MarketRefunds & { eventCount: number };
export type TradeFilter = {
  marketHash?: string;
  status?: readonly string[];
  startDate?: number;
  endDate?: number;
};

/**
 * `GET /trades-v3/consolidated`: `marketHash` of a quarter-line market matches its parents and legs;
 * `hideQuarterLineParents` leaves the parents out, `hideQuarterLineLegs` the legs.
 */
export type ConsolidatedTradeFilter = {
  marketHash?: string;
  startDate?: number;
  endDate?: number;
  hideQuarterLineParents?: boolean;
  hideQuarterLineLegs?: boolean;
};

/** An order row with what was signed besides the engine's fields (the legacy API lists them). */
export type SignedOrderRecord = OrderRecord & { salt: string; signature: string; baseToken: string };

/** The legacy `GET /trades`: anyone's trades (maker and taker rows), by account, markets, event or time. */
export type MarketTradeFilter = {
  account?: string;
  marketHashes?: readonly string[];
  eventId?: string;
  orderIds?: readonly string[];
  startDate?: number;
  endDate?: number;
};

/**
 * Read side of trading: what the routes and the realtime publishers read of the committed projections
 * (orders, fills, trades). Fills and trades show as `records/shown.ts` says (LOCKED once their settlement
 * has landed, SETTLED once their market is resolved and paid).
 */
export interface TradingReads {
  getOrder(account: string, orderId: string): Promise<OrderRecord | null>;
  getOrderByClientId(account: string, clientOrderId: string): Promise<OrderRecord | null>;
  /**
   * The account's orders of the listing's scope: open (PENDING and ACTIVE), or ended (INACTIVE: filled,
   * cancelled, expired, refused, with their `inactiveReason`).
   */
  orders(account: string, filter: OrderFilter, listing: OrderListing, page: Page): Promise<OrderRecord[]>;
  fills(account: string, filter: FillFilter, listing: Listing<FillRecord>, page: Page): Promise<FillRecord[]>;
  /** The account's trades; `marketHash` of a quarter-line market matches the trades on its legs. */
  trades(
    account: string,
    filter: TradeFilter,
    listing: Listing<TradeRecord>,
    page: Page,
  ): Promise<TradeRecord[]>;
  /** The account's trades with each quarter-line bet's synthetic parent beside its legs. */
  consolidatedTrades(
    account: string,
    filter: ConsolidatedTradeFilter,
    listing: Listing<ConsolidatedTradeRecord>,
    page: Page,
  ): Promise<ConsolidatedTradeRecord[]>;
  /** Orders by id, whoever's and whatever their status, with their signed fields (the legacy API's rows). */
  signedOrders(orderIds: readonly string[]): Promise<SignedOrderRecord[]>;
  /** Trades of every account matching `filter` (the legacy `GET /trades`, `/trades/orders`). */
  marketTrades(filter: MarketTradeFilter, listing: Listing<TradeRecord>, page: Page): Promise<TradeRecord[]>;
  /** Taker bets: the public tape. */
  publicTrades(
    filter: { marketHash?: string },
    listing: Listing<TradeRecord>,
    page: Page,
  ): Promise<TradeRecord[]>;
  /** The account's open positions (its markets not yet resolved), with each market's event id. */
  positions(account: string, filter: PositionFilter, page: Page): Promise<PositionRecord[]>;
  /**
   * The account's capital-efficiency refunds grouped by market: the markets with a refund matching
   * `filter` (a page of them, and how many there are), each with a page of those refunds in seq order
   * (`sortAsc`), how many there are, and the total refunded in the market so far (whatever the filter).
   */
  refunds(
    account: string,
    filter: RefundFilter,
    page: RefundPage,
  ): Promise<{ markets: MarketRefundsPage[]; count: number }>;
  /** Some accounts' SETTLED trades and fills in a resolved market (as they show once it is resolved). */
  settledOf(
    marketHash: string,
    accounts: readonly string[],
  ): Promise<{ trades: TradeRecord[]; fills: FillRecord[] }>;
  /** Every resolved market with its outcome, as the journal has it. */
  settlements(): Promise<{ marketHash: string; outcome: 0 | 1 | 2 }[]>;
  /**
   * An escrow's rows as they show now: its fills (the account's with seq in its range, in seq order), and
   * the trades its receipt decides: for a landed escrow those whose last fill it covers (it locks them),
   * for a failed one every trade of its fills (it fails them).
   */
  escrowRows(escrow: EscrowReceipt): Promise<{ fills: FillRecord[]; trades: TradeRecord[] }>;
  /** The accounts with a fill in the journal entries `firstSeq..lastSeq` (a settlement transaction's). */
  accountsWithFills(firstSeq: number, lastSeq: number): Promise<string[]>;
  /** Some accounts' fills of the entries `firstSeq..lastSeq` and trades whose last fill is there, shown LOCKED. */
  lockedRows(
    firstSeq: number,
    lastSeq: number,
    accounts: readonly string[],
  ): Promise<{ fills: FillRecord[]; trades: TradeRecord[] }>;
  /** The payouts of resolutions in entries `firstSeq..lastSeq` paid at `paidAt` (their items landed then). */
  paidPayouts(
    firstSeq: number,
    lastSeq: number,
    paidAt: number,
  ): Promise<{ marketHash: string; account: string }[]>;
}
