import type { FillToReverse } from './commands.js';
import type { EngineEvent } from './events.js';

/**
 * The fills a command made, each as `reverseFill` would take it back: its `orderMatched` event with the
 * `ceRefund`s of its match (which follow it). In event order.
 */
export function fillsOf(events: readonly EngineEvent[]): FillToReverse[] {
  const fills: FillToReverse[] = [];
  let refunds: { account: string; marketHash: string; amount: bigint }[] = [];
  for (const e of events) {
    if (e.type === 'orderMatched') {
      refunds = [];
      fills.push({
        matchId: e.matchId,
        marketHash: e.marketHash,
        makerAccount: e.makerAccount,
        takerAccount: e.takerAccount,
        makerIsBettingOutcomeOne: e.makerIsBettingOutcomeOne,
        makerStake: e.makerStake,
        takerStake: e.takerStake,
        ...(e.legs
          ? {
              legs: e.legs.map(({ marketHash, makerStake, takerStake }) => ({
                marketHash,
                makerStake,
                takerStake,
              })),
            }
          : {}),
        refunds,
      });
    } else if (e.type === 'ceRefund') {
      refunds.push({ account: e.account, marketHash: e.marketHash, amount: e.amount });
    }
  }
  return fills;
}
