import { Address, Envelope } from '@oddsbook/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { MAX_SIWE_MESSAGE_CHARS, type WebSessions } from '../../auth/web-sessions.js';
import { AppError, conflict, notFound } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { success } from '../envelope.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';
import { bearerToken, requireWebSession } from '../plugins/auth.js';

/** Active keys an account may hold through self-service (the operator routes are not bound by it). */
export const MAX_API_KEYS_PER_ACCOUNT = 10;

const tags = ['account'];
const security = [{ webSession: [] }];
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const SessionInfo = Type.Object({ address: Address, expiresAt: Type.String({ format: 'date-time' }) });
const KeyInfo = Type.Object({
  keyId: Type.String(),
  label: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

/** A route whose body fields are all optional takes no body as `{}` (the JSON parser makes '' no body). */
function noBodyAsEmptyObject(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (request.body === undefined) request.body = {};
  done();
}

const unauthorized = (message: string) => new AppError({ code: 'SIGN_IN_FAILED', statusCode: 401, message });

/** Sign-In with Ethereum: a nonce, the signed message, the session it opens, sign-out. */
export async function signInRoutes(app: ExchangeApp, exchange: Exchange, sessions: WebSessions) {
  app.post(
    '/auth/siwe/nonce',
    {
      schema: {
        summary: 'A single-use nonce for a Sign-In with Ethereum message',
        tags,
        response: {
          200: Envelope(
            Type.Object({
              nonce: Type.String(),
              expiresAt: Type.String({ format: 'date-time' }),
              chainId: Type.Integer(),
            }),
          ),
          ...errorResponses(429),
        },
      },
    },
    async () => {
      const issued = sessions.issueNonce();
      return success({
        nonce: issued.nonce,
        expiresAt: iso(issued.expiresAt)!,
        chainId: exchange.config.chainId,
      });
    },
  );

  app.post(
    '/auth/siwe/verify',
    {
      schema: {
        summary: 'Sign in: the EIP-4361 message and its personal_sign signature open a browser session',
        tags,
        body: Type.Object(
          {
            message: Type.String({ minLength: 1, maxLength: MAX_SIWE_MESSAGE_CHARS }),
            signature: Type.String({ pattern: '^0x[0-9a-fA-F]{130}$' }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(Type.Object({ sessionToken: Type.String(), ...SessionInfo.properties })),
          ...errorResponses(400, 401, 429, 503),
        },
      },
    },
    async (request) => {
      const body = request.body;
      const result = await sessions.signIn(body.message, body.signature, request.ip);
      if (result.type === 'refused') {
        request.log.info({ reason: result.code }, 'sign-in refused');
        throw unauthorized(result.message);
      }
      request.log.info({ account: result.session.address }, 'signed in');
      return success({
        sessionToken: result.token,
        address: result.session.address,
        expiresAt: iso(result.session.expiresAt)!,
      });
    },
  );

  await app.register(async (scope) => {
    requireWebSession(scope, sessions);
    scope.get(
      '/auth/session',
      {
        schema: {
          summary: 'The signed-in account and when its session ends',
          tags,
          security,
          response: { 200: Envelope(SessionInfo), ...errorResponses(401, 429) },
        },
      },
      async (request) =>
        success({ address: request.webSession.address, expiresAt: iso(request.webSession.expiresAt)! }),
    );
    scope.delete(
      '/auth/session',
      {
        schema: {
          summary: 'Sign out: ends the session',
          tags,
          security,
          response: {
            200: Envelope(Type.Object({ ended: Type.Boolean() })),
            ...errorResponses(401, 429, 503),
          },
        },
      },
      async (request) => success({ ended: await sessions.end(bearerToken(request)!) }),
    );
    await accountApiKeyRoutes(scope, exchange);
  });
}

/** Self-service API keys of the signed-in account. */
async function accountApiKeyRoutes(app: ExchangeApp, exchange: Exchange) {
  const keysOf = (address: `0x${string}`) => exchange.store.apiKeys.listForAccount(address);

  app.get(
    '/account/api-keys',
    {
      schema: {
        summary: "The signed-in account's API keys (active and revoked; never the keys themselves)",
        tags,
        security,
        response: {
          200: Envelope(Type.Object({ keys: Type.Array(KeyInfo), maxActiveKeys: Type.Integer() })),
          ...errorResponses(401, 429),
        },
      },
    },
    async (request) => {
      const keys = await keysOf(request.webSession.address);
      return success({
        keys: keys.map((k) => ({
          keyId: k.id,
          label: k.label,
          createdAt: iso(k.createdAt)!,
          revokedAt: iso(k.revokedAt),
        })),
        maxActiveKeys: MAX_API_KEYS_PER_ACCOUNT,
      });
    },
  );

  app.post(
    '/account/api-keys',
    {
      schema: {
        summary: 'Create an API key for the signed-in account (shown once)',
        tags,
        security,
        body: Type.Object(
          { label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(Type.Object({ apiKey: Type.String(), ...KeyInfo.properties })),
          ...errorResponses(400, 401, 409, 429),
        },
      },
      // The label is optional, so the body is too: no body (or an empty one) is `{}`.
      preValidation: noBodyAsEmptyObject,
    },
    async (request) => {
      const address = request.webSession.address;
      const label = request.body.label;
      const active = (await keysOf(address)).filter((k) => k.revokedAt === null).length;
      if (active >= MAX_API_KEYS_PER_ACCOUNT) {
        throw conflict(
          'API_KEY_LIMIT',
          `an account may hold ${MAX_API_KEYS_PER_ACCOUNT} active API keys: revoke one first`,
        );
      }
      const issued = await exchange.apiKeys.create(address, {
        now: exchange.clock.now(),
        ...(label ? { label } : {}),
      });
      request.log.info({ keyId: issued.record.id }, 'api key created by its owner');
      return success({
        apiKey: issued.apiKey,
        keyId: issued.record.id,
        label: issued.record.label,
        createdAt: iso(issued.record.createdAt)!,
        revokedAt: null,
      });
    },
  );

  app.delete(
    '/account/api-keys/:keyId',
    {
      schema: {
        summary: 'Revoke one of the signed-in account’s API keys (its realtime sessions end too)',
        tags,
        security,
        params: Type.Object({ keyId: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: {
          200: Envelope(
            Type.Object({ keyId: Type.String(), revokedAt: Type.String({ format: 'date-time' }) }),
          ),
          ...errorResponses(400, 401, 404, 429),
        },
      },
    },
    async (request) => {
      const { keyId } = request.params;
      const own = (await keysOf(request.webSession.address)).find((k) => k.id === keyId);
      // Another account's key answers as an unknown one: ids are not confirmed to strangers.
      if (!own || own.revokedAt !== null)
        throw notFound('API_KEY_NOT_FOUND', 'no active API key with that id on this account');
      const record = await exchange.apiKeys.revoke(keyId, exchange.clock.now());
      if (!record) throw notFound('API_KEY_NOT_FOUND', 'no active API key with that id on this account');
      request.log.info({ keyId }, 'api key revoked by its owner');
      return success({ keyId, revokedAt: iso(record.revokedAt)! });
    },
  );
}
