import type { CreateOrderResult } from '@oddsbook/protocol';
import { describe, expect, it } from 'vitest';
import { describeResult } from './order-result.js';

const submitted = (outcome: Partial<NonNullable<CreateOrderResult['outcome']>>): CreateOrderResult => ({
  orderId: `0x${'1'.repeat(64)}`,
  status: 'SUBMITTED',
  outcome: {
    state: 'RESTED',
    remainingAmount: '0',
    fillAmount: '0',
    blendedOdds: '0',
    matchIds: [],
    tradeId: null,
    ...outcome,
  },
});

describe('what became of an order', () => {
  it('styles a refusal as one, with the reason in plain words', () => {
    expect(describeResult({ orderId: null, status: 'FAILED', reason: 'INSUFFICIENT_BALANCE' })).toEqual({
      text: 'Refused: Your available balance is too low for this stake.',
      tone: 'refusal',
    });
    expect(describeResult(submitted({ state: 'CANCELLED', cancelReason: 'NO_LIQUIDITY' }))).toEqual({
      text: 'Not matched: Nothing on the other side matched your odds.',
      tone: 'refusal',
    });
    expect(describeResult(submitted({ state: 'EXPIRED' })).tone).toBe('refusal');
  });

  it('calls a remainder below one lot dust kept in the balance, never a cancelled rest', () => {
    expect(
      describeResult(submitted({ state: 'FULLY_FILLED', fillAmount: '3999996', remainingAmount: '4' })),
    ).toEqual({ text: 'Matched 3.999996 USDC.', tone: 'success', dust: 4n });
    expect(describeResult(submitted({ state: 'FULLY_FILLED', fillAmount: '4000000' }))).toEqual({
      text: 'Matched 4.00 USDC.',
      tone: 'success',
    });
  });

  it('says what matched and what stayed when an immediate order is partly filled', () => {
    expect(
      describeResult(
        submitted({
          state: 'PARTIAL_FILL_DONE',
          fillAmount: '2000000',
          remainingAmount: '8000000',
          cancelReason: 'NO_LIQUIDITY',
        }),
      ),
    ).toEqual({
      text: 'Matched 2.00 USDC; the other 8.00 USDC stays in your balance. Nothing on the other side matched your odds.',
      tone: 'success',
    });
  });

  it('tells a bet waiting out the betting delay from one on the book', () => {
    expect(describeResult({ orderId: null, status: 'SUBMITTED' })).toEqual({
      text: 'Submitted: waiting for the betting delay.',
      tone: 'info',
    });
    expect(describeResult(submitted({ state: 'RESTED' }))).toEqual({
      text: 'Your order is on the book.',
      tone: 'success',
    });
  });
});
