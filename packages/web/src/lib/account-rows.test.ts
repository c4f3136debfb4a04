import type { Market, PortfolioRefund, TradeRow } from '@oddsbook/protocol';
import { describe, expect, it } from 'vitest';
import { groupBets, refundedByMarket, settledAmounts, settledResult } from './bets.js';
import { endedOrders, mergeOrders, orderEnding, vanishedOrders } from './order-history.js';
import { settledPositions, signedAmount } from './positions.js';
import { mergeRefunds, refundEvents, totalRefunded } from './refunds.js';
import { marketKind, nameRow } from './row-names.js';
import { H, orderRow as order } from './rows.test-support.js';

const trade = (over: Partial<TradeRow>): TradeRow => ({
  tradeId: 't1',
  orderId: H(100),
  marketHash: H(1),
  eventId: 'e1',
  isBettingOutcomeOne: true,
  isMaker: false,
  stake: '10000000',
  odds: '50000000000000000000',
  potentialPayout: '20000000',
  status: 'MATCHED',
  settlement: null,
  marketHasRefunds: false,
  isQuarterLineLeg: false,
  isParlay: false,
  fee: '0',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});
const market = (over: Partial<Market>) =>
  ({
    marketHash: H(1),
    outcomeOneName: 'Lakers -0.75',
    outcomeTwoName: 'Celtics +0.75',
    teamOneName: 'Lakers',
    teamTwoName: 'Celtics',
    type: 3,
    line: -0.75,
    isQuarterLineMarket: true,
    gameTime: 1_800_000_000,
    ...over,
  }) as Market;

describe('row names', () => {
  it('names a row by its market record: outcome, kind and line, game, time', () => {
    expect(nameRow(market({}), false)).toEqual({
      pick: 'Celtics +0.75',
      market: 'Handicap -0.75 (quarter line)',
      game: 'Lakers – Celtics',
      gameTime: 1_800_000_000,
    });
    expect(marketKind({ type: 28, line: 2.5, isQuarterLineMarket: false })).toBe('Total 2.5');
    expect(marketKind({ type: 52, line: null, isQuarterLineMarket: false })).toBe('Moneyline');
  });
  it('keeps the hash of a market not known yet, never a bare outcome number; names parlay sides', () => {
    expect(nameRow(undefined, true, { marketHash: H(1) }).pick).toMatch(/^Outcome one of market 0x0000/);
    expect(nameRow(undefined, false, { isParlay: true }).pick).toBe('Against a parlay');
  });
});

describe('bets', () => {
  it('groups a quarter-line order’s two leg trades into one bet on the quarter-line market', () => {
    const legs = [
      trade({
        tradeId: 'a',
        marketHash: H(2),
        isQuarterLineLeg: true,
        quarterLineParentMarketHash: H(1),
        stake: '5000000',
        potentialPayout: '10000000',
        status: 'LOCKED',
      }),
      trade({
        tradeId: 'b',
        marketHash: H(3),
        isQuarterLineLeg: true,
        quarterLineParentMarketHash: H(1),
        stake: '5000000',
        potentialPayout: '10000000',
        status: 'SETTLED',
      }),
    ];
    const bets = groupBets([...legs, trade({ tradeId: 'c', orderId: H(101) })]);
    expect(bets).toHaveLength(2);
    expect(bets[0]).toMatchObject({
      marketHash: H(1),
      isQuarterLine: true,
      stake: 10000000n,
      potentialPayout: 20000000n,
      status: 'LOCKED',
    });
    expect(bets[0]!.legs.map((l) => l.tradeId)).toEqual(['a', 'b']);
    expect(bets[1]).toMatchObject({
      isQuarterLine: false,
      legs: [expect.objectContaining({ tradeId: 'c' })],
    });
  });
  it('a hedged market’s settlement credits only what was not refunded before', () => {
    // 10 on one at 50 % and 10 on two at 50 %: 20 refunded at the hedge; outcome one wins, pays 20 gross.
    const won = trade({ tradeId: 'a', status: 'SETTLED', settlement: { outcome: 1, payout: '20000000' } });
    const lost = trade({
      tradeId: 'b',
      isBettingOutcomeOne: false,
      createdAt: '2026-01-01T00:01:00.000Z',
      status: 'SETTLED',
      settlement: { outcome: 1, payout: '0' },
    });
    const refunds = refundedByMarket([
      { marketHash: H(1), baseToken: H(0).slice(0, 42), totalRefunded: '20000000', events: [] },
    ]);
    const amounts = settledAmounts([lost, won], refunds);
    expect(amounts.get('a-false')).toEqual({ payout: 20000000n, refundedEarlier: 20000000n, credited: 0n });
    expect(amounts.get('b-false')).toEqual({ payout: 0n, refundedEarlier: 0n, credited: 0n });
    expect(settledResult(won)).toBe('won');
    expect(settledResult(lost)).toBe('lost');
    expect(settledResult(trade({ settlement: { outcome: 0, payout: '1' } }))).toBe('void');
    const [position] = settledPositions([won, lost], refunds);
    expect(position).toMatchObject({
      staked: 20000000n,
      returned: 20000000n,
      refunded: 20000000n,
      paidAtSettlement: 0n,
      profit: 0n,
    });
    expect(signedAmount(-1500000n)).toBe('-1.50');
    expect(signedAmount(2n)).toBe('+0.000002');
  });
  it('a partial refund is taken from the payout; the rest is credited', () => {
    const won = trade({ status: 'SETTLED', settlement: { outcome: 1, payout: '20000000' } });
    const amounts = settledAmounts([won], new Map([[H(1), 7000000n]]));
    expect(amounts.get('t1-false')).toEqual({
      payout: 20000000n,
      refundedEarlier: 7000000n,
      credited: 13000000n,
    });
    // A market still open is no settled position.
    expect(settledPositions([won, trade({ tradeId: 'x' })], new Map())).toEqual([]);
  });
});

describe('refunds', () => {
  const event = (amount: string, at: string) => ({
    maker: false,
    amount,
    bettor: H(9).slice(0, 42),
    baseToken: H(8).slice(0, 42),
    createdAt: at,
    marketHash: H(1),
    fillOrderHash: `f${at}`,
  });
  it('merges a ce_refunds message into the route’s refunds: one market, the larger total, events once', () => {
    const route: PortfolioRefund[] = [
      { marketHash: H(1), baseToken: H(8).slice(0, 42), totalRefunded: '5', events: [event('5', 'a')] },
    ];
    const pushed: PortfolioRefund[] = [
      {
        marketHash: H(1).toUpperCase().replace('0X', '0x'),
        baseToken: H(8).slice(0, 42),
        totalRefunded: '8',
        events: [event('3', 'b'), event('5', 'a')],
      },
    ];
    const merged = mergeRefunds(route, pushed);
    expect(merged).toHaveLength(1);
    expect(merged[0]!.totalRefunded).toBe('8');
    expect(refundEvents(merged).map((e) => e.amount)).toEqual(['3', '5']);
    expect(totalRefunded(merged)).toBe(8n);
  });
});

describe('order history', () => {
  it('keeps ended orders, never lets an older row replace a newer one, and finds vanished open orders', () => {
    let h = mergeOrders({}, [order({}), order({ id: H(101) })]);
    expect(vanishedOrders(h, [order({ id: H(101) })])).toEqual([H(100)]);
    h = mergeOrders(h, [
      order({
        status: 'INACTIVE',
        inactiveReason: 'INSUFFICIENT_BALANCE',
        updatedAt: '2026-01-01T00:00:05.000Z',
      }),
    ]);
    expect(mergeOrders(h, [order({})])).toBe(h);
    expect(endedOrders(h).map((o) => o.inactiveReason)).toEqual(['INSUFFICIENT_BALANCE']);
    expect(vanishedOrders(h, [order({ id: H(101) })])).toEqual([]);
  });
  it('says how each order ended and what matched first', () => {
    const amount = (u: string) => (Number(u) / 1e6).toFixed(2);
    expect(orderEnding(order({ inactiveReason: 'HEARTBEAT_TIMEOUT' }), amount)).toBe(
      'Cancelled by the heartbeat (not refreshed in time)',
    );
    expect(orderEnding(order({ inactiveReason: 'USER_REQUESTED', fillAmount: '4000000' }), amount)).toBe(
      'Cancelled by you after 4.00 of 10.00 matched',
    );
    expect(orderEnding(order({ inactiveReason: 'FILLED', fillAmount: '10000000' }), amount)).toBe('Filled');
    expect(orderEnding(order({ inactiveReason: 'EXPIRED' }), amount)).toBe('Expired');
    expect(orderEnding(order({ inactiveReason: 'NO_LIQUIDITY', fillAmount: '9990000' }), amount)).toBe(
      'Matched 9.99 of 10.00; nothing on the other side for the rest',
    );
    expect(orderEnding(order({ inactiveReason: 'INSUFFICIENT_BALANCE' }), amount)).toMatch(/^Pulled/);
  });
});
