import { ODDS_SCALE, type OrderOutcome } from '@oddsbook/protocol';
import { type EngineEvent, outcomeState } from '../engine/index.js';
import { tradeIdOf } from '../records/records.js';

/**
 * The matching outcome of one order from the events of its place command, or null when that command
 * did not decide it (never: every place ends in rested, done or rejected). Amounts are the owner's own
 * stake; blendedOdds = sum(own stake) / sum(pot) x 10^20, the owner's average implied probability.
 */
export function outcomeOf(
  orderId: string,
  totalBetSize: bigint,
  events: readonly EngineEvent[],
): OrderOutcome | null {
  let filled = 0n;
  let pot = 0n;
  const matchIds: string[] = [];
  for (const event of events) {
    if (event.type === 'orderMatched' && event.takerOrderId === orderId) {
      filled += event.takerStake;
      pot += event.makerStake + event.takerStake;
      matchIds.push(event.matchId);
    }
  }
  const fills = {
    fillAmount: filled.toString(),
    blendedOdds: pot === 0n ? '0' : ((filled * ODDS_SCALE) / pot).toString(),
    matchIds,
    tradeId: filled > 0n ? tradeIdOf(orderId) : null,
  };
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === 'orderRejected' && event.orderId === orderId) {
      const expired = event.code === 'ORDER_EXPIRED';
      return {
        state: expired ? 'EXPIRED' : 'CANCELLED',
        remainingAmount: totalBetSize.toString(),
        ...fills,
        ...(expired ? {} : { cancelReason: event.code }),
      };
    }
    if (event.type === 'orderRested' && event.orderId === orderId) {
      return { state: outcomeState(event), remainingAmount: event.remainingSize.toString(), ...fills };
    }
    if (event.type === 'orderDone' && event.orderId === orderId && !event.wasResting) {
      const state = outcomeState(event);
      return {
        state,
        remainingAmount: event.remainingSize.toString(),
        ...fills,
        ...(state === 'CANCELLED' || state === 'PARTIAL_FILL_DONE' ? { cancelReason: event.reason } : {}),
      };
    }
  }
  return null;
}

/** The outcome of an order that was withdrawn (cancelled) while it waited out the betting delay. */
export function withdrawnOutcome(totalBetSize: bigint, reason: string): OrderOutcome {
  return {
    state: reason === 'EXPIRED' ? 'EXPIRED' : 'CANCELLED',
    remainingAmount: totalBetSize.toString(),
    fillAmount: '0',
    blendedOdds: '0',
    matchIds: [],
    tradeId: null,
    cancelReason: reason,
  };
}

export function timeoutOutcome(totalBetSize: bigint): OrderOutcome {
  return {
    state: 'TIMEOUT',
    remainingAmount: totalBetSize.toString(),
    fillAmount: '0',
    blendedOdds: '0',
    matchIds: [],
    tradeId: null,
  };
}
