import { randomBytes } from 'node:crypto';
import { type OrderDomain, type OrderMessage, tickToOdds } from '@oddsbook/protocol';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { clusterNames } from '../../src/cluster/cluster-names.js';
import { LocalCluster, type LocalNodeSpec } from '../../src/cluster/local-cluster.js';
import { connectNats, natsClients, TEST_NATS_URL } from '../../src/cluster/test-support.js';
import { testPrivateKey } from './test-exchange.js';
import { viemOrderTypedData } from './trading.js';

/**
 * The HTTP side of the cluster process tests: an exchange's routes over fetch (the nodes are real processes),
 * and a `LocalCluster` set up for tests.
 */
export const CLUSTER_ADMIN_TOKEN = 'cluster-process-test-admin-token-0123456789';
export const admin = { 'x-admin-token': CLUSTER_ADMIN_TOKEN };
export const USDC = 1_000_000n;

/** A local cluster on the test PostgreSQL and NATS, under a cluster name of its own, nodes on free ports. */
export function testCluster(databaseUrl: string, nodes: LocalNodeSpec[]): LocalCluster {
  return new LocalCluster({
    databaseUrl,
    natsUrl: TEST_NATS_URL,
    cluster: `t${randomBytes(6).toString('hex')}`,
    adminToken: CLUSTER_ADMIN_TOKEN,
    nodes,
    env: { DEMO: '0', RATE_LIMITS: '0', BLOCK_TIME_MS: '50' },
  });
}

/** Stops the cluster and deletes its NATS streams (each test cluster has its own). */
export async function stopTestCluster(cluster: LocalCluster | undefined): Promise<void> {
  if (!cluster) return;
  await cluster.stop();
  const nc = await connectNats();
  try {
    const { jsm } = await natsClients(nc);
    const names = clusterNames(cluster.name);
    for (const stream of [names.stream, names.publicationsStream])
      await jsm.streams.delete(stream).catch(() => {});
  } finally {
    await nc.close();
  }
}

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes
export type Reply = { status: number; body: { data: any; error?: any } };

export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: Reply['body'];
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { data: null, error: text };
  }
  return { status: response.status, body: parsed };
}

async function ok(reply: Promise<Reply>, what: string): Promise<Reply> {
  const r = await reply;
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r;
}

/** A market on a fresh fixture, created through the operator API of `base` (`adminHeaders`: by default the cluster's). */
export async function createMarketOver(
  base: string,
  adminHeaders: Record<string, string> = admin,
): Promise<`0x${string}`> {
  const league = await ok(
    call(
      base,
      'POST',
      '/admin/leagues',
      { sportId: 1, label: `L ${randomBytes(4).toString('hex')}` },
      adminHeaders,
    ),
    'league',
  );
  const fixture = await ok(
    call(
      base,
      'POST',
      '/admin/fixtures',
      {
        leagueId: league.body.data.leagueId,
        teamOneName: `Home ${randomBytes(3).toString('hex')}`,
        teamTwoName: `Away ${randomBytes(3).toString('hex')}`,
        gameTime: Math.floor(Date.now() / 1000) + 86_400,
      },
      adminHeaders,
    ),
    'fixture',
  );
  const market = await ok(
    call(
      base,
      'POST',
      '/admin/markets',
      { eventId: fixture.body.data.eventId, type: 52, outcomeOneName: 'Home', outcomeTwoName: 'Away' },
      adminHeaders,
    ),
    'market',
  );
  return market.body.data.marketHash;
}

export type HttpTrader = {
  account: PrivateKeyAccount;
  address: `0x${string}`;
  headers: Record<string, string>;
};

/**
 * A user with an API key, a deployed proxy and `funds` from the faucet, all through `base`'s routes (the
 * operator's with `adminHeaders`: by default the cluster's).
 */
export async function createTraderOver(
  base: string,
  funds: bigint,
  adminHeaders: Record<string, string> = admin,
): Promise<HttpTrader> {
  const account = privateKeyToAccount(testPrivateKey());
  const key = await ok(
    call(base, 'POST', '/admin/api-keys', { address: account.address }, adminHeaders),
    'api key',
  );
  const headers = { 'x-svc-api-key': key.body.data.apiKey as string };
  await ok(call(base, 'POST', '/user/deploy-proxy', undefined, headers), 'deploy-proxy');
  await until(
    async () => (await call(base, 'GET', '/user/proxy', undefined, headers)).body.data?.deployed === true,
    30_000,
    'the proxy deployed',
  );
  if (funds > 0n)
    await ok(
      call(
        base,
        'POST',
        '/admin/faucet',
        { address: account.address, amount: funds.toString() },
        adminHeaders,
      ),
      'faucet',
    );
  return { account, address: account.address, headers };
}

/** What signing needs of the exchange: its EIP-712 domain and base token (`GET /metadata/obv3`). */
export type SigningMeta = { domain: OrderDomain; baseToken: `0x${string}` };

export async function signingMeta(base: string): Promise<SigningMeta> {
  const { body } = await ok(call(base, 'GET', '/metadata/obv3'), 'metadata');
  return { domain: body.data.domain, baseToken: body.data.activeAsset.baseToken };
}

/** A wire order signed with the trader's key (viem signTypedData). */
export async function signedOrder(
  meta: SigningMeta,
  trader: HttpTrader,
  f: {
    marketHash: `0x${string}`;
    tick: number;
    size: bigint;
    isOne?: boolean;
    timeInForce?: 'GTC' | 'IOC';
    salt?: bigint;
  },
) {
  const message: OrderMessage = {
    marketHash: f.marketHash,
    baseToken: meta.baseToken,
    totalBetSize: f.size,
    percentageOdds: tickToOdds(f.tick),
    salt: f.salt ?? BigInt(`0x${randomBytes(32).toString('hex')}`),
    expiry: Math.floor(Date.now() / 1000) + 3600,
    maker: trader.address,
    isMakerBettingOutcomeOne: f.isOne ?? true,
  };
  const orderSignature = await trader.account.signTypedData(viemOrderTypedData(meta.domain, message));
  return {
    marketHash: message.marketHash,
    maker: message.maker,
    baseToken: message.baseToken,
    totalBetSize: f.size.toString(),
    percentageOdds: message.percentageOdds.toString(),
    salt: `0x${BigInt(message.salt).toString(16).padStart(64, '0')}`,
    expiry: Number(message.expiry),
    isMakerBettingOutcomeOne: message.isMakerBettingOutcomeOne,
    timeInForce: f.timeInForce ?? 'GTC',
    orderSignature,
  };
}

/** Posts orders; `waitForOutcome` answers once matched. */
export function postOrders(
  base: string,
  trader: HttpTrader,
  orders: unknown[],
  waitForOutcome = false,
): Promise<Reply> {
  return call(
    base,
    'POST',
    '/orders-v3',
    { orders, ...(waitForOutcome ? { waitForOutcome } : {}) },
    trader.headers,
  );
}

/** One order signed and posted through `base`, its outcome awaited; fails unless it is accepted. */
export async function placeOver(
  base: string,
  meta: SigningMeta,
  trader: HttpTrader,
  f: Parameters<typeof signedOrder>[2],
): Promise<{ state: string; fillAmount?: string }> {
  const { body } = await ok(postOrders(base, trader, [await signedOrder(meta, trader, f)], true), 'order');
  return body.data.orders[0].outcome;
}

/** A realtime client's token source: the trader's token from `base` (any API node signs it with the cluster's secret). */
export function realtimeTokenOver(base: string, trader: HttpTrader): () => Promise<string> {
  return async () =>
    (
      await ok(
        call(base, 'GET', '/user/realtime-token-v3/api-key', undefined, trader.headers),
        'realtime token',
      )
    ).body.data.token;
}

/** A row of `GET /admin/cluster`: a node of the cluster. */
export type ListedNode = {
  node: string;
  pid: number;
  roles: string[];
  state: string;
  epoch: number | null;
  alive: boolean;
};

/** The cluster's nodes as `base` lists them. */
export async function clusterListing(base: string): Promise<ListedNode[]> {
  return (await ok(call(base, 'GET', '/admin/cluster', undefined, admin), 'the cluster listing')).body.data;
}

/** A trader's money: available + escrowed (nothing resolved, so that is all of it). */
export async function moneyOf(base: string, trader: HttpTrader): Promise<bigint> {
  const { body } = await ok(call(base, 'GET', '/user/balance-v3', undefined, trader.headers), 'balance');
  const [row] = body.data.balances as { availableAmount: string; escrowedAmount: string }[];
  return row ? BigInt(row.availableAmount) + BigInt(row.escrowedAmount) : 0n;
}

export async function until<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${String(last)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
