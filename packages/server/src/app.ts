import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { ClusterNodes, NodeStatus } from './cluster/node-registry.js';
import { logStyle } from './config/log-style.js';
import type { Exchange } from './exchange/exchange.js';
import { type ExchangeRealtimeOptions, startExchangeRealtime } from './exchange/exchange-realtime.js';
import { registerClusterMetrics } from './http/node-app.js';
import { requireAdminToken, requireApiKey } from './http/plugins/auth.js';
import { answerClientError } from './http/plugins/client-errors.js';
import { limitConnections } from './http/plugins/connection-limits.js';
import { registerErrorHandler } from './http/plugins/error-handler.js';
import { registerExchangeMetrics } from './http/plugins/exchange-metrics.js';
import { BODY_LIMITS, registerJsonBody } from './http/plugins/json-body.js';
import { registerLoadShedding } from './http/plugins/load-shedding.js';
import { registerMetrics } from './http/plugins/metrics.js';
import { ACCEPT_MISSING_HOST, refuseMissingHost } from './http/plugins/missing-host.js';
import { registerRateLimits } from './http/plugins/rate-limits.js';
import { connectRedis } from './http/plugins/redis-bucket-store.js';
import { registerSecurityHeaders } from './http/plugins/security-headers.js';
import { registerValidation } from './http/plugins/validation.js';
import { registerWebPages } from './http/plugins/web-pages.js';
import { adminApiKeyRoutes } from './http/routes/admin-api-keys.js';
import { adminCatalogRoutes } from './http/routes/admin-catalog.js';
import { adminChainRoutes } from './http/routes/admin-chain.js';
import { adminClusterRoutes, singleProcessCluster } from './http/routes/admin-cluster.js';
import { adminSettlementRoutes } from './http/routes/admin-settlement.js';
import { balanceRoutes } from './http/routes/balance.js';
import { catalogRoutes } from './http/routes/catalog.js';
import { jsonRpcRoutes } from './http/routes/json-rpc.js';
import { legacyOrderRoutes } from './http/routes/legacy-v2-orders.js';
import { legacyTradeRoutes } from './http/routes/legacy-v2-trades.js';
import { marketRoutes } from './http/routes/markets.js';
import { metadataRoutes } from './http/routes/metadata.js';
import { multisigRoutes } from './http/routes/multisig.js';
import { multisigStateRoutes } from './http/routes/multisig-state.js';
import { operationsRoutes } from './http/routes/operations.js';
import { orderRoutes } from './http/routes/orders.js';
import { adminFeeRoutes, parlayRoutes } from './http/routes/parlays.js';
import { portfolioRefundRoutes } from './http/routes/portfolio-refunds.js';
import { realtimeTokenRoutes } from './http/routes/realtime-token.js';
import { accountTradingRoutes, publicTradingRoutes } from './http/routes/trading-reads.js';
import { adminWalletRoutes, walletRoutes } from './http/routes/wallets.js';
import { signInRoutes } from './http/routes/web-sessions.js';
import { prettyStream } from './lib/pretty-log.js';
import { ParlayService } from './trading/parlay-service.js';

export type AppOptions = {
  /** pino logger options, or false for none (tests). Defaults to the configured level. */
  logger?: boolean | { level: string };
  /** Hub settings of the realtime WebSocket (`/connection/websocket` on the same port). */
  realtime?: ExchangeRealtimeOptions['hub'];
  /** The built web pages (packages/web/dist by default); served at `/` when present. */
  webDir?: string;
  /** The nodes `GET /admin/cluster` lists: a cluster's registry (an API node); by default this process alone. */
  clusterNodes?: ClusterNodes;
  /**
   * A cluster node's roles and state (`serve --role api[,…]`): on /health, and as the cluster gauges on
   * /metrics (`oddsbook_cluster_leader`, `_epoch`, `oddsbook_journal_last_seq`), as a node without the API has.
   */
  node?: { roles: readonly string[]; status: () => NodeStatus };
  /** Prefix of the rate-limit keys in Redis (REDIS_URL); tests give each app set its own. */
  rateLimitPrefix?: string;
  /** The address of the demo market maker this process runs, named in the metadata for the pages. */
  demoMarketMaker?: `0x${string}`;
};

/** TRUST_PROXY as Fastify takes it: a hop count trusts that many proxies nearest this server. */
function trustProxyOption(trust: false | number | string[]) {
  return typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;
}

/** Builds the HTTP application on an opened exchange. It never listens: main.ts and tests decide that. */
export async function buildApp(exchange: Exchange, options: AppOptions = {}): Promise<FastifyInstance> {
  // A Redis that cannot be reached at start is a configuration error naming REDIS_URL (exit 2).
  const redis =
    exchange.config.rateLimits && exchange.config.redisUrl
      ? await connectRedis(exchange.config.redisUrl, exchange.config.settingNames.redisUrl)
      : null;
  const style = logStyle(exchange.config, process.stdout.isTTY === true);
  const app = Fastify({
    logger: options.logger ?? {
      level: exchange.config.logLevel,
      ...(style.pretty ? { stream: prettyStream() } : {}),
    },
    logController: new LogController({ disableRequestLogging: !style.requests }),
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
    },
    bodyLimit: BODY_LIMITS.default,
    trustProxy: trustProxyOption(exchange.config.trustProxy),
    // Idle sockets, stalled requests and keep-alives end after the idle timeout (WebSockets opt out).
    connectionTimeout: exchange.config.httpIdleTimeoutMs,
    keepAliveTimeout: exchange.config.httpIdleTimeoutMs,
    requestTimeout: exchange.config.httpIdleTimeoutMs,
    // Requests Node would answer itself, without the error shape or the security headers.
    http: ACCEPT_MISSING_HOST,
    clientErrorHandler: answerClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();
  limitConnections(app.server, {
    maxConnections: exchange.config.maxConnections,
    maxPerAddress: exchange.config.maxConnectionsPerAddress,
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  registerSecurityHeaders(app);
  // Read-your-writes (issue 35): a read by an account waits, bounded, until the projections have everything
  // answered to that account; order posts and everyone else's reads never wait (trading/account-seqs.ts).
  app.addHook('preHandler', (request, reply, done) => {
    const account = (request as { account?: string }).account;
    if (request.method !== 'GET' || account === undefined || account === '0x') return done();
    const caughtUp = exchange.trading.caughtUpFor(account);
    if (!caughtUp) return done();
    caughtUp.then(
      () => done(),
      (error: unknown) => reply.send(error),
    );
  });
  registerErrorHandler(app);
  registerValidation(app);
  registerJsonBody(app);
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'oddsbook exchange API',
        version: '1.0.0',
        description: 'Sports-betting exchange: orders v3, wallets, multisig, realtime tokens, market data.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-svc-api-key' },
          adminToken: { type: 'apiKey', in: 'header', name: 'x-admin-token' },
          webSession: {
            type: 'http',
            scheme: 'bearer',
            description: 'browser session (POST /auth/siwe/verify)',
          },
        },
      },
    },
  });
  const metrics = registerMetrics(app);
  if (options.node) registerClusterMetrics(metrics, options.node.roles, options.node.status);

  const realtime = await startExchangeRealtime(exchange, {
    logger: app.log,
    ...(options.realtime ? { hub: options.realtime } : {}),
  });
  realtime.hub.attach(app.server);
  registerExchangeMetrics(metrics, exchange, realtime.hub);
  // Before the server closes: open WebSockets would otherwise keep it from closing.
  app.addHook('preClose', async () => realtime.close());
  const { webSessions } = exchange;
  if (exchange.config.rateLimits) {
    if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => {})));
    await registerRateLimits(app, {
      apiKeys: exchange.apiKeys,
      sessions: webSessions,
      adminToken: exchange.config.adminToken,
      ...(redis
        ? { shared: { redis, ...(options.rateLimitPrefix ? { prefix: options.rateLimitPrefix } : {}) } }
        : {}),
    });
  }
  refuseMissingHost(app);
  registerLoadShedding(app, exchange.trading.orders);

  const parlays = new ParlayService({
    catalog: exchange.catalog,
    trading: exchange.trading,
    clock: exchange.clock,
    settings: {
      baseToken: exchange.config.baseToken,
      quoteWindowMs: exchange.config.parlayQuoteWindowMs,
      takeWindowMs: exchange.config.parlayTakeWindowMs,
      feeBps: exchange.config.parlayFeeBps,
      feeAccount: exchange.config.parlayFeeAccount,
    },
  });
  exchange.catalog.setParlays((marketHash) => parlays.market(marketHash));

  await app.register(async (scope) => {
    await operationsRoutes(scope, exchange, options.node);
    await metadataRoutes(scope, exchange, options.demoMarketMaker ?? null);
    await catalogRoutes(scope, exchange);
    await marketRoutes(scope, exchange);
    await publicTradingRoutes(scope, exchange);
    await portfolioRefundRoutes(scope, exchange);
  });
  // The legacy v2 API (issue 38): its own scope, answering failures in the legacy shape.
  await app.register(async (scope) => legacyOrderRoutes(scope, exchange));
  await app.register(async (scope) => legacyTradeRoutes(scope, exchange));
  await app.register(async (scope) => signInRoutes(scope, exchange, webSessions));
  await app.register(async (scope) => jsonRpcRoutes(scope, exchange.chain));
  await registerWebPages(app, options.webDir);
  await app.register(async (scope) => {
    requireAdminToken(scope, exchange.config.adminToken);
    await adminApiKeyRoutes(scope, exchange);
    await adminCatalogRoutes(scope, exchange);
    await adminSettlementRoutes(scope, exchange);
    await adminFeeRoutes(scope, exchange);
    await adminChainRoutes(scope, exchange);
    await adminWalletRoutes(scope, exchange);
    await adminClusterRoutes(scope, options.clusterNodes ?? singleProcessCluster(exchange, scope.server));
  });
  await app.register(async (scope) => {
    requireApiKey(scope, exchange.apiKeys);
    await realtimeTokenRoutes(scope, exchange);
    await orderRoutes(scope, exchange);
    await accountTradingRoutes(scope, exchange);
    await balanceRoutes(scope, exchange);
    await walletRoutes(scope, exchange);
    await multisigRoutes(scope, exchange);
    await multisigStateRoutes(scope, exchange);
    await parlayRoutes(scope, parlays);
  });
  return app;
}
