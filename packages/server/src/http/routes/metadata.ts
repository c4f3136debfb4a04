import { DEFAULT_ODDS_LADDER_STEP, Envelope, Metadata } from '@oddsbook/protocol';
import {
  LIVE_DELAY_MS_DEFAULT,
  PREGAME_DELAY_MS_DEFAULT,
  SPORT_LIVE_DELAY_MS,
} from '../../catalog/betting-delay.js';
import { EXCHANGE_LIMITS } from '../../config/limits.js';
import type { Exchange } from '../../exchange/exchange.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

/** `GET /metadata/obv3`: public; everything a client needs to sign and size orders on this network. */
export async function metadataRoutes(
  app: ExchangeApp,
  exchange: Exchange,
  demoMarketMaker: `0x${string}` | null,
): Promise<void> {
  const { config } = exchange;
  app.get(
    '/metadata/obv3',
    {
      schema: {
        summary: 'Exchange metadata: EIP-712 domain, asset, limits, ladder',
        tags: ['metadata'],
        response: { 200: Envelope(Metadata), ...errorResponses(429) },
      },
    },
    async () => ({
      status: 'success' as const,
      data: {
        chainId: config.chainId,
        domain: exchange.orderDomain,
        activeAsset: {
          symbol: 'USDC',
          baseToken: config.baseToken,
          escrowAddress: config.verifyingContract,
          decimals: 6,
        },
        oddsLadderStepSize: DEFAULT_ODDS_LADDER_STEP,
        bettingDelay: {
          pregameMsDefault: PREGAME_DELAY_MS_DEFAULT,
          liveMsDefault: LIVE_DELAY_MS_DEFAULT,
          leagueIdToMs: Object.fromEntries(
            (await exchange.catalog.leagueLiveDelays()).map(({ leagueId, delayMs }) => [
              String(leagueId),
              delayMs,
            ]),
          ),
          sportIdToMs: Object.fromEntries(Object.entries(SPORT_LIVE_DELAY_MS)),
          marketHashToMs: Object.fromEntries(
            (await exchange.catalog.marketLiveDelays()).map(({ marketHash, delayMs }) => [
              marketHash,
              delayMs,
            ]),
          ),
        },
        limits: {
          orderSizeMinimumBaseUnits: EXCHANGE_LIMITS.orderSizeMinimumBaseUnits.toString(),
          maxCreateOrders: EXCHANGE_LIMITS.maxCreateOrders,
          maxCancelOrders: EXCHANGE_LIMITS.maxCancelOrders,
        },
        demoMarketMaker,
      },
    }),
  );
}
