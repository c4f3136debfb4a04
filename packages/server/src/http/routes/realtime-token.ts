import { Envelope } from '@oddsbook/protocol';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Exchange } from '../../exchange/exchange.js';
import { createRealtimeToken } from '../../realtime/token.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

/**
 * Tokens live an hour; the official client fetches a new one on expiry by itself. A token names the API
 * key it was issued for (claim `akid`): revoking the key refuses its tokens and ends their connections.
 */
export const REALTIME_TOKEN_TTL_SECONDS = 3600;

const TokenData = Type.Object({ token: Type.String() });

/** Realtime connection tokens for the authenticated account (v3 in the envelope, legacy bare). */
export async function realtimeTokenRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  const issue = (request: FastifyRequest) =>
    createRealtimeToken({
      secret: exchange.realtimeSecret,
      sub: request.account,
      keyId: request.apiKeyId,
      ttlSeconds: REALTIME_TOKEN_TTL_SECONDS,
      now: exchange.clock.now(),
    });
  app.get(
    '/user/realtime-token-v3/api-key',
    {
      schema: {
        summary: 'A token for the realtime WebSocket',
        tags: ['realtime'],
        security: [{ apiKey: [] }],
        response: { 200: Envelope(TokenData), ...errorResponses(401, 429) },
      },
    },
    async (request) => ({ status: 'success' as const, data: { token: issue(request) } }),
  );
  app.get(
    '/user/realtime-token/api-key',
    {
      schema: {
        summary: 'A token for the realtime WebSocket (legacy shape {token})',
        tags: ['realtime'],
        security: [{ apiKey: [] }],
        response: { 200: TokenData, ...errorResponses(401, 429) },
      },
    },
    async (request) => ({ token: issue(request) }),
  );
}
