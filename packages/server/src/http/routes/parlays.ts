import {
  Envelope,
  FeeAccountState,
  MarketHashParams,
  ParlayDetail,
  ParlayRequestBody,
  ParlayRequestResult,
} from '@oddsbook/protocol';
import type { Exchange } from '../../exchange/exchange.js';
import type { ParlayService } from '../../trading/parlay-service.js';
import { success } from '../envelope.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

const security = [{ apiKey: [] }];

/** `POST /parlays-v3` and `GET /parlays-v3/{marketHash}` (API key): docs/parlays.md. */
export async function parlayRoutes(app: ExchangeApp, parlays: ParlayService): Promise<void> {
  app.post(
    '/parlays-v3',
    {
      schema: {
        summary: 'Request quotes on a parlay',
        description:
          '2 to 10 legs, each an active market of a different event. Makes a market for the request and ' +
          'broadcasts it on parlay_markets:global; makers quote until quoteWindowEndsAt, the requester may ' +
          'take an offer until takeUntil. A refused leg is a 400 naming it (marketHash, legIndex).',
        tags: ['parlays'],
        security,
        body: ParlayRequestBody,
        response: { 200: Envelope(ParlayRequestResult), ...errorResponses(400, 401, 429, 503) },
      },
    },
    async (request) => success(await parlays.request(request.account, request.body)),
  );

  app.get(
    '/parlays-v3/:marketHash',
    {
      schema: {
        summary: 'A parlay request and its offers',
        description:
          'The requester sees the offers once the quote window has closed; anyone else sees its own offers.',
        tags: ['parlays'],
        security,
        params: MarketHashParams,
        response: { 200: Envelope(ParlayDetail), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => success(await parlays.detail(request.account, request.params.marketHash)),
  );
}

/** `GET /admin/fees` (operator): the fee account and what it has collected. */
export async function adminFeeRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  app.get(
    '/admin/fees',
    {
      schema: {
        summary: 'The exchange’s fee account',
        description: 'Parlay fees are credited to it at settlement (PARLAY_FEE_BPS of each winner’s profit).',
        security: [{ adminToken: [] }],
        tags: ['admin'],
        response: { 200: Envelope(FeeAccountState), ...errorResponses(401, 429) },
      },
    },
    async () => {
      const { parlayFeeAccount, parlayFeeBps } = exchange.config;
      const money = exchange.trading.sequencer.money(parlayFeeAccount);
      return success({
        address: parlayFeeAccount,
        parlayFeeBps,
        collectedAmount: money.available.toString(),
      });
    },
  );
}
