import type { CreateOrderResult } from '@oddsbook/protocol';
import { tokenAmount } from './display.js';
import { plainReason } from './errors.js';

/** What happened to a bet, styled by it: a match or a resting order, a refusal, or news to wait for. */
export type ResultTone = 'success' | 'refusal' | 'info';
/** `dust`: a remainder too small to match at the odds (less than one lot), kept in the balance. */
export type PlacedResult = { text: string; tone: ResultTone; dust?: bigint };

/** What became of a posted order, in plain words, with the style it calls for. */
export function describeResult(r: CreateOrderResult): PlacedResult {
  if (r.status === 'FAILED') return { text: `Refused: ${plainReason(r.reason)}`, tone: 'refusal' };
  const outcome = r.outcome;
  if (!outcome) return { text: 'Submitted: waiting for the betting delay.', tone: 'info' };
  const filled = tokenAmount(outcome.fillAmount);
  const remaining = BigInt(outcome.remainingAmount);
  switch (outcome.state) {
    case 'RESTED':
      return { text: 'Your order is on the book.', tone: 'success' };
    case 'PARTIAL_FILL_RESTED':
      return { text: `Matched ${filled} USDC; the rest is on the book.`, tone: 'success' };
    case 'FULLY_FILLED':
      // A remainder smaller than one lot at these odds cannot match: it was never a cancelled rest.
      return {
        text: `Matched ${filled} USDC.`,
        tone: 'success',
        ...(remaining > 0n ? { dust: remaining } : {}),
      };
    case 'PARTIAL_FILL_DONE':
      return {
        text: `Matched ${filled} USDC; the other ${tokenAmount(remaining)} USDC stays in your balance.${outcome.cancelReason ? ` ${plainReason(outcome.cancelReason)}` : ''}`,
        tone: 'success',
      };
    case 'TIMEOUT':
      return { text: 'Submitted; the outcome follows in your orders below.', tone: 'info' };
    default:
      return {
        text: `${outcome.state === 'EXPIRED' ? 'Expired' : 'Not matched'}${outcome.cancelReason ? `: ${plainReason(outcome.cancelReason)}` : ''}`,
        tone: 'refusal',
      };
  }
}
