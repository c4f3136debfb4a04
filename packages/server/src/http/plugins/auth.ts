import { ErrorCode, errorBody } from '@oddsbook/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_KEY_HEADER, type ApiKeys, secretsEqual } from '../../auth/api-keys.js';
import type { WebSession, WebSessions } from '../../auth/web-sessions.js';
import { LazyChildLogger } from './lazy-child-logger.js';

export const ADMIN_TOKEN_HEADER = 'x-admin-token';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated account (checksummed EOA); set on every route behind the API-key hook. */
    account: `0x${string}`;
    /** The browser session; set on every route behind the web-session hook. */
    webSession: WebSession;
    /** The id of the API key the request authenticated with (set with `account`). */
    apiKeyId: string;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Adds the API-key check to every route of the scope it is called in. It runs on `onRequest`, before
 * the body is parsed or validated, so a bad key is always a 401 whatever else is wrong with the request.
 * The request's logger carries the account; that child logger is only built if the request logs.
 * A callback hook, not an async one: no promise per request.
 */
export function requireApiKey(scope: FastifyInstance, apiKeys: ApiKeys): void {
  scope.decorateRequest('account', '0x' as `0x${string}`);
  scope.decorateRequest('apiKeyId', '');
  scope.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const auth = apiKeys.authenticate(header(request, API_KEY_HEADER));
    // Answered here: fastify runs nothing further, so `done` is not called.
    if (!auth) return void reply.status(401).send(errorBody(401, ErrorCode.BAD_AUTH, ErrorCode.BAD_AUTH));
    request.account = auth.address;
    request.apiKeyId = auth.keyId;
    request.log = new LazyChildLogger(request.log, { account: auth.address });
    done();
  });
}

/** Adds the operator-token check (`x-admin-token`) to every route of the scope. */
export function requireAdminToken(scope: FastifyInstance, adminToken: string): void {
  scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!secretsEqual(header(request, ADMIN_TOKEN_HEADER), adminToken)) {
      return reply.status(401).send(errorBody(401, ErrorCode.BAD_AUTH, ErrorCode.BAD_AUTH));
    }
  });
}

/** The token of `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const value = header(request, 'authorization');
  const match = value ? /^Bearer ([0-9a-f]{1,256})$/i.exec(value) : null;
  return match?.[1];
}

/**
 * Adds the browser-session check to every route of the scope. The session travels in the Authorization
 * header, never in a cookie, so another site cannot make a browser send it (docs/adr/0005).
 */
export function requireWebSession(scope: FastifyInstance, sessions: WebSessions): void {
  scope.decorateRequest('webSession', null as unknown as WebSession);
  scope.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const token = bearerToken(request);
    const accept = (session: WebSession | null) => {
      if (!session)
        return void reply.status(401).send(errorBody(401, ErrorCode.BAD_AUTH, ErrorCode.BAD_AUTH));
      request.webSession = session;
      request.log = new LazyChildLogger(request.log, { account: session.address });
      done();
    };
    const held = sessions.authenticate(token);
    if (held) return accept(held);
    // Not held here: opened on another node sharing the store, perhaps (a store that fails: 401).
    sessions.find(token).then(accept, () => accept(null));
  });
}
