import {
  ACCOUNT_FILLS_CHANNEL,
  type AccountOrderUpdate,
  type BestOddsUpdate,
  type ConsolidatedTrade,
  GLOBAL_CHANNELS,
  type OrderOutcome,
  orderBookMarketChannel,
  type RecentTrade,
} from '@oddsbook/protocol';
import { type BookLevels, type EngineEvent, RejectCode } from '../../engine/index.js';
import { bookToWire, levelToWire } from '../../orders/book.js';
import type { FillLockUpdate } from '../../orders/chain-link.js';
import { outcomeOf, withdrawnOutcome } from '../../orders/outcome.js';
import { fillToWire, orderToWire, publicTradeToWire, tradeToWire } from '../../orders/wire.js';
import type { AppliedEntry } from '../../sequencer/inputs.js';
import type { FillRecord, OrderRecord, TradeRecord } from '../../store/sqlite/sqlite-trading-queries.js';
import { fillIdOf, tradeIdOf as hashTradeId } from '../../store/sqlite/sqlite-trading-store.js';
import { AccountChannels, eventBookChannel, type Publication } from './publication.js';
import type { TradingRows } from './trading-rows.js';

export type TradingPublisherContext = {
  rows: TradingRows;
  /** The proxy wallet of an account (the order row's `wallet`). */
  walletOf(account: `0x${string}`): `0x${string}`;
  /** The engine's book of a market now (right after the batch's commit, before the next batch). */
  levels(marketHash: string): BookLevels | undefined;
  /** Sport and league of a market when known without I/O (optional fields of `best_odds:global`). */
  marketInfo(marketHash: string): { sportId: number; leagueId: number } | undefined;
  ladderSize: number;
};

/** An order's state after one journal entry, as the projection wrote it (or the final row, `final`). */
type OrderState =
  | { final: true }
  | {
      final?: false;
      status: OrderRecord['status'];
      inactiveReason: string | null;
      remainingSize: bigint;
      /** Undefined: total - remaining (a fill). */
      filledSize?: bigint;
    };

type OrderTouch = { account: string; state: OrderState };
type CreateResult = { commandId: string; outcome?: OrderOutcome };
type Amounts = { stake: bigint; pot: bigint };

/**
 * Maps committed journal entries (and escrow lock updates) to publications. Rows are the REST rows: the
 * projections are read once per batch (the final rows) and each entry's publication carries the state
 * after that entry, derived from its events, so a burst of commands in one batch still shows each step.
 *
 * Per entry, in this order: order rows (account + active orders), fills, trades, public trades, rows
 * settled by a resolution. Per batch, at the end: one book per changed market (market and event
 * channels) and best odds where they moved. Message ids are `<seq>:<n>`, the n-th publication of the
 * journal entry `seq` (batch-level ones continue the numbering of the batch's last entry).
 */
export class TradingPublisher {
  readonly #ctx: TradingPublisherContext;
  readonly #names = new AccountChannels();
  /** Last published best level of each side, per market. */
  readonly #bestOdds = new Map<string, string>();

  constructor(context: TradingPublisherContext) {
    this.#ctx = context;
  }

  batch(entries: readonly AppliedEntry[]): Publication[] {
    if (entries.length === 0) return [];
    const out: Publication[] = [];
    const orderRows = new Map<string, OrderRecord | null>();
    const tradeRows = new Map<string, TradeRecord | null>();
    // Stake and pot each trade gains in the rest of the batch: subtracted from the final row.
    const laterTrade = new Map<string, Amounts>();
    for (const entry of entries) {
      for (const e of entry.events) if (e.type === 'orderMatched') addMatch(laterTrade, e);
    }
    const changedMarkets = new Set<string>();
    let lastCount = 0;

    for (const entry of entries) {
      const pubs: Publication[] = [];
      this.#entry(entry, pubs, { orderRows, tradeRows, laterTrade, changedMarkets });
      for (const [i, p] of pubs.entries()) out.push({ ...p, messageId: `${entry.seq}:${i}` });
      lastCount = pubs.length;
    }

    const lastSeq = entries[entries.length - 1]!.seq;
    for (const marketHash of changedMarkets) {
      for (const p of this.#book(marketHash)) out.push({ ...p, messageId: `${lastSeq}:${lastCount++}` });
    }
    return out;
  }

  /** Fill rows that turned LOCKED/FAILED, and their trades when the trade's status changed with them. */
  lockUpdates(updates: readonly FillLockUpdate[]): Publication[] {
    const out: Publication[] = [];
    const trades = new Map<string, string>();
    for (const u of updates) {
      const fill = this.#ctx.rows.fill(u.fillId);
      if (fill) {
        out.push({
          channel: ACCOUNT_FILLS_CHANNEL,
          user: this.#names.of(u.account).user,
          data: fillToWire(fill),
          messageId: `fill:${u.fillId}:${fill.status}`,
        });
      }
      trades.set(u.tradeId, u.account);
    }
    for (const [tradeId, account] of trades) {
      const trade = this.#ctx.rows.trade(tradeId);
      if (!trade || (trade.status !== 'LOCKED' && trade.status !== 'FAILED')) continue;
      out.push({
        channel: this.#names.of(account).trades,
        data: tradeToWire(trade),
        messageId: `trade:${tradeId}:${trade.status}:${trade.updatedAt}`,
      });
    }
    return out;
  }

  #entry(
    entry: AppliedEntry,
    pubs: Publication[],
    batch: {
      orderRows: Map<string, OrderRecord | null>;
      tradeRows: Map<string, TradeRecord | null>;
      laterTrade: Map<string, Amounts>;
      changedMarkets: Set<string>;
    },
  ): void {
    const { input, events, ts } = entry;
    const orders = new Map<string, OrderTouch>();
    const creates = new Map<string, CreateResult>();
    const tradeDeltas = new Map<string, Amounts>();
    const fills: FillRecord[] = [];
    const resolved: string[] = [];

    if (input.kind === 'admit') {
      const { order, meta } = input;
      orders.set(order.orderId, {
        account: order.account,
        state: { status: 'PENDING', inactiveReason: null, remainingSize: order.totalBetSize, filledSize: 0n },
      });
      creates.set(order.orderId, { commandId: meta.commandId });
    } else if (input.kind === 'withdraw') {
      for (const orderId of input.orderIds) {
        const ref = this.#ctx.rows.orderRef(orderId);
        if (!ref) continue;
        const row = cached(batch.orderRows, orderId, () => this.#ctx.rows.order(ref.account, orderId));
        if (!row) continue;
        orders.set(orderId, { account: ref.account, state: { final: true } });
        // Only an order still waiting its delay is withdrawn; the projection leaves any other untouched.
        const withdrawn = row.status === 'INACTIVE' && row.inactiveReason === input.reason;
        creates.set(orderId, {
          commandId: ref.commandId,
          ...(withdrawn ? { outcome: withdrawnOutcome(BigInt(row.totalBetSize), input.reason) } : {}),
        });
      }
    } else if (input.command.type === 'place' && input.meta) {
      const place = input.command;
      const outcome = outcomeOf(place.orderId, place.totalBetSize, events);
      creates.set(place.orderId, { commandId: input.meta.commandId, ...(outcome ? { outcome } : {}) });
    }

    for (const e of events) {
      switch (e.type) {
        case 'orderAccepted':
          orders.set(e.orderId, {
            account: e.account,
            state: { status: 'PENDING', inactiveReason: null, remainingSize: e.totalBetSize, filledSize: 0n },
          });
          break;
        case 'orderRejected':
          // A replayed order id is not an order of its own: the original row is untouched.
          if (e.code === RejectCode.DUPLICATE_ORDER_ID) creates.delete(e.orderId);
          else orders.set(e.orderId, { account: e.account, state: { final: true } });
          break;
        case 'orderRested':
          orders.set(e.orderId, {
            account: e.account,
            state: {
              status: 'ACTIVE',
              inactiveReason: null,
              remainingSize: e.remainingSize,
              filledSize: e.filledSize,
            },
          });
          break;
        case 'orderMatched':
          orders.set(e.makerOrderId, {
            account: e.makerAccount,
            state: { status: 'ACTIVE', inactiveReason: null, remainingSize: e.makerRemainingSize },
          });
          orders.set(e.takerOrderId, {
            account: e.takerAccount,
            state: { status: 'PENDING', inactiveReason: null, remainingSize: e.takerRemainingSize },
          });
          fills.push(...fillsOf(e, ts));
          addMatch(tradeDeltas, e);
          break;
        case 'orderDone':
          orders.set(e.orderId, {
            account: e.account,
            state: {
              status: 'INACTIVE',
              inactiveReason: e.reason,
              remainingSize: e.remainingSize,
              filledSize: e.filledSize,
            },
          });
          break;
        case 'levelChanged':
          batch.changedMarkets.add(e.marketHash);
          break;
        case 'marketResolved':
          resolved.push(e.marketHash);
          break;
        default:
          break;
      }
    }

    for (const [orderId, touch] of orders) {
      const row = this.#orderRow(batch.orderRows, orderId, touch, ts);
      if (!row) continue;
      const names = this.#names.of(touch.account);
      const wire = orderToWire(row, this.#ctx.walletOf(row.account));
      const create = creates.get(orderId);
      const update: Omit<AccountOrderUpdate, 'messageId'> = create ? { ...wire, ...create } : wire;
      pubs.push({ channel: names.orders, data: update });
      // An order placed and gone in the same command (an IOC, a refused order) was never open.
      const neverOpen = row.status === 'INACTIVE' && row.createdAt === ts && input.kind === 'engine';
      if (!neverOpen) pubs.push({ channel: names.active, data: wire });
    }

    for (const fill of fills) {
      pubs.push({
        channel: ACCOUNT_FILLS_CHANNEL,
        user: this.#names.of(fill.account).user,
        data: fillToWire(fill),
      });
    }

    for (const [tradeId, delta] of tradeDeltas) {
      const later = batch.laterTrade.get(tradeId)!;
      later.stake -= delta.stake;
      later.pot -= delta.pot;
      const final = cached(batch.tradeRows, tradeId, () => this.#ctx.rows.trade(tradeId));
      if (!final) continue;
      const trade: TradeRecord = {
        ...final,
        stake: (BigInt(final.stake) - later.stake).toString(),
        pot: (BigInt(final.pot) - later.pot).toString(),
        status: final.status === 'FAILED' ? 'FAILED' : 'MATCHED',
        outcome: null,
        payout: null,
        updatedAt: ts,
      };
      pubs.push({ channel: this.#names.of(trade.account).trades, data: tradeToWire(trade) });
      if (!trade.isMaker) pubs.push(...publicTrades(trade));
    }

    for (const marketHash of resolved) {
      for (const trade of this.#ctx.rows.settledTrades(marketHash)) {
        pubs.push({ channel: this.#names.of(trade.account).trades, data: tradeToWire(trade) });
      }
      for (const fill of this.#ctx.rows.settledFills(marketHash)) {
        pubs.push({
          channel: ACCOUNT_FILLS_CHANNEL,
          user: this.#names.of(fill.account).user,
          data: fillToWire(fill),
        });
      }
    }
  }

  #orderRow(
    rows: Map<string, OrderRecord | null>,
    orderId: string,
    touch: OrderTouch,
    ts: number,
  ): OrderRecord | null {
    const final = cached(rows, orderId, () => this.#ctx.rows.order(touch.account, orderId));
    if (!final || touch.state.final) return final;
    const { status, inactiveReason, remainingSize, filledSize } = touch.state;
    return {
      ...final,
      status,
      inactiveReason,
      remainingSize: remainingSize.toString(),
      filledSize: (filledSize ?? BigInt(final.totalBetSize) - remainingSize).toString(),
      updatedAt: ts,
    };
  }

  #book(marketHash: string): Publication[] {
    const levels = this.#ctx.levels(marketHash);
    if (!levels) return [];
    const book = bookToWire(levels, { takerPerspective: false, ladderSize: this.#ctx.ladderSize });
    const pubs: Publication[] = [{ channel: orderBookMarketChannel(marketHash), data: book }];
    const eventChannel = eventBookChannel(levels.eventId);
    if (eventChannel) pubs.push({ channel: eventChannel, data: book });

    const one = levels.outcomeOne[0];
    const two = levels.outcomeTwo[0];
    const key = `${one ? `${one.tick}:${one.size}` : '-'}|${two ? `${two.tick}:${two.size}` : '-'}`;
    if (this.#bestOdds.get(marketHash) !== key) {
      this.#bestOdds.set(marketHash, key);
      const info = this.#ctx.marketInfo(marketHash);
      const best: Omit<BestOddsUpdate, 'messageId'> = {
        marketHash,
        eventId: levels.eventId,
        outcomeOne: one ? levelToWire(one) : null,
        outcomeTwo: two ? levelToWire(two) : null,
        ...(info ? { sportId: info.sportId, leagueId: info.leagueId } : {}),
      };
      pubs.push({ channel: GLOBAL_CHANNELS.best_odds, data: best });
    }
    return pubs;
  }
}

const TRADE_ID_CACHE_LIMIT = 100_000;
const tradeIds = new Map<string, string>();

/** Trade ids are a hash of the order id, needed several times per fill: remembered for busy orders. */
function tradeIdOf(orderId: string): string {
  let id = tradeIds.get(orderId);
  if (id === undefined) {
    if (tradeIds.size >= TRADE_ID_CACHE_LIMIT) tradeIds.clear();
    id = hashTradeId(orderId);
    tradeIds.set(orderId, id);
  }
  return id;
}

function cached<K, V>(map: Map<K, V>, key: K, read: () => V): V {
  if (map.has(key)) return map.get(key) as V;
  const value = read();
  map.set(key, value);
  return value;
}

function addMatch(totals: Map<string, Amounts>, e: Extract<EngineEvent, { type: 'orderMatched' }>): void {
  const pot = e.makerStake + e.takerStake;
  for (const [orderId, stake] of [
    [e.makerOrderId, e.makerStake],
    [e.takerOrderId, e.takerStake],
  ] as const) {
    const tradeId = tradeIdOf(orderId);
    const t = totals.get(tradeId);
    if (t) {
      t.stake += stake;
      t.pot += pot;
    } else totals.set(tradeId, { stake, pot });
  }
}

/** The two fill rows of a match, as the projection writes them. */
function fillsOf(e: Extract<EngineEvent, { type: 'orderMatched' }>, ts: number): FillRecord[] {
  const pot = (e.makerStake + e.takerStake).toString();
  const common = { matchId: e.matchId, marketHash: e.marketHash, pot, status: 'MATCHED', createdAt: ts };
  return [
    {
      ...common,
      id: fillIdOf(e.matchId, 'maker'),
      orderId: e.makerOrderId,
      tradeId: tradeIdOf(e.makerOrderId),
      account: e.makerAccount,
      isBettingOutcomeOne: e.makerIsBettingOutcomeOne,
      isMaker: true,
      fillAmount: e.makerStake.toString(),
      fillOdds: e.makerOdds.toString(),
    },
    {
      ...common,
      id: fillIdOf(e.matchId, 'taker'),
      orderId: e.takerOrderId,
      tradeId: tradeIdOf(e.takerOrderId),
      account: e.takerAccount,
      isBettingOutcomeOne: !e.makerIsBettingOutcomeOne,
      isMaker: false,
      fillAmount: e.takerStake.toString(),
      fillOdds: e.takerOdds.toString(),
    },
  ];
}

/** A taker bet on the two public tapes (quarter-line legs are not split yet: every flag is false). */
function publicTrades(trade: TradeRecord): Publication[] {
  const row = publicTradeToWire(trade);
  const recent: Omit<RecentTrade, 'messageId'> = { ...row, isQuarterLineLeg: false };
  const consolidated: Omit<ConsolidatedTrade, 'messageId'> = {
    ...row,
    isQuarterLineParent: false,
    isQuarterLineLeg: false,
    quarterLineFillHash: null,
    netReturn: (BigInt(trade.pot) - BigInt(trade.stake)).toString(),
  };
  return [
    { channel: GLOBAL_CHANNELS.recent_trades, data: recent },
    { channel: GLOBAL_CHANNELS.recent_trades_consolidated, data: consolidated },
  ];
}
