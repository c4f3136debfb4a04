import { Address, Envelope } from '@oddsbook/protocol';
import { Type } from 'typebox';
import { notFound } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { parseAddress } from '../../lib/address.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

const KeyInfo = Type.Object({
  keyId: Type.String(),
  address: Address,
  label: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Operator routes for API keys (gaps.md: `POST /admin/api-keys`), plus listing and revoking. */
export async function adminApiKeyRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  app.post(
    '/admin/api-keys',
    {
      schema: {
        summary: 'Issue an API key for an account',
        description: 'The key is shown once; only its hash is stored.',
        security: [{ adminToken: [] }],
        tags: ['admin'],
        body: Type.Object(
          { address: Address, label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(Type.Object({ apiKey: Type.String(), keyId: Type.String(), address: Address })),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const body = request.body;
      const address = parseAddress(body.address);
      const issued = await exchange.apiKeys.create(address, {
        now: exchange.clock.now(),
        ...(body.label ? { label: body.label } : {}),
      });
      request.log.info({ account: address, keyId: issued.record.id }, 'api key created');
      return {
        status: 'success' as const,
        data: { apiKey: issued.apiKey, keyId: issued.record.id, address },
      };
    },
  );

  app.get(
    '/admin/api-keys',
    {
      schema: {
        summary: 'List the API keys of an account',
        security: [{ adminToken: [] }],
        tags: ['admin'],
        querystring: Type.Object({ address: Address }),
        response: {
          200: Envelope(Type.Object({ keys: Type.Array(KeyInfo) })),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const address = parseAddress(request.query.address);
      const keys = await exchange.store.apiKeys.listForAccount(address);
      return {
        status: 'success' as const,
        data: {
          keys: keys.map((k) => ({
            keyId: k.id,
            address: k.address,
            label: k.label,
            createdAt: iso(k.createdAt)!,
            revokedAt: iso(k.revokedAt),
          })),
        },
      };
    },
  );

  app.delete(
    '/admin/api-keys/:keyId',
    {
      schema: {
        summary: 'Revoke an API key',
        security: [{ adminToken: [] }],
        tags: ['admin'],
        params: Type.Object({ keyId: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: {
          200: Envelope(Type.Object({ keyId: Type.String(), revokedAt: Type.String() })),
          ...errorResponses(400, 401, 404, 429),
        },
      },
    },
    async (request) => {
      const { keyId } = request.params;
      const record = await exchange.apiKeys.revoke(keyId, exchange.clock.now());
      if (!record) throw notFound('API_KEY_NOT_FOUND', 'no API key with that id');
      request.log.info({ keyId }, 'api key revoked');
      return { status: 'success' as const, data: { keyId, revokedAt: iso(record.revokedAt)! } };
    },
  );
}
