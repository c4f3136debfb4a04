import {
  ACCOUNT_FILLS_CHANNEL,
  accountOrdersChannel,
  accountTradesChannel,
  activeOrdersChannel,
  CeRefundUpdate,
  ConsolidatedTrade,
  ceRefundsChannel,
  GLOBAL_CHANNELS,
  ladderSize,
  orderBookEventChannel,
  orderBookMarketChannel,
  RecentTrade,
  tickToOdds,
} from '@oddsbook/protocol';
import type { Database } from 'better-sqlite3';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../engine/index.js';
import { bookToWire } from '../orders/book.js';
import { fillToWire, orderToWire, publicTradeToWire, tradeToWire, weightedOdds } from '../orders/wire.js';
import type { Publication } from '../realtime/publication.js';
import { legTradeIdOf, type TradeRecord, tradeIdOf } from '../records/records.js';
import { committedBatch } from '../sequencer/committed-batch.js';
import type { AppliedEntry, OrderMeta, PlaceOrderInput, SequencerInput } from '../sequencer/inputs.js';
import { Projector } from '../store/projector.js';
import { openDatabase } from '../store/sqlite/open-database.js';
import { SqliteProjectionStore } from '../store/sqlite/sqlite-projection-store.js';
import { SqliteTradingQueries } from '../store/sqlite/sqlite-trading-queries.js';
import { fillListing, tradeListing } from '../store/trading-reads.js';
import type { ProjectedBatch } from './pipeline.js';
import { TradingPublisher, type TradingPublisherContext } from './trading-publications.js';

const MAKER = '0x52908400098527886E0F7030069857D2E4169EE7';
const TAKER = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';
const THIRD = '0x0000000000000000000000000000000000000CcC';
const WALLET = '0x00000000000000000000000000000000000000aa';
const BASE_TOKEN = '0xd1f05A1F2d3F5ef80e000ABD9c6Da3a9495Da054';
const MARKET = `0x${'ab'.repeat(32)}`;
const EVENT = 'L1-E1';
const USDC = 1_000_000n;
const LADDER = ladderSize();

/** Real engine and real projections (in-memory SQLite): the publisher sees what it sees in production. */
let db: Database;
let projector: Projector;
/** Each committed batch's projection, as the pipeline hands it to the publisher. */
let projectedOf: WeakMap<AppliedEntry[], ProjectedBatch>;
let queries: SqliteTradingQueries;
let engine: Engine;
let publisher: TradingPublisher;
let seq = 0;
let orderCounter = 0;

beforeEach(async () => {
  db = openDatabase(':memory:');
  projector = await Projector.open(new SqliteProjectionStore(db));
  projectedOf = new WeakMap();
  queries = new SqliteTradingQueries(db);
  engine = new Engine({ ladderSize: LADDER });
  seq = 0;
  publisher = new TradingPublisher(context());
  await publish(
    await commit([
      { kind: 'engine', command: { type: 'openMarket', marketHash: MARKET, eventId: EVENT } },
      { kind: 'engine', command: { type: 'credit', account: MAKER, amount: 1_000n * USDC } },
      { kind: 'engine', command: { type: 'credit', account: TAKER, amount: 1_000n * USDC } },
    ]),
  );
});

function context(): TradingPublisherContext {
  return {
    walletOf: () => WALLET,
    books: [...engine.marketHashes()].map((hash) => engine.levels(hash)!),
    marketInfo: () => ({ sportId: 1, leagueId: 7 }),
    ladderSize: LADDER,
    baseToken: BASE_TOKEN,
    reads: queries,
    // Books once per batch; the interval has tests of its own.
    bookIntervalMs: 0,
  };
}

/** The queries, with some reads replaced. */
function readsWith(reads: Partial<TradingPublisherContext['reads']>): TradingPublisherContext['reads'] {
  return {
    escrowRows: (escrow) => queries.escrowRows(escrow),
    accountsWithFills: (first, last) => queries.accountsWithFills(first, last),
    lockedRows: (first, last, accounts) => queries.lockedRows(first, last, accounts),
    paidPayouts: (first, last, paidAt) => queries.paidPayouts(first, last, paidAt),
    settledOf: (marketHash, accounts) => queries.settledOf(marketHash, accounts),
    ...reads,
  };
}

async function commit(inputs: SequencerInput[], ts = 1_700_000_000_000 + seq): Promise<AppliedEntry[]> {
  const entries = inputs.map((input) => {
    seq += 1;
    const events = input.kind === 'engine' ? engine.apply({ ...input.command, seq, ts }) : [];
    return { seq, ts, input, events };
  });
  projectedOf.set(entries, { batch: committedBatch(entries), changes: await projector.project(entries) });
  return entries;
}

const publish = async (entries: AppliedEntry[], to = publisher) => {
  const projected = projectedOf.get(entries)!;
  return to.batch(projected, await to.rowsOf(projected));
};

function order(
  account: string,
  tick: number,
  size: bigint,
  options: { isOne?: boolean; tif?: 'GTC' | 'IOC' | 'FOK'; orderId?: string } = {},
): { order: PlaceOrderInput; meta: OrderMeta } {
  orderCounter += 1;
  const orderId = options.orderId ?? `0x${orderCounter.toString(16).padStart(64, '0')}`;
  return {
    order: {
      type: 'place',
      orderId,
      account,
      marketHash: MARKET,
      isBettingOutcomeOne: options.isOne ?? true,
      percentageOdds: tickToOdds(tick),
      totalBetSize: size,
      expiry: 2_000_000_000,
      timeInForce: options.tif ?? 'GTC',
    },
    meta: {
      commandId: `cmd-${orderId.slice(-4)}`,
      eventId: EVENT,
      clientOrderId: null,
      salt: '0x1',
      baseToken: WALLET,
      signature: '0x',
    },
  };
}

const place = (o: ReturnType<typeof order>): SequencerInput => ({
  kind: 'engine',
  command: o.order,
  meta: o.meta,
});
const on = (pubs: Publication[], channel: string, user?: string) =>
  pubs.filter((p) => p.channel === channel && (user === undefined || p.user === user));
const data = <T = Record<string, unknown>>(pubs: Publication[]) => pubs.map((p) => p.data as T);
/** The payload as it goes on the wire (with its message id) matches the protocol schema. */
function expectShape(schema: TSchema, pub: Publication): void {
  const errors = [...Value.Errors(schema, { ...(pub.data as object), messageId: pub.messageId })];
  expect(errors, JSON.stringify(errors.slice(0, 3))).toEqual([]);
}
const restOrder = async (account: string, id: string) =>
  orderToWire((await queries.getOrder(account, id))!, WALLET);

describe('TradingPublisher', () => {
  it('publishes a rested order with its create outcome, then the book and best odds once per batch', async () => {
    const maker = order(MAKER, 400, 50n * USDC);
    const entries = await commit([place(maker)]);
    const pubs = await publish(entries);
    const s = entries[0]!.seq;
    const version = bookToWire(engine.levels(MARKET)!, {
      takerPerspective: false,
      ladderSize: LADDER,
    }).version;
    expect(pubs.map((p) => [p.channel, p.messageId, p.key])).toEqual([
      [accountOrdersChannel(MAKER), `${s}:0`, undefined],
      [activeOrdersChannel(MAKER), `${s}:1`, undefined],
      // Named by market and version, keyed by market: a newer book supersedes it in the channel's history.
      [orderBookMarketChannel(MARKET), `book:${MARKET}:${version}`, MARKET],
      [orderBookEventChannel(EVENT), `book:${MARKET}:${version}`, MARKET],
      [GLOBAL_CHANNELS.best_odds, `best:${MARKET}:${version}`, undefined],
    ]);
    const rest = await restOrder(MAKER, maker.order.orderId);
    expect(pubs[0]!.data).toEqual({
      ...rest,
      commandId: maker.meta.commandId,
      outcome: {
        state: 'RESTED',
        remainingAmount: (50n * USDC).toString(),
        fillAmount: '0',
        blendedOdds: '0',
        matchIds: [],
        tradeId: null,
      },
    });
    expect(pubs[1]!.data).toEqual(rest);
    const book = bookToWire(engine.levels(MARKET)!, { takerPerspective: false, ladderSize: LADDER });
    expect(pubs[2]!.data).toEqual(book);
    expect(pubs[3]!.data).toEqual(book);
    expect(pubs[4]!.data).toEqual({
      marketHash: MARKET,
      eventId: EVENT,
      outcomeOne: book.outcomeOne[0],
      outcomeTwo: null,
      sportId: 1,
      leagueId: 7,
    });

    // A worse level changes the book, not the best odds.
    const worse = await publish(await commit([place(order(MAKER, 390, 10n * USDC))]));
    expect(on(worse, orderBookMarketChannel(MARKET))).toHaveLength(1);
    expect(on(worse, GLOBAL_CHANNELS.best_odds)).toHaveLength(0);
  });

  it('shows each entry of a batch in turn: fills, cumulative trades, public tape, one book', async () => {
    const maker = order(MAKER, 400, 50n * USDC);
    await publish(await commit([place(maker)]));
    const t1 = order(TAKER, 400, 10n * USDC, { isOne: false, tif: 'IOC' });
    const t2 = order(TAKER, 400, 15n * USDC, { isOne: false, tif: 'IOC' });
    const entries = await commit([place(t1), place(t2)]);
    const pubs = await publish(entries);

    // The maker's row after each fill; the last one is the REST row.
    const makerRows = data(on(pubs, accountOrdersChannel(MAKER)));
    expect(makerRows.map((r) => [r.status, r.remainingSize, r.fillAmount])).toEqual([
      ['ACTIVE', (40n * USDC).toString(), (10n * USDC).toString()],
      ['ACTIVE', (25n * USDC).toString(), (25n * USDC).toString()],
    ]);
    expect(makerRows[1]).toEqual(await restOrder(MAKER, maker.order.orderId));
    for (const r of makerRows) expect(r.commandId).toBeUndefined();

    // Each taker's outcome on its own create.
    const takerRows = data(on(pubs, accountOrdersChannel(TAKER)));
    expect(takerRows.map((r) => [r.id, r.status, r.inactiveReason, r.commandId])).toEqual([
      [t1.order.orderId, 'INACTIVE', 'FILLED', t1.meta.commandId],
      [t2.order.orderId, 'INACTIVE', 'FILLED', t2.meta.commandId],
    ]);
    expect(takerRows[0]!.outcome).toMatchObject({
      state: 'FULLY_FILLED',
      tradeId: tradeIdOf(t1.order.orderId),
    });
    // Never open: not on the taker's active orders.
    expect(on(pubs, activeOrdersChannel(TAKER))).toEqual([]);

    // Fills go to their user only, as the REST rows.
    const makerFills = on(pubs, ACCOUNT_FILLS_CHANNEL, MAKER);
    const takerFills = on(pubs, ACCOUNT_FILLS_CHANNEL, TAKER);
    expect(makerFills).toHaveLength(2);
    expect(takerFills).toHaveLength(2);
    const restFills = (await queries.fills(MAKER, {}, fillListing(true), { limit: 10, after: null })).map(
      fillToWire,
    );
    expect(data(makerFills)).toEqual(restFills);

    // The maker's trade grows fill by fill; the last publication is the REST row.
    const makerTrades = data(on(pubs, accountTradesChannel(MAKER)));
    expect(makerTrades.map((tr) => [tr.stake, tr.status])).toEqual([
      [(10n * USDC).toString(), 'MATCHED'],
      [(25n * USDC).toString(), 'MATCHED'],
    ]);
    const restTrade = (await queries.trades(MAKER, {}, tradeListing(true), { limit: 10, after: null })).map(
      tradeToWire,
    )[0];
    expect(makerTrades[1]).toEqual(restTrade);

    // Only taker bets go on the public tape, with the quarter-line flags.
    const tape = data(on(pubs, GLOBAL_CHANNELS.recent_trades));
    expect(tape.map((tr) => tr.tradeId)).toEqual([tradeIdOf(t1.order.orderId), tradeIdOf(t2.order.orderId)]);
    expect(tape[0]).toMatchObject({
      totalStake: (10n * USDC).toString(),
      isQuarterLineLeg: false,
    });
    expect(tape[0]).not.toHaveProperty('quarterLineParentMarketHash');
    for (const msg of on(pubs, GLOBAL_CHANNELS.recent_trades)) expectShape(RecentTrade, msg);
    for (const msg of on(pubs, GLOBAL_CHANNELS.recent_trades_consolidated))
      expectShape(ConsolidatedTrade, msg);
    const consolidated = data(on(pubs, GLOBAL_CHANNELS.recent_trades_consolidated));
    expect(consolidated[0]).toMatchObject({
      isQuarterLineParent: false,
      isQuarterLineLeg: false,
      quarterLineFillHash: null,
      totalStake: (10n * USDC).toString(),
      totalReturn: (20n * USDC).toString(),
      netReturn: (10n * USDC).toString(),
    });
    // The tapes are the public trade row and then their own fields, key for key (same JSON bytes).
    const takerTrade = (await queries.trades(TAKER, {}, tradeListing(true), { limit: 10, after: null })).find(
      (tr) => tr.id === tape[0]!.tradeId,
    )!;
    expect(JSON.stringify(tape[0])).toBe(
      JSON.stringify({
        ...publicTradeToWire(takerTrade),
        isQuarterLineLeg: false,
      }),
    );
    expect(JSON.stringify(consolidated[0])).toBe(
      JSON.stringify({
        ...publicTradeToWire(takerTrade),
        isQuarterLineParent: false,
        isQuarterLineLeg: false,
        quarterLineFillHash: null,
        netReturn: (10n * USDC).toString(),
      }),
    );

    // One book per market per batch (no interval), after the last entry: the book it left.
    const books = on(pubs, orderBookMarketChannel(MARKET));
    expect(books).toHaveLength(1);
    const after = pubs.slice(pubs.indexOf(books[0]!)).map((p) => p.channel);
    expect(after).toEqual(
      [orderBookMarketChannel(MARKET), orderBookEventChannel(EVENT), GLOBAL_CHANNELS.best_odds].slice(
        0,
        after.length,
      ),
    );
    const version = bookToWire(engine.levels(MARKET)!, {
      takerPerspective: false,
      ladderSize: LADDER,
    }).version;
    expect((books[0]!.data as { version: string }).version).toBe(version);
    expect(books[0]!.messageId).toBe(`book:${MARKET}:${version}`);
    expect(new Set(pubs.map((p) => `${p.channel}|${p.user}|${p.messageId}`)).size).toBe(pubs.length);
  });

  it('publishes an admitted order as PENDING, and its withdrawal with the create commandId and outcome', async () => {
    const delayed = order(TAKER, 400, 10n * USDC, { isOne: false, tif: 'IOC' });
    const entries = await commit([
      { kind: 'admit', order: delayed.order, meta: delayed.meta, activateAt: 1 },
      { kind: 'withdraw', orderIds: [delayed.order.orderId], reason: 'USER_REQUESTED' },
    ]);
    const pubs = await publish(entries);
    const rows = data(on(pubs, accountOrdersChannel(TAKER)));
    expect(rows.map((r) => [r.status, r.inactiveReason, r.commandId])).toEqual([
      ['PENDING', null, delayed.meta.commandId],
      ['INACTIVE', 'USER_REQUESTED', delayed.meta.commandId],
    ]);
    expect(rows[0]!.outcome).toBeUndefined();
    expect(rows[1]!.outcome).toMatchObject({ state: 'CANCELLED', cancelReason: 'USER_REQUESTED' });
    // It was open (PENDING) in between: both changes are on the active orders.
    expect(data(on(pubs, activeOrdersChannel(TAKER))).map((r) => r.status)).toEqual(['PENDING', 'INACTIVE']);
    const { commandId: _c, outcome: _o, ...row } = rows[1]!;
    expect(row).toEqual(await restOrder(TAKER, delayed.order.orderId));
  });

  it('publishes nothing for a replayed order id', async () => {
    const first = order(MAKER, 400, 10n * USDC);
    await publish(await commit([place(first)]));
    const replay = order(MAKER, 401, 10n * USDC, { orderId: first.order.orderId });
    expect(await publish(await commit([place(replay)]))).toEqual([]);
  });

  it('publishes cancels with their reason and settles trades and fills at resolution', async () => {
    const maker = order(MAKER, 400, 50n * USDC);
    await publish(
      await commit([place(maker), place(order(TAKER, 400, 20n * USDC, { isOne: false, tif: 'IOC' }))]),
    );
    const cancel = await publish(
      await commit([
        {
          kind: 'engine',
          command: {
            type: 'cancel',
            orderIds: [maker.order.orderId],
            account: MAKER,
            reason: 'HEARTBEAT_TIMEOUT',
          },
        },
      ]),
    );
    expect(data(on(cancel, activeOrdersChannel(MAKER)))).toEqual([
      await restOrder(MAKER, maker.order.orderId),
    ]);
    expect(data(on(cancel, accountOrdersChannel(MAKER)))[0]).toMatchObject({
      status: 'INACTIVE',
      inactiveReason: 'HEARTBEAT_TIMEOUT',
    });
    expect(on(cancel, GLOBAL_CHANNELS.best_odds)).toHaveLength(1);

    const resolve = await publish(
      await commit([{ kind: 'engine', command: { type: 'resolveMarket', marketHash: MARKET, outcome: 1 } }]),
    );
    // The taker lost: its fill is SETTLED at once. The maker won: its trade waits for its payout to land.
    expect(data(on(resolve, ACCOUNT_FILLS_CHANNEL, TAKER))).toMatchObject([{ status: 'SETTLED' }]);
    expect(on(resolve, accountTradesChannel(MAKER))).toEqual([]);
    const [fill] = await queries.fills(TAKER, {}, fillListing(true), { limit: 1, after: null });
    expect(on(resolve, ACCOUNT_FILLS_CHANNEL, TAKER)[0]!.messageId).toBe(`fill:${fill!.id}:SETTLED`);
    const resolvedAt = seq;
    const paid = await publish(
      await commit([
        {
          kind: 'settlement',
          block: 1,
          txs: [{ firstSeq: resolvedAt, lastSeq: resolvedAt, notLanded: [], landed: [] }],
        },
      ]),
    );
    const trades = data(on(paid, accountTradesChannel(MAKER)));
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({
      status: 'SETTLED',
      settlement: { outcome: 1, payout: (40n * USDC).toString() },
    });
    // Named by row and status, as lock updates are: the same whoever follows.
    const [trade] = await queries.trades(MAKER, {}, tradeListing(true), { limit: 1, after: null });
    expect(on(paid, accountTradesChannel(MAKER))[0]!.messageId).toBe(
      `trade:${trade!.id}:SETTLED:${trade!.updatedAt}`,
    );
  });

  it('reads a resolution’s settled rows back only for accounts whose trades or fills are followed', async () => {
    await publish(
      await commit([
        place(order(MAKER, 400, 50n * USDC)),
        place(order(TAKER, 400, 20n * USDC, { isOne: false, tif: 'IOC' })),
      ]),
    );
    const read: string[] = [];
    const followed = new Set([`${ACCOUNT_FILLS_CHANNEL}#${MAKER}`]);
    const partial = new TradingPublisher({
      ...context(),
      observed: (channel, user) => followed.has(user ? `${channel}#${user}` : channel),
      reads: readsWith({
        settledOf: (marketHash, accounts) => {
          read.push(...accounts);
          return queries.settledOf(marketHash, accounts);
        },
      }),
    });
    const resolve = await commit([
      { kind: 'engine', command: { type: 'resolveMarket', marketHash: MARKET, outcome: 2 } },
    ]);
    const all = await publish(resolve);
    const made = await publish(resolve, partial);

    expect(read).toEqual([MAKER]);
    expect(made).toEqual(all.filter((p) => p.channel === ACCOUNT_FILLS_CHANNEL && p.user === MAKER));
    expect(data(made)).toMatchObject([{ status: 'SETTLED' }]);
    // Nobody following: nothing is read back.
    read.length = 0;
    followed.clear();
    expect(await publish(resolve, partial)).toEqual([]);
    expect(read).toEqual([]);
  });

  it('publishes expiries with inactiveReason EXPIRED and the book without the order', async () => {
    const maker = order(MAKER, 400, 10n * USDC);
    const short = { ...maker, order: { ...maker.order, expiry: 1_700_000_100 } };
    await publish(await commit([place(short)]));
    const pubs = await publish(
      await commit([{ kind: 'engine', command: { type: 'expire' } }], 1_700_000_200_000),
    );
    expect(data(on(pubs, activeOrdersChannel(MAKER)))).toEqual([await restOrder(MAKER, maker.order.orderId)]);
    expect(data(on(pubs, accountOrdersChannel(MAKER)))[0]).toMatchObject({
      status: 'INACTIVE',
      inactiveReason: 'EXPIRED',
    });
    expect(data(on(pubs, orderBookMarketChannel(MARKET)))[0]).toMatchObject({
      outcomeOne: [],
      outcomeTwo: [],
    });
    expect(data(on(pubs, GLOBAL_CHANNELS.best_odds))).toMatchObject([{ outcomeOne: null, outcomeTwo: null }]);
  });

  /** An `escrows` input (the chain's receipts) for accounts' fills in seq ranges. */
  const escrows = (
    ...list: { account: string; firstSeq: number; lastSeq: number; ok: boolean }[]
  ): SequencerInput => ({ kind: 'escrows', block: 2, escrows: list });
  const ids = (pubs: Publication[]) => pubs.map((p) => [p.channel, p.user, p.messageId]);

  it('publishes escrow receipts: the LOCKED fills, and a trade once its last fill is escrowed; FAILED rows', async () => {
    await publish(await commit([place(order(MAKER, 400, 50n * USDC))]));
    const first = await commit([place(order(TAKER, 400, 20n * USDC, { isOne: false, tif: 'IOC' }))]);
    const second = await commit([place(order(TAKER, 400, 10n * USDC, { isOne: false, tif: 'IOC' }))]);
    await publish(first);
    await publish(second);
    const [s1, s2] = [first[0]!.seq, second[0]!.seq];
    const makerFills = await queries.fills(MAKER, {}, fillListing(true), { limit: 10, after: null });
    const makerTrade = makerFills[0]!.tradeId;
    expect(makerFills.map((f) => f.seq)).toEqual([s1, s2]);

    // The maker's first fill: its trade has a fill after it, still MATCHED.
    const lockFirst = await commit([escrows({ account: MAKER, firstSeq: s1, lastSeq: s1, ok: true })]);
    expect(ids(await publish(lockFirst))).toEqual([
      [ACCOUNT_FILLS_CHANNEL, MAKER, `fill:${makerFills[0]!.id}:LOCKED`],
    ]);
    // The second: the fill and the trade, as every read now shows them.
    const lockSecond = await commit([escrows({ account: MAKER, firstSeq: s2, lastSeq: s2, ok: true })]);
    const ts = lockSecond[0]!.ts;
    const locked = await publish(lockSecond);
    expect(ids(locked)).toEqual([
      [ACCOUNT_FILLS_CHANNEL, MAKER, `fill:${makerFills[1]!.id}:LOCKED`],
      [accountTradesChannel(MAKER), undefined, `trade:${makerTrade}:LOCKED:${ts}`],
    ]);
    const [, shownFill] = await queries.fills(MAKER, {}, fillListing(true), { limit: 10, after: null });
    expect(locked[0]!.data).toEqual(fillToWire(shownFill!));
    expect(shownFill!.status).toBe('LOCKED');
    expect(locked[1]!.data).toEqual(
      tradeToWire((await queries.trades(MAKER, {}, tradeListing(true), { limit: 1, after: null }))[0]!),
    );
    expect(locked[1]!.data).toMatchObject({ tradeId: makerTrade, status: 'LOCKED' });

    // The taker's escrow of both fills fails: its fills and both its trades turn FAILED.
    const fail = await commit([escrows({ account: TAKER, firstSeq: s1, lastSeq: s2, ok: false })]);
    const failed = await publish(fail);
    const takerFills = await queries.fills(TAKER, {}, fillListing(true), { limit: 10, after: null });
    const takerTrades = await queries.trades(TAKER, {}, tradeListing(true), { limit: 10, after: null });
    expect(takerFills.map((f) => f.status)).toEqual(['FAILED', 'FAILED']);
    expect(ids(failed)).toEqual([
      ...takerFills.map((f) => [ACCOUNT_FILLS_CHANNEL, TAKER, `fill:${f.id}:FAILED`]),
      ...takerTrades.map((t) => [
        accountTradesChannel(TAKER),
        undefined,
        `trade:${t.id}:FAILED:${fail[0]!.ts}`,
      ]),
    ]);
    // An entry projected before (a start catching up) publishes nothing; neither does a receipt of nothing.
    expect(publisher.batch({ batch: committedBatch(fail), changes: [undefined] })).toEqual([]);
    expect(await publish(await commit([{ kind: 'escrows', block: 3, escrows: [] }]))).toEqual([]);
  });

  it('a failed escrow fails a trade that an earlier entry of its batch filled again (the projector)', async () => {
    await publish(await commit([place(order(MAKER, 400, 50n * USDC))]));
    const first = await commit([place(order(TAKER, 400, 20n * USDC, { isOne: false, tif: 'IOC' }))]);
    await publish(first);
    const s1 = first[0]!.seq;
    const batch = await commit([
      place(order(TAKER, 400, 10n * USDC, { isOne: false, tif: 'IOC' })),
      escrows({ account: MAKER, firstSeq: s1, lastSeq: s1, ok: false }),
    ]);
    const pubs = await publish(batch);
    const [trade] = await queries.trades(MAKER, {}, tradeListing(true), { limit: 1, after: null });
    expect(trade).toMatchObject({ status: 'FAILED', updatedAt: batch[1]!.ts });
    expect(pubs.filter((p) => p.messageId?.startsWith('trade:'))).toMatchObject([
      { channel: accountTradesChannel(MAKER), data: { status: 'FAILED' } },
    ]);
  });

  it('reads an escrow’s rows back only for accounts whose trades or fills are followed', async () => {
    await publish(
      await commit([
        place(order(MAKER, 400, 50n * USDC)),
        place(order(TAKER, 400, 20n * USDC, { isOne: false, tif: 'IOC' })),
      ]),
    );
    const fillSeq = (await queries.fills(MAKER, {}, fillListing(true), { limit: 1, after: null }))[0]!.seq;
    const read: string[] = [];
    const followed = new Set([`${ACCOUNT_FILLS_CHANNEL}#${MAKER}`]);
    const partial = new TradingPublisher({
      ...context(),
      observed: (channel, user) => followed.has(user ? `${channel}#${user}` : channel),
      reads: readsWith({
        escrowRows: (escrow) => {
          read.push('account' in escrow ? escrow.account : escrow.fillId);
          return queries.escrowRows(escrow);
        },
      }),
    });
    const lock = await commit([
      escrows(
        { account: MAKER, firstSeq: fillSeq, lastSeq: fillSeq, ok: true },
        { account: TAKER, firstSeq: fillSeq, lastSeq: fillSeq, ok: true },
      ),
    ]);
    const all = await publish(lock);
    const made = await publish(lock, partial);
    expect(read).toEqual([MAKER]);
    expect(made).toEqual(all.filter((p) => p.channel === ACCOUNT_FILLS_CHANNEL && p.user === MAKER));
    expect(data(made)).toMatchObject([{ status: 'LOCKED' }]);
  });

  it('makes only the publications of followed channels, each with the id it has when all are followed', async () => {
    const followed = new Set([
      accountOrdersChannel(TAKER),
      `${ACCOUNT_FILLS_CHANNEL}#${MAKER}`,
      GLOBAL_CHANNELS.recent_trades,
    ]);
    const isFollowed = (channel: string, user?: string) =>
      followed.has(user ? `${channel}#${user}` : channel);
    const partial = new TradingPublisher({ ...context(), observed: isFollowed });
    const batches = [
      await commit([place(order(MAKER, 400, 50n * USDC))]),
      await commit([place(order(TAKER, 400, 20n * USDC, { isOne: false, tif: 'IOC' }))]),
    ];
    for (const entries of batches) {
      const all = await publish(entries);
      const made = await publish(entries, partial);
      expect(made).toEqual(all.filter((p) => isFollowed(p.channel, p.user)));
    }
    expect(partial.followsTradesOrFills(MAKER)).toBe(true);
    expect(partial.followsTradesOrFills(TAKER)).toBe(false);
  });

  it('publishes a capital-efficiency refund on the bettor’s ce_refunds channel, after the fills', async () => {
    await publish(
      await commit([{ kind: 'engine', command: { type: 'credit', account: THIRD, amount: 1_000n * USDC } }]),
    );
    // The taker backs outcome one 100 at 50%, then outcome two 100 at 50%: 200 certain, refunded.
    await publish(await commit([place(order(MAKER, 400, 100n * USDC, { isOne: false }))]));
    const first = await publish(await commit([place(order(TAKER, 400, 100n * USDC, { tif: 'IOC' }))]));
    expect(first.filter((p) => p.channel.startsWith('ce_refunds:'))).toEqual([]);
    await publish(await commit([place(order(THIRD, 400, 100n * USDC))]));
    const entries = await commit([place(order(TAKER, 400, 100n * USDC, { isOne: false, tif: 'IOC' }))]);
    const pubs = await publish(entries);
    const s = entries[0]!.seq;

    const refunds = pubs.filter((p) => p.channel.startsWith('ce_refunds:'));
    expect(refunds.map((p) => p.channel)).toEqual([ceRefundsChannel(TAKER)]);
    const [refund] = refunds;
    const at = pubs.indexOf(refund!);
    // Numbered in the entry: the fills just before, the trades just after.
    expect(refund!.messageId).toBe(`${s}:${at}`);
    expect(refund!.user).toBeUndefined();
    expect(pubs.slice(at - 2, at).map((p) => [p.channel, p.user])).toEqual([
      [ACCOUNT_FILLS_CHANNEL, THIRD],
      [ACCOUNT_FILLS_CHANNEL, TAKER],
    ]);
    expect(pubs[at + 1]!.channel).toBe(accountTradesChannel(THIRD));

    const takerFill = on(pubs, ACCOUNT_FILLS_CHANNEL, TAKER)[0]!.data as {
      id: string;
      ceRefundAmount: string;
    };
    expect(takerFill.ceRefundAmount).toBe((200n * USDC).toString());
    const restFill = (await queries.fills(TAKER, {}, fillListing(true), { limit: 10, after: null }))
      .map(fillToWire)
      .find((f) => f.id === takerFill.id);
    expect(restFill).toEqual(takerFill);
    expect(on(pubs, ACCOUNT_FILLS_CHANNEL, THIRD)[0]!.data).toMatchObject({ ceRefundAmount: '0' });
    for (const trade of data(on(pubs, accountTradesChannel(TAKER))))
      expect(trade.marketHasRefunds).toBe(true);

    expect(refund!.data).toEqual([
      {
        marketHash: MARKET,
        baseToken: BASE_TOKEN,
        totalRefunded: (200n * USDC).toString(),
        events: [
          {
            maker: false,
            amount: (200n * USDC).toString(),
            bettor: TAKER,
            baseToken: BASE_TOKEN,
            createdAt: new Date(entries[0]!.ts).toISOString(),
            marketHash: MARKET,
            fillOrderHash: takerFill.id,
          },
        ],
      },
    ]);
    expect([...Value.Errors(CeRefundUpdate, refund!.data)]).toEqual([]);
  });

  it('makes a refund only when its channel is followed, with the id it has when all are', async () => {
    await publish(
      await commit([{ kind: 'engine', command: { type: 'credit', account: THIRD, amount: 1_000n * USDC } }]),
    );
    const followed = new Set([ceRefundsChannel(TAKER)]);
    const partial = new TradingPublisher({ ...context(), observed: (channel) => followed.has(channel) });
    const batches = [
      await commit([place(order(MAKER, 400, 100n * USDC, { isOne: false }))]),
      await commit([place(order(TAKER, 400, 100n * USDC, { tif: 'IOC' }))]),
      await commit([place(order(THIRD, 400, 100n * USDC))]),
      await commit([place(order(TAKER, 400, 100n * USDC, { isOne: false, tif: 'IOC' }))]),
    ];
    const made: Publication[] = [];
    for (const entries of batches) {
      const all = await publish(entries);
      const some = await publish(entries, partial);
      expect(some).toEqual(all.filter((p) => followed.has(p.channel)));
      made.push(...some);
    }
    expect(made).toHaveLength(1);
  });

  describe('quarter-line bets on the public tapes', () => {
    const QUARTER = `0x${'cc'.repeat(32)}`;
    const WHOLE = `0x${'c1'.repeat(32)}`;
    const HALF = `0x${'c2'.repeat(32)}`;
    const TS = 1_700_000_500_000;

    /** A leg trade as the projection writes it (the quarter-line contract of orders/records.ts). */
    function legTrade(
      o: { orderId: string; account: string; isMaker: boolean },
      leg: 0 | 1,
      stake: bigint,
      pot: bigint,
    ) {
      const trade: TradeRecord = {
        id: legTradeIdOf(o.orderId, leg),
        orderId: o.orderId,
        account: o.account,
        marketHash: leg === 0 ? WHOLE : HALF,
        eventId: EVENT,
        isBettingOutcomeOne: !o.isMaker,
        isMaker: o.isMaker,
        stake: stake.toString(),
        pot: pot.toString(),
        status: 'MATCHED',
        outcome: null,
        payout: null,
        marketHasRefunds: false,
        quarterLineParentMarketHash: QUARTER,
        createdAt: TS,
        updatedAt: TS,
      };
      return trade;
    }

    /** One journal entry placing `taker` on the quarter-line market, with hand-made changes. */
    function entryWith(taker: ReturnType<typeof order>, trades: TradeRecord[]): ProjectedBatch {
      seq += 1;
      const input: SequencerInput = {
        kind: 'engine',
        command: { ...taker.order, marketHash: QUARTER },
        meta: taker.meta,
      };
      const entry: AppliedEntry = { seq, ts: TS, input, events: [] };
      return { batch: committedBatch([entry]), changes: [{ orders: [], fills: [], trades, refunds: [] }] };
    }

    it('puts each leg of a taker bet on recent_trades, and the legs then their parent on the consolidated tape', async () => {
      const maker = { orderId: `0x${'0e'.repeat(32)}`, account: MAKER, isMaker: true };
      const taker = order(TAKER, 400, 25n * USDC + 1n, { isOne: true, tif: 'IOC' });
      const t = { orderId: taker.order.orderId, account: TAKER, isMaker: false };
      // The odd unit goes to the whole line; the projection's order: per leg, maker then taker.
      const trades = [
        legTrade(maker, 0, 12_500_000n, 25_000_001n),
        legTrade(t, 0, 12_500_001n, 25_000_001n),
        legTrade(maker, 1, 12_500_000n, 25_000_000n),
        legTrade(t, 1, 12_500_000n, 25_000_000n),
      ];
      const projected = entryWith(taker, trades);
      const pubs = publisher.batch(projected);
      const s = projected.batch.firstSeq;

      const recent = GLOBAL_CHANNELS.recent_trades;
      const consolidated = GLOBAL_CHANNELS.recent_trades_consolidated;
      // Legs in the entry's order, each right after its trade row; the parent after the second leg.
      expect(pubs.map((p) => [p.channel, p.messageId])).toEqual([
        [accountTradesChannel(MAKER), `${s}:0`],
        [accountTradesChannel(TAKER), `${s}:1`],
        [recent, `${s}:2`],
        [consolidated, `${s}:3`],
        [accountTradesChannel(MAKER), `${s}:4`],
        [accountTradesChannel(TAKER), `${s}:5`],
        [recent, `${s}:6`],
        [consolidated, `${s}:7`],
        [consolidated, `${s}:8`],
      ]);
      for (const p of on(pubs, recent)) expectShape(RecentTrade, p);
      for (const p of on(pubs, consolidated)) expectShape(ConsolidatedTrade, p);

      const [whole, half] = [trades[1]!, trades[3]!];
      const parentId = tradeIdOf(t.orderId);
      expect(data(on(pubs, recent))).toEqual(
        [whole, half].map((leg) => ({
          ...publicTradeToWire(leg),
          isQuarterLineLeg: true,
          quarterLineParentMarketHash: QUARTER,
        })),
      );
      const cons = data(on(pubs, consolidated));
      expect(cons.slice(0, 2)).toEqual(
        [whole, half].map((leg) => ({
          ...publicTradeToWire(leg),
          isQuarterLineParent: false,
          isQuarterLineLeg: true,
          quarterLineFillHash: parentId,
          netReturn: (BigInt(leg.pot) - BigInt(leg.stake)).toString(),
        })),
      );
      expect(cons.map((c) => c.marketHash)).toEqual([WHOLE, HALF, QUARTER]);
      expect(cons[2]).toEqual({
        tradeId: parentId,
        marketHash: QUARTER,
        eventId: EVENT,
        isBettingOutcomeOne: true,
        totalStake: 25_000_001n.toString(),
        totalReturn: 50_000_001n.toString(),
        weightedAverageOdds: weightedOdds('25000001', '50000001'),
        betTime: new Date(TS).toISOString(),
        isParlay: false,
        isQuarterLineParent: true,
        isQuarterLineLeg: false,
        quarterLineFillHash: null,
        netReturn: 25_000_000n.toString(),
      });
    });

    it('keeps a maker’s leg trades off the tapes, and gives a leg without its partner no parent', async () => {
      const taker = order(TAKER, 400, 10n * USDC, { tif: 'IOC' });
      const t = { orderId: taker.order.orderId, account: TAKER, isMaker: false };
      const maker = { orderId: `0x${'0d'.repeat(32)}`, account: MAKER, isMaker: true };
      const makerOnly = publisher.batch(
        entryWith(taker, [
          legTrade(maker, 0, 5n * USDC, 10n * USDC),
          legTrade(maker, 1, 5n * USDC, 10n * USDC),
        ]),
      );
      expect(makerOnly.map((p) => p.channel)).toEqual([
        accountTradesChannel(MAKER),
        accountTradesChannel(MAKER),
      ]);

      const lone = publisher.batch(entryWith(taker, [legTrade(t, 0, 5n * USDC, 10n * USDC)]));
      expect(lone.map((p) => p.channel)).toEqual([
        accountTradesChannel(TAKER),
        GLOBAL_CHANNELS.recent_trades,
        GLOBAL_CHANNELS.recent_trades_consolidated,
      ]);
      expect(lone[2]!.data).toMatchObject({
        isQuarterLineLeg: true,
        quarterLineFillHash: tradeIdOf(t.orderId),
      });
    });
  });
});

describe('TradingPublisher with a book interval', () => {
  const INTERVAL = 100;
  let clock = 0;
  let timed: TradingPublisher;
  beforeEach(async () => {
    clock = 0;
    timed = new TradingPublisher({ ...context(), bookIntervalMs: INTERVAL, now: () => clock });
  });
  const books = (pubs: Publication[]) =>
    data<{ version: string; outcomeOne: { size: string }[] }>(on(pubs, orderBookMarketChannel(MARKET)));
  const engineBook = () =>
    bookToWire(engine.levels(MARKET)!, { takerPerspective: false, ladderSize: LADDER });

  it('publishes a market book at most once per interval: at once after a quiet spell, then the latest when the interval ends', async () => {
    const first = await publish(await commit([place(order(MAKER, 400, 10n * USDC))]), timed);
    expect(books(first)).toEqual([engineBook()]);
    expect(timed.nextBookInMs()).toBeUndefined();

    clock = 10;
    const second = await publish(await commit([place(order(MAKER, 401, 20n * USDC))]), timed);
    // The rows go at once; the book waits for the end of the interval.
    expect(on(second, accountOrdersChannel(MAKER))).toHaveLength(1);
    expect(books(second)).toEqual([]);
    expect(on(second, orderBookEventChannel(EVENT))).toEqual([]);
    expect(on(second, GLOBAL_CHANNELS.best_odds)).toEqual([]);
    expect(timed.nextBookInMs()).toBe(90);
    expect(timed.dueBooks()).toEqual([]);

    clock = 50;
    const third = await publish(await commit([place(order(MAKER, 402, 30n * USDC))]), timed);
    expect(books(third)).toEqual([]);
    expect(timed.nextBookInMs()).toBe(50);

    clock = 100;
    const due = timed.dueBooks();
    // One book, the latest (both orders in it), on both channels, and the best odds it moved.
    expect(books(due)).toEqual([engineBook()]);
    expect(books(due)[0]!.outcomeOne).toHaveLength(3);
    expect(data(on(due, orderBookEventChannel(EVENT)))).toEqual([engineBook()]);
    expect(data(on(due, GLOBAL_CHANNELS.best_odds))).toMatchObject([
      { marketHash: MARKET, outcomeOne: engineBook().outcomeOne[0] },
    ]);
    expect(timed.nextBookInMs()).toBeUndefined();
    expect(timed.dueBooks()).toEqual([]);

    // Within the next interval again: held back until 200, and versions only go up.
    clock = 150;
    expect(books(await publish(await commit([place(order(MAKER, 399, 5n * USDC))]), timed))).toEqual([]);
    clock = 200;
    const later = books(timed.dueBooks());
    expect(later).toEqual([engineBook()]);
    const versions = [first, due]
      .flatMap(books)
      .concat(later)
      .map((b) => b.version);
    expect([...new Set(versions)].sort()).toEqual(versions);
  });

  it('publishes no best odds when the held-back changes left the best level as it was', async () => {
    await publish(await commit([place(order(MAKER, 400, 10n * USDC))]), timed);
    clock = 10;
    const better = order(MAKER, 405, 10n * USDC);
    await publish(await commit([place(better)]), timed);
    await publish(
      await commit([
        {
          kind: 'engine',
          command: {
            type: 'cancel',
            orderIds: [better.order.orderId],
            account: MAKER,
            reason: 'USER_REQUESTED',
          },
        },
      ]),
      timed,
    );
    clock = 100;
    const due = timed.dueBooks();
    expect(books(due)).toEqual([engineBook()]);
    expect(on(due, GLOBAL_CHANNELS.best_odds)).toEqual([]);
  });

  it('publishes the last book of a market resolved while its book waits, and forgets the market', async () => {
    const maker = order(MAKER, 400, 10n * USDC);
    await publish(await commit([place(maker)]), timed);
    clock = 10;
    await publish(await commit([place(order(MAKER, 401, 10n * USDC))]), timed);
    expect(timed.nextBookInMs()).toBe(90);
    clock = 20;
    const resolve = await publish(
      await commit([{ kind: 'engine', command: { type: 'resolveMarket', marketHash: MARKET, outcome: 1 } }]),
      timed,
    );
    // Its orders are cancelled with it: the last book is empty, and goes at once.
    expect(books(resolve)).toMatchObject([{ outcomeOne: [], outcomeTwo: [] }]);
    expect(books(resolve)).toEqual([engineBook()]);
    expect(timed.nextBookInMs()).toBeUndefined();
    clock = 1_000;
    expect(timed.dueBooks()).toEqual([]);
  });
});

describe('TradingPublisher and a parlay quote window', () => {
  const T0 = 1_700_000_100_000;
  const PARLAY = `0x${'cd'.repeat(32)}`;
  const LEGS = [`0x${'01'.repeat(32)}`, `0x${'02'.repeat(32)}`];
  let wall = T0;
  let sealed: TradingPublisher;
  const parlayContext = (): TradingPublisherContext => ({
    ...context(),
    wallNow: () => wall,
    quoteWindowEndsAt: (hash) => engine.market(hash)?.parlay?.quoteWindowEndsAt,
  });
  beforeEach(async () => {
    wall = T0;
    sealed = new TradingPublisher(parlayContext());
    await publish(
      await commit(
        [
          ...LEGS.map(
            (marketHash, i): SequencerInput => ({
              kind: 'engine',
              command: { type: 'openMarket', marketHash, eventId: `L1-E${i + 2}` },
            }),
          ),
          {
            kind: 'engine',
            command: {
              type: 'openMarket',
              marketHash: PARLAY,
              eventId: 'parlay_500_x',
              parlay: {
                requester: TAKER,
                requestedAt: T0,
                baseToken: BASE_TOKEN,
                requestSize: null,
                quoteWindowEndsAt: T0 + 3_000,
                takeUntil: T0 + 63_000,
                feeBps: 500,
                feeAccount: THIRD,
                legs: LEGS.map((marketHash) => ({ marketHash, bettingOutcomeOne: true })),
              },
            },
          },
        ],
        T0,
      ),
      sealed,
    );
  });
  const offer = (account: string, tick: number, size: bigint, isOne = false) => {
    const o = order(account, tick, size, { isOne });
    return place({ ...o, order: { ...o.order, marketHash: PARLAY } });
  };
  /** Publications that show the parlay market's resting orders to the public. */
  const shown = (pubs: Publication[]) =>
    pubs.filter(
      (p) =>
        p.channel === orderBookMarketChannel(PARLAY) ||
        (p.channel !== orderBookMarketChannel(MARKET) && p.channel.startsWith('order_book')) ||
        (p.channel === GLOBAL_CHANNELS.best_odds && (p.data as { marketHash: string }).marketHash === PARLAY),
    );
  const parlayBook = () =>
    bookToWire(engine.levels(PARLAY)!, { takerPerspective: false, ladderSize: LADDER });

  it('publishes no offer during the window, then the whole book once as it closes; later changes at once', async () => {
    wall = T0 + 100;
    const first = await publish(await commit([offer(MAKER, 640, 40n * USDC)], T0 + 100), sealed);
    // The maker's own rows go; no book, event book or best odds shows the offer.
    expect(on(first, accountOrdersChannel(MAKER))).toHaveLength(1);
    expect(shown(first)).toEqual([]);
    wall = T0 + 200;
    const second = await publish(await commit([offer(MAKER, 600, 20n * USDC)], T0 + 200), sealed);
    expect(shown(second)).toEqual([]);
    expect(sealed.nextBookInMs()).toBe(2_800);
    expect(sealed.dueBooks()).toEqual([]);

    wall = T0 + 3_000;
    expect(sealed.nextBookInMs()).toBe(0);
    const due = sealed.dueBooks();
    expect(data(on(due, orderBookMarketChannel(PARLAY)))).toEqual([parlayBook()]);
    expect(parlayBook().outcomeTwo).toHaveLength(2);
    expect(data(on(due, GLOBAL_CHANNELS.best_odds))).toMatchObject([{ marketHash: PARLAY }]);
    expect(sealed.nextBookInMs()).toBeUndefined();
    expect(sealed.dueBooks()).toEqual([]);

    // The requester's take, after the window: its book goes with its batch.
    wall = T0 + 4_000;
    const take = await publish(await commit([offer(TAKER, 360, 10n * USDC, true)], T0 + 4_000), sealed);
    expect(data(on(take, orderBookMarketChannel(PARLAY)))).toEqual([parlayBook()]);
  });

  it('trusts the sequencer’s time when it is ahead: a batch after the window publishes the book at once', async () => {
    wall = T0 + 100;
    await publish(await commit([offer(MAKER, 640, 40n * USDC)], T0 + 100), sealed);
    // This node's clock lags the sequencer's, which is past the window.
    const take = await publish(await commit([offer(TAKER, 360, 10n * USDC, true)], T0 + 3_001), sealed);
    expect(data(on(take, orderBookMarketChannel(PARLAY)))).toEqual([parlayBook()]);
    expect(sealed.nextBookInMs()).toBeUndefined();
  });

  it('seals offers that rested before the publisher started, and shows them as the window closes', async () => {
    wall = T0 + 100;
    await publish(await commit([offer(MAKER, 640, 40n * USDC)], T0 + 100), sealed);
    const restarted = new TradingPublisher(parlayContext());
    expect(restarted.nextBookInMs()).toBe(2_900);
    wall = T0 + 3_000;
    expect(data(on(restarted.dueBooks(), orderBookMarketChannel(PARLAY)))).toEqual([parlayBook()]);
  });
});
