import {
  Envelope,
  LegacyFailureBodySchema,
  V2BestOddsQuery,
  V2BestOddsResult,
  V2CancelAllBody,
  V2CancelEventBody,
  V2CancelOrdersBody,
  V2CancelResult,
  V2FillBody,
  V2FillResult,
  V2Metadata,
  V2OrderRow,
  V2OrdersQuery,
  V2PostOrdersBody,
  V2PostOrdersResult,
} from '@oddsbook/protocol';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, LegacyError } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { success } from '../envelope.js';
import { errorResponse, errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

const tags = ['legacy v2'];
const failure = errorResponse(400, LegacyFailureBodySchema);

/** Fastify's own 4xx codes by what they mean, as legacy error codes. */
const FRAMEWORK_CODES: Readonly<Record<string, string>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
};

/**
 * The legacy routes' error handler: every 4xx in the legacy shape `{status: "failure", errorCode}` (a
 * malformed body or query is BAD_BODY, malformed JSON MALFORMED_JSON); 429 and 5xx as on every route.
 */
export function answerInLegacyShape(scope: ExchangeApp): void {
  scope.setErrorHandler((error: FastifyError | AppError, _request, _reply) => {
    if (error instanceof LegacyError) throw error;
    const status = error.statusCode ?? 500;
    if (status === 429 && !(error instanceof Error)) {
      // The rate limiter's answer (its common shape, Retry-After set): a handler may rethrow Errors only.
      throw new AppError({ code: 'RATE_LIMITED', statusCode: 429, body: error as Record<string, unknown> });
    }
    if (status < 400 || status >= 500 || status === 429) throw error;
    if (error instanceof AppError) throw new LegacyError(error.code, status);
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) throw new LegacyError('BAD_BODY', 400);
    if (error instanceof SyntaxError) throw new LegacyError('MALFORMED_JSON', status);
    throw new LegacyError(FRAMEWORK_CODES[fastifyError.code] ?? 'BAD_BODY', status);
  });
}

/**
 * The legacy v2 order routes (issue 38, docs/legacy.md): no API key; makers, takers and cancels are
 * authenticated by their v2 signatures. From V2_CUTOVER_AT every one answers 400 "OrderBook V2 is no longer
 * supported" (checked first, whatever the request holds).
 */
export async function legacyOrderRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  const { legacy } = exchange;
  answerInLegacyShape(app);
  const closedAfterCutover = (_request: FastifyRequest, _reply: FastifyReply, done: (e?: Error) => void) => {
    if (!legacy.ordersOpen) {
      try {
        legacy.assertOrdersOpen();
      } catch (error) {
        return done(error as Error);
      }
    }
    done();
  };
  const v2 = { onRequest: closedAfterCutover };

  app.get(
    '/metadata',
    {
      ...v2,
      schema: {
        summary: 'v2 metadata: executor, fill hasher and domain version (legacy)',
        description:
          'What a v2 bot signs with. 400 "OrderBook V2 is no longer supported" from V2_CUTOVER_AT.',
        tags,
        response: { 200: Envelope(V2Metadata), 400: failure, ...errorResponses(429) },
      },
    },
    async () => success(legacy.metadata()),
  );

  app.post(
    '/orders/new',
    {
      ...v2,
      schema: {
        summary: 'Post v2 maker orders (legacy)',
        description:
          'Orders signed with personal_sign over the packed nine-field hash (expiry 2209006800, real expiry in ' +
          'apiExpiry), at most 3 markets, one maker; they rest on the same books as v3 orders. statuses maps ' +
          'each orderHash to OK, INSUFFICIENT_BALANCE, INVALID_MARKET or ORDERS_ALREADY_EXIST.',
        tags,
        body: V2PostOrdersBody,
        response: { 200: Envelope(V2PostOrdersResult), 400: failure, ...errorResponses(429, 503) },
      },
    },
    async (request) => success(await legacy.postOrders(request.body.orders)),
  );

  app.post(
    '/orders/fill/v2',
    {
      ...v2,
      schema: {
        summary: 'Fill at desiredOdds within oddsSlippage (legacy)',
        description:
          'EIP-712 Details/FillObject signed by the taker. Matched after the market’s betting delay against ' +
          'the book as it is then; the stake-weighted average taker odds stay within ' +
          'desiredOdds x 100 / (100 - oddsSlippage). Answers once matched.',
        tags,
        body: V2FillBody,
        response: { 200: Envelope(V2FillResult), 400: failure, ...errorResponses(429, 503) },
      },
    },
    async (request) => success(await legacy.fill(request.body)),
  );

  const cancelResponse = { 200: Envelope(V2CancelResult), 400: failure, ...errorResponses(429, 503) };
  app.post(
    '/orders/cancel/v2',
    {
      ...v2,
      schema: {
        summary: 'Cancel v2 orders by hash (legacy)',
        description:
          'EIP-712, domain CancelOrderV2SportX with the salt in the domain; a salt used before is refused.',
        tags,
        body: V2CancelOrdersBody,
        response: cancelResponse,
      },
    },
    async (request) => success(await legacy.cancelOrders(request.body)),
  );
  app.post(
    '/orders/cancel/event',
    {
      ...v2,
      schema: {
        summary: 'Cancel the maker’s orders of an event (legacy)',
        description: 'EIP-712, domain CancelOrderEventsSportX with the salt in the domain.',
        tags,
        body: V2CancelEventBody,
        response: cancelResponse,
      },
    },
    async (request) => success(await legacy.cancelEvent(request.body)),
  );
  app.post(
    '/orders/cancel/all',
    {
      ...v2,
      schema: {
        summary: 'Cancel every order of the maker (legacy)',
        description: 'EIP-712, domain CancelAllOrdersSportX with the salt in the domain.',
        tags,
        body: V2CancelAllBody,
        response: cancelResponse,
      },
    },
    async (request) => success(await legacy.cancelAll(request.body)),
  );

  app.get(
    '/orders',
    {
      ...v2,
      schema: {
        summary: 'Resting orders by markets, maker or hashes (legacy)',
        description:
          'marketHashes (at most 1,000) or maker (or orderHashes) is required; marketHashes and sportXeventId ' +
          'never together. v2 and v3 orders alike: they rest on one book.',
        tags,
        querystring: V2OrdersQuery,
        response: { 200: Envelope(Type.Array(V2OrderRow)), 400: failure, ...errorResponses(429) },
      },
    },
    async (request) => success(await legacy.openOrders(request.query)),
  );

  app.get(
    '/orders/odds/best',
    {
      ...v2,
      schema: {
        summary: 'Best maker odds per market (legacy)',
        description: 'marketHashes or leagueIds (exactly one), and baseToken.',
        tags,
        querystring: V2BestOddsQuery,
        response: { 200: Envelope(V2BestOddsResult), 400: failure, ...errorResponses(429) },
      },
    },
    async (request) => success(await legacy.bestOdds(request.query)),
  );
}
