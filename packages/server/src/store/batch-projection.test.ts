import { describe, expect, it } from 'vitest';
import type { OrderMatchedEvent } from '../engine/index.js';
import { type TradeRecord, tradeIdOf } from '../orders/records.js';
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

    const trades = new Map(rows.takeDirty().trades.map((t) => [t.row.orderId, t]));
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
    expect(rows.takeDirty().refunds).toHaveLength(1);
  });
});
