import { randomBytes } from 'node:crypto';
import { type OrderDomain, type OrderMessage, orderTypedData, tickToOdds } from '@oddsbook/protocol';
import { privateKeyToAccount } from 'viem/accounts';
import type { TestExchange, TestUser } from './test-exchange.js';

export const USDC = 1_000_000n;

/** A market on a fresh pregame fixture (or an in-play one), created through the operator API. */
export async function createMarket(
  t: TestExchange,
  options: { live?: boolean; bettingDelay?: number; minBetSize?: string; gameTimeOffsetS?: number } = {},
): Promise<{ marketHash: `0x${string}`; eventId: string }> {
  const admin = t.admin;
  const league = await t.app.inject({
    method: 'POST',
    url: '/admin/leagues',
    headers: admin,
    payload: { sportId: 1, label: `League ${randomBytes(4).toString('hex')}` },
  });
  const { leagueId } = league.json().data;
  const fixture = await t.app.inject({
    method: 'POST',
    url: '/admin/fixtures',
    headers: admin,
    payload: {
      leagueId,
      teamOneName: `Home ${randomBytes(3).toString('hex')}`,
      teamTwoName: `Away ${randomBytes(3).toString('hex')}`,
      gameTime: Math.floor(Date.now() / 1000) + (options.gameTimeOffsetS ?? 86_400),
    },
  });
  const { eventId } = fixture.json().data;
  const market = await t.app.inject({
    method: 'POST',
    url: '/admin/markets',
    headers: admin,
    payload: {
      eventId,
      type: 52,
      outcomeOneName: 'Home',
      outcomeTwoName: 'Away',
      ...(options.minBetSize ? { minBetSize: options.minBetSize } : {}),
      ...(options.bettingDelay !== undefined ? { bettingDelay: options.bettingDelay } : {}),
    },
  });
  if (market.statusCode !== 200) throw new Error(`createMarket: ${market.body}`);
  if (options.live) {
    await t.app.inject({
      method: 'POST',
      url: `/admin/fixtures/${eventId}/status`,
      headers: admin,
      payload: { status: 2 },
    });
  }
  return { marketHash: market.json().data.marketHash, eventId };
}

/** A user with a deployed proxy wallet funded with `funds` base units, all through the HTTP API. */
export async function createTrader(t: TestExchange, funds = 1_000n * USDC): Promise<TestUser> {
  const user = await t.createUser();
  const deploy = await t.app.inject({ method: 'POST', url: '/user/deploy-proxy', headers: user.headers });
  if (deploy.statusCode !== 200) throw new Error(`deploy-proxy: ${deploy.body}`);
  await until(
    async () =>
      (await t.app.inject({ method: 'GET', url: '/user/proxy', headers: user.headers })).json().data.deployed,
    (deployed) => deployed === true,
    10_000,
  );
  if (funds > 0n) {
    const faucet = await t.app.inject({
      method: 'POST',
      url: '/admin/faucet',
      headers: t.admin,
      payload: { address: user.address, amount: funds.toString() },
    });
    if (faucet.statusCode !== 200) throw new Error(`faucet: ${faucet.body}`);
  }
  return user;
}

export type OrderFields = {
  marketHash: `0x${string}`;
  /** Ladder tick 1..799 (0.125 % steps), own frame. */
  tick: number;
  /** Odds as signed, instead of the tick's (off the ladder, out of range). */
  odds?: bigint;
  size: bigint;
  isOne?: boolean;
  timeInForce?: 'GTC' | 'IOC' | 'FOK';
  expiry?: number;
  clientOrderId?: string;
  salt?: bigint;
};

/**
 * `orderTypedData` in the shape viem's typed-data functions are typed for: given `EIP712Domain` among the
 * types, viem types the domain by it, so its uint256 `chainId` is a bigint where `OrderDomain` has a
 * number. The same digest and signature either way.
 */
export function viemOrderTypedData(domain: OrderDomain, order: OrderMessage) {
  return { ...orderTypedData(domain, order), domain: { ...domain, chainId: BigInt(domain.chainId) } };
}

/** A wire order signed with the user's key over the exchange's EIP-712 domain (viem signTypedData). */
export async function signOrder(t: TestExchange, user: TestUser, f: OrderFields) {
  const message: OrderMessage = {
    marketHash: f.marketHash,
    baseToken: t.config.baseToken,
    totalBetSize: f.size,
    percentageOdds: f.odds ?? tickToOdds(f.tick),
    salt: f.salt ?? BigInt(`0x${randomBytes(32).toString('hex')}`),
    expiry: f.expiry ?? Math.floor(Date.now() / 1000) + 3600,
    maker: user.address,
    isMakerBettingOutcomeOne: f.isOne ?? true,
  };
  const signature = await privateKeyToAccount(user.privateKey).signTypedData(
    viemOrderTypedData(t.exchange.orderDomain, message),
  );
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
    orderSignature: signature,
    ...(f.clientOrderId ? { clientOrderId: f.clientOrderId } : {}),
  };
}

export async function postOrders(
  t: TestExchange,
  user: TestUser,
  orders: unknown[],
  options: { waitForOutcome?: boolean; maxWaitTime?: number } = {},
) {
  return t.app.inject({
    method: 'POST',
    url: '/orders-v3',
    headers: user.headers,
    payload: { orders, ...options },
  });
}

/** Posts one order with waitForOutcome and returns its result entry. */
export async function place(t: TestExchange, user: TestUser, f: OrderFields) {
  const response = await postOrders(t, user, [await signOrder(t, user, f)], { waitForOutcome: true });
  if (response.statusCode !== 200) throw new Error(`place: ${response.statusCode} ${response.body}`);
  return response.json().data.orders[0];
}

export async function until<T>(
  probe: () => Promise<T> | T,
  ok: (v: T) => boolean,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
