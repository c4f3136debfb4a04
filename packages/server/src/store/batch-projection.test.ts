import { describe, expect, it } from 'vitest';
import type { OrderMatchedEvent } from '../engine/index.js';
import { legTradeIdOf, type TradeRecord, tradeIdOf } from '../records/records.js';
import { BatchProjection, type SequencedTrade } from './batch-projection.js';

const MARKET = `0x${'cd'.repeat(32)}`;

const matched = (matchId: string, makerOrderId: string, takerOrderId: string): OrderMatchedEvent => ({
  type: 'orderMatched',
  matchId,
  marketHash: MARKET,
  eventId: 'ev',
  tick: 400,
  makerOdds: 50n,
  takerOdds: 50n,
  makerOrderId,
  makerAccount: '0xa',
  makerIsBettingOutcomeOne: true,
  makerStake: 10n,
  makerRemainingSize: 0n,
  takerOrderId,
  takerAccount: '0xb',
  takerStake: 10n,
  takerRemainingSize: 0n,
});

const committedTrade = (orderId: string): TradeRecord => ({
  id: tradeIdOf(orderId),
  orderId,
  account: '0xa',
  marketHash: MARKET,
  eventId: 'ev',
  isBettingOutcomeOne: true,
  isMaker: true,
  stake: '10',
  pot: '20',
  status: 'MATCHED',
  outcome: null,
  payout: null,
  marketHasRefunds: false,
  quarterLineParentMarketHash: null,
  createdAt: 1,
  updatedAt: 1,
});

describe('BatchProjection: trades', () => {
  it("keeps each trade's last fill seq, which decides when its escrows have landed", () => {
    const committed = new Map<string, SequencedTrade>([
      [tradeIdOf('maker'), { row: committedTrade('maker'), lastFillSeq: 3 }],
    ]);
    const rows = new BatchProjection({
      order: () => null,
      trade: (id) => committed.get(id) ?? null,
      marketHasRefunds: () => false,
    });
    rows.beginEntry(7, 70);
    rows.matched(matched('7-0', 'maker', 'taker1'));
    rows.endEntry();
    rows.beginEntry(8, 80);
    rows.matched(matched('8-0', 'maker', 'taker2'));
    const changes = rows.endEntry();

    const trades = new Map(rows.dirty().trades.map((t) => [t.row.orderId, t]));
    expect(trades.get('maker')).toMatchObject({
      isNew: false,
      lastFillSeq: 8,
      row: { status: 'MATCHED', stake: '30', pot: '60', updatedAt: 80 },
    });
    expect(trades.get('taker1')).toMatchObject({ isNew: true, lastFillSeq: 7, row: { status: 'MATCHED' } });
    // The seq is the exchange's own bookkeeping: what realtime publishes is the trade row alone.
    expect(changes.trades.map((t) => Object.keys(t).includes('lastFillSeq'))).toEqual([false, false]);
  });
});

describe('BatchProjection: capital-efficiency refunds', () => {
  it("puts a refund on its side's fill, keeps it as a row, and flags the market's trades", () => {
    const rows = new BatchProjection({ order: () => null, trade: () => null, marketHasRefunds: () => false });
    rows.beginEntry(9, 90);
    rows.matched(matched('9-0', 'maker', 'taker'));
    rows.refunded({
      type: 'ceRefund',
      account: '0xb',
      marketHash: MARKET,
      eventId: 'ev',
      amount: 4n,
      refundedTotal: 6n,
      matchId: '9-0',
      maker: false,
      orderId: 'taker',
    });
    const changes = rows.endEntry();
    expect(changes.fills.map((f) => [f.id, f.ceRefundAmount])).toEqual([
      ['9-0-M', '0'],
      ['9-0-T', '4'],
    ]);
    expect(changes.refunds).toEqual([
      {
        seq: 9,
        account: '0xb',
        marketHash: MARKET,
        fillId: '9-0-T',
        isMaker: false,
        amount: '4',
        refundedTotal: '6',
        createdAt: 90,
      },
    ]);
    expect(changes.trades.map((t) => t.marketHasRefunds)).toEqual([true, true]);
    // The market is known to have refunds for the rest of the batch: no read of the committed rows.
    rows.beginEntry(10, 100);
    rows.matched(matched('10-0', 'maker2', 'taker2'));
    expect(rows.endEntry().trades.map((t) => t.marketHasRefunds)).toEqual([true, true]);
    expect(rows.dirty().refunds).toHaveLength(1);
  });
});

describe('BatchProjection: quarter-line markets', () => {
  const WHOLE = `0x${'01'.repeat(32)}`;
  const HALF = `0x${'02'.repeat(32)}`;
  /** 11 against 7 on the quarter-line market: the odd units to the whole line. */
  const quarterMatch = (matchId: string, makerOrderId: string, takerOrderId: string): OrderMatchedEvent => ({
    ...matched(matchId, makerOrderId, takerOrderId),
    makerStake: 11n,
    takerStake: 7n,
    legs: [
      { marketHash: WHOLE, makerStake: 6n, takerStake: 4n },
      { marketHash: HALF, makerStake: 5n, takerStake: 3n },
    ],
  });
  const order = (id: string, total: string) => ({
    id,
    account: '0xa' as const,
    marketHash: MARKET,
    eventId: 'ev',
    isBettingOutcomeOne: true,
    percentageOdds: '50',
    totalBetSize: total,
    remainingSize: total,
    filledSize: '0',
    expiry: 0,
    timeInForce: 'GTC',
    status: 'ACTIVE' as const,
    inactiveReason: null,
    clientOrderId: null,
    createdAt: 1,
    updatedAt: 1,
    fillPot: '0',
    placedSeq: 1,
    activateAt: null,
    commandId: 'c',
  });

  it('makes one fill per side and leg on the leg markets, and one trade per order and leg', () => {
    const rows = new BatchProjection({
      order: (id) => (id === 'maker' ? order('maker', '22') : null),
      trade: () => null,
      marketHasRefunds: () => false,
    });
    rows.beginEntry(5, 50);
    rows.matched({ ...quarterMatch('5-0', 'maker', 'taker'), makerRemainingSize: 11n });
    rows.refunded({
      type: 'ceRefund',
      account: '0xb',
      marketHash: HALF,
      eventId: 'ev',
      amount: 2n,
      refundedTotal: 2n,
      matchId: '5-0',
      maker: false,
      orderId: 'taker',
    });
    const first = rows.endEntry();
    expect(first.fills.map((f) => [f.id, f.marketHash, f.fillAmount, f.pot, f.ceRefundAmount])).toEqual([
      ['5-0-M0', WHOLE, '6', '10', '0'],
      ['5-0-M1', HALF, '5', '8', '0'],
      ['5-0-T0', WHOLE, '4', '10', '0'],
      ['5-0-T1', HALF, '3', '8', '2'],
    ]);
    expect(first.fills.every((f) => f.quarterLineParentMarketHash === MARKET && f.fillOdds === '50')).toBe(
      true,
    );
    expect(first.fills.map((f) => f.tradeId)).toEqual([
      legTradeIdOf('maker', 0),
      legTradeIdOf('maker', 1),
      legTradeIdOf('taker', 0),
      legTradeIdOf('taker', 1),
    ]);
    expect(first.refunds.map((r) => [r.fillId, r.marketHash])).toEqual([['5-0-T1', HALF]]);
    // The refund is of the half line: only its trades show it.
    expect(first.trades.map((t) => [t.id, t.marketHash, t.stake, t.pot, t.marketHasRefunds])).toEqual([
      [legTradeIdOf('maker', 0), WHOLE, '6', '10', false],
      [legTradeIdOf('maker', 1), HALF, '5', '8', true],
      [legTradeIdOf('taker', 0), WHOLE, '4', '10', false],
      [legTradeIdOf('taker', 1), HALF, '3', '8', true],
    ]);
    expect(first.trades.every((t) => t.quarterLineParentMarketHash === MARKET)).toBe(true);
    // The order row stays on the quarter-line market, with the whole fill.
    expect(first.orders.map((o) => [o.id, o.marketHash, o.filledSize, o.fillPot])).toEqual([
      ['maker', MARKET, '11', '18'],
    ]);

    // A second fill of the maker adds to its leg trades.
    rows.beginEntry(6, 60);
    rows.matched(quarterMatch('6-0', 'maker', 'taker2'));
    const second = rows.endEntry();
    const maker = second.trades.filter((t) => t.orderId === 'maker');
    expect(maker.map((t) => [t.id, t.stake, t.pot])).toEqual([
      [legTradeIdOf('maker', 0), '12', '20'],
      [legTradeIdOf('maker', 1), '10', '16'],
    ]);
    expect(second.orders.find((o) => o.id === 'maker')).toMatchObject({ filledSize: '22', fillPot: '36' });
    expect(rows.dirty().trades.filter((t) => t.isNew)).toHaveLength(6);
  });

  it('reads a committed leg trade once its order has filled before', () => {
    const committedLeg: TradeRecord = {
      ...committedTrade('maker'),
      id: legTradeIdOf('maker', 0),
      marketHash: WHOLE,
      stake: '6',
      pot: '10',
      quarterLineParentMarketHash: MARKET,
    };
    const reads: string[] = [];
    const rows = new BatchProjection({
      order: (id) =>
        id === 'maker' ? { ...order('maker', '22'), filledSize: '11', remainingSize: '11' } : null,
      trade: (id) => {
        reads.push(id);
        return id === committedLeg.id ? { row: committedLeg, lastFillSeq: 5 } : null;
      },
      marketHasRefunds: () => false,
    });
    rows.beginEntry(6, 60);
    rows.matched(quarterMatch('6-0', 'maker', 'taker'));
    const changes = rows.endEntry();
    expect(reads).toEqual([
      legTradeIdOf('maker', 0),
      legTradeIdOf('maker', 1),
      legTradeIdOf('taker', 0),
      legTradeIdOf('taker', 1),
    ]);
    expect(changes.trades.find((t) => t.id === committedLeg.id)).toMatchObject({ stake: '12', pot: '20' });
  });
});
