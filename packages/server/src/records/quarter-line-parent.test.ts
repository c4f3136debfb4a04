import { describe, expect, it } from 'vitest';
import { quarterLineParentTrade } from './quarter-line-parent.js';
import { legTradeIdOf, type TradeRecord, tradeIdOf } from './records.js';

const leg = (index: 0 | 1, fields: Partial<TradeRecord> = {}): TradeRecord => ({
  id: legTradeIdOf('o', index),
  orderId: 'o',
  account: '0xa',
  marketHash: index === 0 ? 'W' : 'H',
  eventId: 'e',
  isBettingOutcomeOne: true,
  isMaker: false,
  stake: index === 0 ? '51' : '50',
  pot: index === 0 ? '102' : '100',
  status: 'MATCHED',
  outcome: null,
  payout: null,
  marketHasRefunds: false,
  quarterLineParentMarketHash: 'Q',
  createdAt: 10,
  updatedAt: 10 + index,
  ...fields,
});

describe('quarterLineParentTrade', () => {
  it('sums its legs on the quarter-line market, under the order ordinary trade id', () => {
    expect(quarterLineParentTrade(leg(0), leg(1))).toMatchObject({
      id: tradeIdOf('o'),
      marketHash: 'Q',
      stake: '101',
      pot: '202',
      status: 'MATCHED',
      outcome: null,
      payout: null,
      quarterLineParentMarketHash: null,
      createdAt: 10,
      updatedAt: 11,
    });
  });

  it('is settled once both legs are, with the half line outcome and both payouts', () => {
    const settled = (index: 0 | 1, outcome: number, payout: string) =>
      leg(index, { status: 'SETTLED', outcome, payout });
    expect(quarterLineParentTrade(leg(0, { status: 'LOCKED' }), settled(1, 2, '0'))).toMatchObject({
      status: 'LOCKED',
      outcome: null,
      payout: null,
    });
    expect(quarterLineParentTrade(settled(0, 0, '51'), settled(1, 2, '0'))).toMatchObject({
      status: 'SETTLED',
      outcome: 2,
      payout: '51',
    });
    expect(quarterLineParentTrade(leg(0, { status: 'FAILED' }), leg(1))).toMatchObject({ status: 'FAILED' });
    expect(quarterLineParentTrade(leg(0, { marketHasRefunds: true }), leg(1)).marketHasRefunds).toBe(true);
  });
});
