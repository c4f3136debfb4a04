import type { OrderDoneEvent, OrderRestedEvent } from './events.js';

/** `outcome.state` of the create response, from the order's final event of its place command. */
export const OrderOutcomeState = {
  RESTED: 'RESTED',
  PARTIAL_FILL_RESTED: 'PARTIAL_FILL_RESTED',
  FULLY_FILLED: 'FULLY_FILLED',
  PARTIAL_FILL_DONE: 'PARTIAL_FILL_DONE',
  CANCELLED: 'CANCELLED',
} as const;
export type OrderOutcomeState = (typeof OrderOutcomeState)[keyof typeof OrderOutcomeState];

/**
 * Maps the taker's last event of a place command (`orderRested` or `orderDone` with `wasResting`
 * false) to the outcome state. `FILLED` with a dust remainder counts as fully filled.
 */
export function outcomeState(event: OrderRestedEvent | OrderDoneEvent): OrderOutcomeState {
  if (event.type === 'orderRested') return event.filledSize > 0n ? 'PARTIAL_FILL_RESTED' : 'RESTED';
  if (event.reason === 'FILLED') return 'FULLY_FILLED';
  return event.filledSize > 0n ? 'PARTIAL_FILL_DONE' : 'CANCELLED';
}
