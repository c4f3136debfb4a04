import rateLimit from '@fastify/rate-limit';
import { ErrorCode, errorBody } from '@oddsbook/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { API_KEY_HEADER, type ApiKeys, secretsEqual } from '../../auth/api-keys.js';
import { clientNetwork } from '../../lib/client-network.js';
import { ADMIN_TOKEN_HEADER, bearerToken } from './auth.js';
import { redisBucketStore } from './redis-bucket-store.js';
import { tokenBucketStore } from './token-bucket-store.js';

/**
 * Token buckets with the legacy table's defaults, applied to the v3 routes: order writes and order reads
 * 5,500 a minute each, trade and fill history 200 a minute, everything else 500 a minute, and all traffic
 * of a client together 35,000 per 10 minutes. API keys created through a browser session: 10 an hour per
 * account. Over a limit: 429 in the common error shape with `Retry-After`. `/health`, `/metrics`, the docs
 * and operator requests with a valid token are not limited.
 */
export const RATE_LIMITS = {
  orderWrites: { max: 5_500, timeWindow: 60_000 },
  orderReads: { max: 5_500, timeWindow: 60_000 },
  history: { max: 200, timeWindow: 60_000 },
  base: { max: 500, timeWindow: 60_000 },
  apiKeyCreation: { max: 10, timeWindow: 3_600_000 },
  allTraffic: { max: 35_000, timeWindow: 600_000 },
} as const;

type Group = keyof Omit<typeof RATE_LIMITS, 'allTraffic'>;

/** Buckets kept per group (and for all traffic): past it, full ones go first, then the least recently used. */
export const RATE_LIMIT_MAX_KEYS = 100_000;

/** The group of a request by its route's URL pattern (a request that matched no route has none: ''). */
export function rateLimitGroup(method: string, url: string): Group | 'admin' | null {
  if (url === '/health' || url === '/metrics' || url.startsWith('/docs')) return null;
  if (url.startsWith('/admin/')) return 'admin';
  if (url.startsWith('/orders')) return method === 'GET' ? 'orderReads' : 'orderWrites';
  if (url.startsWith('/trades') || url.startsWith('/fills')) return 'history';
  if (method === 'POST' && url === '/account/api-keys') return 'apiKeyCreation';
  return 'base';
}

/** What the limiter needs of the browser sessions: the account of a session token. */
export type SessionLookup = {
  authenticate(token: string | undefined): { address: `0x${string}` } | null;
};

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The bucket a request draws from: its account's when it carries a valid API key or browser session
 * (every key of the account and its sessions share the buckets, so more keys, or revoking and creating
 * them, buy nothing), otherwise its client network (`request.ip`: the peer, or the forwarded address
 * from a trusted proxy, TRUST_PROXY; an IPv6 address counts as its /64, which one subscriber holds whole).
 * An unknown key or session counts against the network it comes from.
 */
export function rateLimitKey(
  request: FastifyRequest,
  auth: { apiKeys: Pick<ApiKeys, 'authenticate'>; sessions: SessionLookup },
): string {
  const account =
    auth.apiKeys.authenticate(header(request, API_KEY_HEADER))?.address ??
    auth.sessions.authenticate(bearerToken(request))?.address;
  return account ? `account:${account.toLowerCase()}` : `ip:${clientNetwork(request.ip)}`;
}

/** Where the buckets are: in this process (the default), or in Redis, shared by every API node (REDIS_URL). */
export type SharedBuckets = { redis: Redis; prefix?: string };

/**
 * Every request is counted before anything else looks at it (a root `onRequest` hook: before the API-key,
 * session and operator-token checks, before the body is read or validated), so bad keys, malformed bodies
 * and unknown routes all count, against the bucket `rateLimitKey` picks.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  options: { apiKeys: ApiKeys; sessions: SessionLookup; adminToken: string; shared?: SharedBuckets },
): Promise<void> {
  const { shared } = options;
  await app.register(rateLimit, {
    global: false,
    store: shared
      ? redisBucketStore({
          redis: shared.redis,
          ...(shared.prefix ? { prefix: shared.prefix } : {}),
          overall: RATE_LIMITS.allTraffic,
          maxKeys: RATE_LIMIT_MAX_KEYS,
          onOutage: (error) =>
            error
              ? app.log.error(
                  { err: error },
                  'rate limits: Redis failed; counting in this node alone until it answers',
                )
              : app.log.info('rate limits: Redis answers again; buckets shared by every node'),
        })
      : tokenBucketStore({ overall: RATE_LIMITS.allTraffic, maxKeys: RATE_LIMIT_MAX_KEYS }),
    keyGenerator: (request) => rateLimitKey(request, options),
    errorResponseBuilder: (_request, context) => ({
      ...errorBody(429, `${ErrorCode.RATE_LIMITED}: retry in ${context.after}`, ErrorCode.RATE_LIMITED),
      statusCode: 429,
    }),
  });
  // One limiter (one store of buckets) per group, shared by every route of the group; `groupId` names
  // the group's buckets in Redis (the plugin adds a groupId to keys only from a route's own config).
  const limiter = (group: Group) => app.rateLimit({ ...RATE_LIMITS[group], groupId: group });
  const limiters: Record<Group, (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>> = {
    orderWrites: limiter('orderWrites'),
    orderReads: limiter('orderReads'),
    history: limiter('history'),
    base: limiter('base'),
    apiKeyCreation: limiter('apiKeyCreation'),
  };
  app.addHook('onRequest', async (request, reply) => {
    let group = rateLimitGroup(request.method, request.routeOptions.url ?? '');
    if (group === 'admin') {
      if (secretsEqual(header(request, ADMIN_TOKEN_HEADER), options.adminToken)) return;
      group = 'base';
    }
    if (group) await limiters[group](request, reply);
  });
}
