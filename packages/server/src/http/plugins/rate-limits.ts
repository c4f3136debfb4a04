import rateLimit from '@fastify/rate-limit';
import { ErrorCode, errorBody } from '@oddsbook/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Per-key limits (per IP for public routes), the legacy table's defaults applied to the v3 routes:
 * order writes and order reads 5,500 a minute each, trade and fill history 200 a minute, everything
 * else 500 a minute, and all traffic together 35,000 per 10 minutes. Over a limit: 429 in the common
 * error shape with `Retry-After`. Operator routes are not limited.
 */
export const RATE_LIMITS = {
  orderWrites: { max: 5_500, timeWindow: 60_000 },
  orderReads: { max: 5_500, timeWindow: 60_000 },
  history: { max: 200, timeWindow: 60_000 },
  base: { max: 500, timeWindow: 60_000 },
  allTraffic: { max: 35_000, timeWindow: 600_000 },
} as const;

type Group = keyof Omit<typeof RATE_LIMITS, 'allTraffic'>;

export function rateLimitGroup(method: string, url: string): Group | null {
  if (url.startsWith('/admin/') || url === '/health' || url === '/metrics' || url.startsWith('/docs'))
    return null;
  if (url.startsWith('/orders')) return method === 'GET' ? 'orderReads' : 'orderWrites';
  if (url.startsWith('/trades') || url.startsWith('/fills')) return 'history';
  return 'base';
}

const clientKey = (request: FastifyRequest) =>
  request.account && request.account !== '0x' ? request.account : request.ip;

export async function registerRateLimits(app: FastifyInstance): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    // After authentication, so the bucket is the account, not the address it calls from.
    hook: 'preHandler',
    keyGenerator: clientKey,
    errorResponseBuilder: (_request, context) => ({
      ...errorBody(429, `${ErrorCode.RATE_LIMITED}: retry in ${context.after}`),
      statusCode: 429,
    }),
  });
  // One limiter (one store) per group, shared by every route of the group.
  const limiters = {
    orderWrites: app.rateLimit(RATE_LIMITS.orderWrites),
    orderReads: app.rateLimit(RATE_LIMITS.orderReads),
    history: app.rateLimit(RATE_LIMITS.history),
    base: app.rateLimit(RATE_LIMITS.base),
  };
  app.addHook('onRoute', (route) => {
    const group = rateLimitGroup(String([route.method].flat()[0]), route.url);
    if (!group) return;
    route.preHandler = [...[route.preHandler ?? []].flat(), limiters[group]];
  });

  // All traffic of one client in a fixed window, on top of its group's limit.
  const windows = new Map<string, { start: number; count: number }>();
  app.addHook('preHandler', async (request, reply) => {
    if (!rateLimitGroup(request.method, request.routeOptions.url ?? '')) return;
    const key = clientKey(request);
    const now = Date.now();
    let window = windows.get(key);
    if (!window || now - window.start >= RATE_LIMITS.allTraffic.timeWindow) {
      window = { start: now, count: 0 };
      windows.set(key, window);
      if (windows.size > 100_000) windows.clear();
    }
    window.count += 1;
    if (window.count > RATE_LIMITS.allTraffic.max) {
      const retryAfter = Math.ceil((window.start + RATE_LIMITS.allTraffic.timeWindow - now) / 1000);
      return reply
        .status(429)
        .header('retry-after', String(retryAfter))
        .send(errorBody(429, `${ErrorCode.RATE_LIMITED}: retry in ${retryAfter} seconds`));
    }
  });
}
