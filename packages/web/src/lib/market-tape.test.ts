import type { PublicTradeRow } from '@oddsbook/protocol';
import { describe, expect, it } from 'vitest';
import { tapeSummary } from './market-tape.js';

const row = (odds: string, one: boolean, stake: string, pot: string, at: string): PublicTradeRow => ({
  tradeId: at,
  marketHash: `0x${'ab'.repeat(32)}`,
  eventId: 'e1',
  isBettingOutcomeOne: one,
  totalStake: stake,
  totalReturn: pot,
  weightedAverageOdds: odds,
  betTime: at,
  isParlay: false,
});

describe('market tape', () => {
  it('takes the newest bet as the last traded price and sums the matched pots exactly', () => {
    const summary = tapeSummary([
      row('45000000000000000000', false, '4000000', '8888888', '2026-01-02T00:00:00Z'),
      row('55125000000000000000', true, '10000000', '18140589', '2026-01-01T00:00:00Z'),
    ]);
    expect(summary.last).toEqual({
      odds: 45_000_000_000_000_000_000n,
      outcome: 2,
      at: '2026-01-02T00:00:00Z',
    });
    expect(summary.matched).toBe(27_029_477n);
    expect(summary.bets).toBe(2);
    expect(summary.partial).toBe(false);
  });

  it('says nothing traded on an empty tape', () => {
    expect(tapeSummary([], false)).toEqual({ last: null, matched: 0n, bets: 0, partial: false });
  });
});
