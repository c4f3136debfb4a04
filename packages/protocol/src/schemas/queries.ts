import { type Static, type TSchema, Type } from 'typebox';
import {
  ActiveLeague,
  ActiveMarketsPage,
  Fixture,
  League,
  LiveScore,
  Market,
  SearchResult,
  Sport,
  Team,
} from './catalog.js';
import { Bytes32, StringEnum } from './common.js';
import {
  BalanceRow,
  BestOdds,
  CLIENT_ORDER_ID_PATTERN,
  ConsolidatedTradeRow,
  CreateOrderResult,
  FillRow,
  OrderRow,
  PortfolioRefundResult,
  PositionRow,
  PublicTradeRow,
  TradeRow,
} from './trading.js';

/** The query strings, path parameters and answers of the REST routes (what `API_ROUTES` names). */

/** The `nextKey` query parameter of every keyset listing. */
export const NextKeyQuery = Type.String({
  maxLength: 512,
  description: 'the nextKey of the previous page (opaque); omit for the first page',
});
const IsoDate = Type.String({ format: 'date-time', description: 'ISO-8601' });
const PerPage = Type.Integer({ minimum: 1, maximum: 100 });
const NextKey = Type.Union([Type.String(), Type.Null()]);
/** A comma-separated list of positive integers, e.g. `sportIds=1,5`. */
const IntegerList = Type.String({
  pattern: '^[0-9]{1,9}(,[0-9]{1,9})*$',
  description: 'comma-separated integers',
});
const EventIdList = Type.String({ minLength: 1, maxLength: 8192, description: 'comma-separated event ids' });
const EventId = Type.String({ minLength: 1, maxLength: 64 });
const ListingEventId = Type.String({ minLength: 2, maxLength: 64 });

/** A keyset page: `nextKey` continues after its last row; null on the last page. */
const page = <K extends string, T extends TSchema>(key: K, row: T) =>
  Type.Object({ [key]: Type.Array(row), nextKey: NextKey } as {
    [P in K]: ReturnType<typeof Type.Array<T>>;
  } & {
    nextKey: typeof NextKey;
  });

export const ORDER_SORTS = ['createdAt', 'event', 'totalBetSize'] as const;

export const OrdersQuery = Type.Object({
  marketHash: Type.Optional(Bytes32),
  eventId: Type.Optional(ListingEventId),
  sortBy: Type.Optional(StringEnum(ORDER_SORTS)),
  sortAsc: Type.Optional(Type.Boolean()),
  perPage: Type.Optional(PerPage),
  nextKey: Type.Optional(NextKeyQuery),
});
export type OrdersQuery = Static<typeof OrdersQuery>;
/**
 * `GET /orders-v3/ended`: the query of `GET /orders-v3`, sorted by time only. An account's ended orders grow
 * without end, and each filter and direction reads an index in its order; a sort by event or size would sort
 * the whole history for every page.
 */
export const EndedOrdersQuery = Type.Object({
  marketHash: Type.Optional(Bytes32),
  eventId: Type.Optional(ListingEventId),
  sortBy: Type.Optional(StringEnum(['createdAt'] as const)),
  sortAsc: Type.Optional(Type.Boolean()),
  perPage: Type.Optional(PerPage),
  nextKey: Type.Optional(NextKeyQuery),
});
export type EndedOrdersQuery = Static<typeof EndedOrdersQuery>;
export const OrdersPage = page('orders', OrderRow);
export type OrdersPage = Static<typeof OrdersPage>;

export const OrderIdParams = Type.Object({ orderId: Bytes32 });
export const ClientOrderIdParams = Type.Object({
  clientOrderId: Type.String({ minLength: 1, maxLength: 64, pattern: CLIENT_ORDER_ID_PATTERN }),
});

export const CreateOrdersResult = Type.Object({ orders: Type.Array(CreateOrderResult) });
export type CreateOrdersResult = Static<typeof CreateOrdersResult>;

/** At most this many markets per `GET /orders-v3/odds/best`. */
export const MAX_BEST_ODDS_MARKETS = 100;
export const BestOddsQuery = Type.Object({
  marketHashes: Type.String({ minLength: 66, maxLength: 67 * MAX_BEST_ODDS_MARKETS }),
});
export const BestOddsResult = Type.Object({ bestOdds: Type.Array(BestOdds) });
export type BestOddsResult = Static<typeof BestOddsResult>;

export const CancelMarketQuery = Type.Object({ marketHash: Bytes32 });
export const CancelEventQuery = Type.Object({ eventId: ListingEventId });

export const FillsQuery = Type.Object({
  tradeId: Type.Optional(Type.String({ maxLength: 80 })),
  orderId: Type.Optional(Type.String({ maxLength: 80 })),
  startDate: Type.Optional(IsoDate),
  endDate: Type.Optional(IsoDate),
  sortAsc: Type.Optional(Type.Boolean()),
  perPage: Type.Optional(PerPage),
  nextKey: Type.Optional(NextKeyQuery),
});
export type FillsQuery = Static<typeof FillsQuery>;
export const FillsPage = page('fills', FillRow);
export type FillsPage = Static<typeof FillsPage>;

export const TradesQuery = Type.Object({
  marketHash: Type.Optional(Bytes32),
  status: Type.Optional(
    Type.String({ maxLength: 60, description: 'comma-separated: MATCHED,LOCKED,SETTLED,FAILED' }),
  ),
  startDate: Type.Optional(IsoDate),
  endDate: Type.Optional(IsoDate),
  sortAsc: Type.Optional(Type.Boolean()),
  perPage: Type.Optional(PerPage),
  nextKey: Type.Optional(NextKeyQuery),
});
export type TradesQuery = Static<typeof TradesQuery>;
export const TradesPage = page('trades', TradeRow);
export type TradesPage = Static<typeof TradesPage>;

export const ConsolidatedTradesQuery = Type.Object({
  marketHash: Type.Optional(Bytes32),
  hideQuarterLineParents: Type.Optional(Type.Boolean()),
  hideQuarterLineLegs: Type.Optional(Type.Boolean()),
  startDate: Type.Optional(IsoDate),
  endDate: Type.Optional(IsoDate),
  sortAsc: Type.Optional(Type.Boolean()),
  perPage: Type.Optional(PerPage),
  nextKey: Type.Optional(NextKeyQuery),
});
export type ConsolidatedTradesQuery = Static<typeof ConsolidatedTradesQuery>;
export const ConsolidatedTradesPage = page('trades', ConsolidatedTradeRow);
export type ConsolidatedTradesPage = Static<typeof ConsolidatedTradesPage>;

export const PositionsQuery = Type.Object({
  marketHash: Type.Optional(Bytes32),
  eventId: Type.Optional(EventId),
  perPage: Type.Optional(PerPage),
  nextKey: Type.Optional(NextKeyQuery),
});
export type PositionsQuery = Static<typeof PositionsQuery>;
export const PositionsPage = page('positions', PositionRow);
export type PositionsPage = Static<typeof PositionsPage>;

export const PublicTradesQuery = Type.Object({
  marketHash: Type.Optional(Bytes32),
  perPage: Type.Optional(PerPage),
  nextKey: Type.Optional(NextKeyQuery),
});
export type PublicTradesQuery = Static<typeof PublicTradesQuery>;
export const PublicTradesPage = page('trades', PublicTradeRow);
export type PublicTradesPage = Static<typeof PublicTradesPage>;

export const BookSnapshotQuery = Type.Object({
  marketHash: Bytes32,
  showTakerPerspective: Type.Optional(Type.Boolean()),
});

export const BalanceResult = Type.Object({ balances: Type.Array(BalanceRow) });
export type BalanceResult = Static<typeof BalanceResult>;

export const RefundsResult = Type.Object({
  results: Type.Array(PortfolioRefundResult),
  count: Type.Integer({ minimum: 0 }),
});
export type RefundsResult = Static<typeof RefundsResult>;

// ------------------------------------------------------------------ catalog

/** Markets per page of `GET /markets/active` at most. */
export const MAX_MARKETS_PAGE_SIZE = 50;

export const TeamsQuery = Type.Object({ leagueId: Type.Optional(Type.Integer({ minimum: 1 })) });
export const ActiveFixturesQuery = Type.Object({
  leagueId: Type.Optional(Type.Integer({ minimum: 1 })),
  sportId: Type.Optional(Type.Integer({ minimum: 1 })),
});
export const EventIdsQuery = Type.Object({ sportXEventIds: EventIdList });
export const SearchQuery = Type.Object({ query: Type.String({ minLength: 3, maxLength: 100 }) });

export const ActiveMarketsQuery = Type.Object({
  onlyMainLine: Type.Optional(Type.Boolean()),
  eventId: Type.Optional(EventId),
  leagueId: Type.Optional(Type.Integer({ minimum: 1 })),
  sportIds: Type.Optional(IntegerList),
  liveOnly: Type.Optional(Type.Boolean()),
  type: Type.Optional(IntegerList),
  paginationKey: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_MARKETS_PAGE_SIZE })),
});
export type ActiveMarketsQuery = Static<typeof ActiveMarketsQuery>;

export const FindMarketsQuery = Type.Object({
  marketHashes: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
});

export const SportList = Type.Array(Sport);
export const LeagueList = Type.Array(League);
export const ActiveLeagueList = Type.Array(ActiveLeague);
export const TeamList = Type.Array(Team);
export const FixtureList = Type.Array(Fixture);
export const FixtureStatuses = Type.Record(Type.String(), Type.Integer());
export const LiveScoreList = Type.Array(LiveScore);
export const SearchResultList = Type.Array(SearchResult);
export const MarketList = Type.Array(Market);
export { ActiveMarketsPage };
