import { describe, expect, it } from 'vitest';
import type { FillRecord, TradeRecord } from './records.js';
import { type SettlementState, shownFill, shownTrade, tradeFee, tradePayout } from './shown.js';

const fill = (status: string, seq: number): FillRecord => ({
  id: `f${seq}`,
  matchId: `${seq}-0`,
  orderId: 'o',
  tradeId: 't',
  account: 'a',
  marketHash: 'm',
  isBettingOutcomeOne: true,
  isMaker: true,
  fillAmount: '5',
  pot: '12',
  fillOdds: '50',
  status,
  seq,
  ceRefundAmount: '0',
  quarterLineParentMarketHash: null,
  createdAt: 1,
});

const trade = (status: string, isOne = true, payout: string | null = null): TradeRecord => ({
  id: 't',
  orderId: 'o',
  account: 'a',
  marketHash: 'm',
  eventId: 'e',
  isBettingOutcomeOne: isOne,
  isMaker: true,
  stake: '5',
  pot: '12',
  status,
  outcome: null,
  payout,
  marketHasRefunds: false,
  quarterLineParentMarketHash: null,
  createdAt: 1,
  updatedAt: 1,
});

const nothing: SettlementState = { lock: null, resolution: null, payout: null };
const lockedThrough = (throughSeq: number): SettlementState => ({
  ...nothing,
  lock: { throughSeq, lockedAt: 7 },
});
const resolved = (outcome: 0 | 1 | 2, payout: SettlementState['payout'] = null): SettlementState => ({
  lock: { throughSeq: 1, lockedAt: 7 },
  resolution: { outcome, settledAt: 50 },
  payout,
});

describe('how fills and trades show', () => {
  it('shows a MATCHED row LOCKED once its account has landed through its seq, with the lock time', () => {
    expect(shownFill(fill('MATCHED', 2), lockedThrough(2)).status).toBe('LOCKED');
    expect(shownFill(fill('MATCHED', 3), lockedThrough(2)).status).toBe('MATCHED');
    expect(shownFill(fill('MATCHED', 3), nothing).status).toBe('MATCHED');
    expect(shownTrade(trade('MATCHED'), 2, lockedThrough(2))).toMatchObject({
      status: 'LOCKED',
      updatedAt: 7,
    });
    // A trade is LOCKED once its last fill is.
    expect(shownTrade(trade('MATCHED'), 3, lockedThrough(2))).toMatchObject({
      status: 'MATCHED',
      updatedAt: 1,
    });
  });

  it('shows a row of a resolved market SETTLED with the outcome and its payout, as of the resolution', () => {
    expect(shownFill(fill('MATCHED', 9), resolved(1)).status).toBe('SETTLED');
    expect(shownTrade(trade('MATCHED'), 9, resolved(1))).toMatchObject({
      status: 'SETTLED',
      outcome: 1,
      payout: '12',
      updatedAt: 50,
    });
    expect(shownTrade(trade('MATCHED', false), 9, resolved(1))).toMatchObject({ outcome: 1, payout: '0' });
    expect(shownTrade(trade('MATCHED', false), 9, resolved(0))).toMatchObject({ outcome: 0, payout: '5' });
  });

  it('waits for a payout the chain pays: SETTLED only once it landed, as of its landing', () => {
    const unpaid = resolved(1, { paidAt: null });
    expect(shownFill(fill('MATCHED', 1), unpaid).status).toBe('LOCKED');
    expect(shownTrade(trade('MATCHED'), 1, unpaid)).toMatchObject({ status: 'LOCKED', payout: null });
    expect(shownTrade(trade('MATCHED'), 1, resolved(1, { paidAt: 60 }))).toMatchObject({
      status: 'SETTLED',
      payout: '12',
      updatedAt: 60,
    });
  });

  it('keeps FAILED and stored SETTLED rows as they are', () => {
    expect(shownFill(fill('FAILED', 1), resolved(1))).toEqual(fill('FAILED', 1));
    const settledBefore = trade('SETTLED', true, '0');
    expect(shownTrade(settledBefore, 1, resolved(1))).toBe(settledBefore);
    expect(shownTrade(trade('FAILED'), 1, lockedThrough(5)).status).toBe('FAILED');
  });

  it('pays the pot to the winning side, the stake back on a void, nothing to the losing side', () => {
    const t = { stake: '5', pot: '12', eventId: 'E1' };
    expect(tradePayout({ ...t, isBettingOutcomeOne: true }, 1)).toBe('12');
    expect(tradePayout({ ...t, isBettingOutcomeOne: false }, 2)).toBe('12');
    expect(tradePayout({ ...t, isBettingOutcomeOne: true }, 2)).toBe('0');
    expect(tradePayout({ ...t, isBettingOutcomeOne: false }, 0)).toBe('5');
  });

  it('takes a parlay’s fee off a winning trade: its rate of the trade’s profit, rounded down', () => {
    const t = { stake: '10000000', pot: '50000000', eventId: `parlay_500_${'ab'.repeat(20)}` };
    expect(tradeFee({ ...t, isBettingOutcomeOne: true }, 1)).toBe(2_000_000n);
    expect(tradePayout({ ...t, isBettingOutcomeOne: true }, 1)).toBe('48000000');
    expect(tradeFee({ ...t, isBettingOutcomeOne: true }, 2)).toBe(0n);
    expect(tradePayout({ ...t, isBettingOutcomeOne: true }, 0)).toBe('10000000');
    expect(tradeFee({ stake: '1', pot: '20', eventId: t.eventId, isBettingOutcomeOne: false }, 2)).toBe(0n);
    expect(tradeFee({ stake: '1', pot: '22', eventId: t.eventId, isBettingOutcomeOne: false }, 2)).toBe(1n);
    expect(tradeFee({ ...t, eventId: 'E1', isBettingOutcomeOne: true }, 1)).toBe(0n);
  });
});
