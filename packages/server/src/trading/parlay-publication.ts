import type { ParlayMarketUpdate } from '@oddsbook/protocol';
import type { ParlaySpec } from '../engine/index.js';

/** The `parlay_markets:global` message of a request: the market to quote, its token, size and legs. */
export function parlayRequestUpdate(
  marketHash: string,
  spec: ParlaySpec,
): Omit<ParlayMarketUpdate, 'messageId'> {
  return {
    channelName: 'markets:parlay',
    marketHash,
    baseToken: spec.baseToken,
    ...(spec.requestSize === null ? {} : { requestSize: spec.requestSize }),
    legs: spec.legs.map((leg) => ({ marketHash: leg.marketHash, bettingOutcomeOne: leg.bettingOutcomeOne })),
  };
}
