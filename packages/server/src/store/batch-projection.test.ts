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
  createdAt: 1,
  updatedAt: 1,
});

describe('BatchProjection: trades', () => {
  it("keeps each trade's last fill seq, which decides when its escrows have landed", () => {
    const committed = new Map<string, SequencedTrade>([
      [tradeIdOf('maker'), { row: committedTrade('maker'), lastFillSeq: 3 }],
    ]);
    const rows = new BatchProjection({ order: () => null, trade: (id) => committed.get(id) ?? null });
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
