import {
  collect,
  createAdminClient,
  createExchangeClient,
  type Eip1193Provider,
  ExchangeApiError,
  eip1193Signer,
  OrderCheckError,
  OrdersRejectedError,
  PlacementUnknownError,
  remoteSigner,
  type TypedDataPayload,
} from '@oddsbook/client';
import { tickToOdds } from '@oddsbook/protocol';
import { hexToString, isHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/cli-process.js';
import {
  ADMIN_TOKEN,
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
  testPrivateKey,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, signOrder, USDC, until } from '../helpers/trading.js';

let t: TestExchange;
let url: string;
beforeAll(async () => {
  const port = await freePort();
  // Sign-in messages name the origin the exchange is reached at.
  t = await startTestExchange({ env: { SIWE_DOMAINS: `http://127.0.0.1:${port}` } });
  url = await t.app.listen({ port, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
  removeDataDir(t.dataDir);
});

const clientOf = (user: TestUser, extra: Partial<Parameters<typeof createExchangeClient>[0]> = {}) =>
  createExchangeClient({
    baseUrl: url,
    apiKey: user.apiKey,
    signer: privateKeyToAccount(user.privateKey),
    ...extra,
  });

/** A fetch whose answers to `POST /orders-v3` are lost on the way back while `losing()` says so. */
function losingAnswers(losing: () => boolean) {
  const delivered: string[] = [];
  const lossy: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method === 'POST' && String(input).endsWith('/orders-v3') && losing()) {
      delivered.push(String(init.body));
      await response.arrayBuffer();
      throw new TypeError('fetch failed: the connection was reset');
    }
    return response;
  };
  return { fetch: lossy, delivered };
}

describe('errors', () => {
  it('carry status and code: a bad key, a missing order, a bad query, a foreign bettor, a missing route', async () => {
    const maker = await createTrader(t, 10n * USDC);
    const stranger = createExchangeClient({ baseUrl: url, apiKey: 'nope' });
    await expect(stranger.listOrders()).rejects.toMatchObject({ status: 401, code: 'BAD_AUTH' });
    const client = clientOf(maker);
    const missing = await client.getOrder(`0x${'ab'.repeat(32)}`).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ExchangeApiError);
    expect(missing).toMatchObject({ status: 404, code: 'ORDER_NOT_FOUND' });
    expect((missing as ExchangeApiError).requestId).toBeTruthy();
    await expect(client.listFills({ perPage: 1000 })).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
    });
    await expect(client.listRefunds({ bettor: `0x${'22'.repeat(20)}` })).rejects.toMatchObject({
      status: 403,
      code: 'BETTOR_MISMATCH',
    });
    await expect(client.siweVerify('hello', `0x${'00'.repeat(65)}`)).rejects.toMatchObject({
      status: 401,
      code: 'SIGN_IN_FAILED',
    });
    // A route that needs a credential the client lacks is refused before any request.
    await expect(createExchangeClient({ baseUrl: url }).getBalance()).rejects.toThrow(/needs an API key/);
  });

  it('a stake under the market minimum: TOTAL_BET_SIZE_TOO_LOW from the builder before posting, and from the exchange', async () => {
    const { marketHash } = await createMarket(t, { minBetSize: (5n * USDC).toString() });
    const maker = await createTrader(t, 100n * USDC);
    const posted: string[] = [];
    const client = clientOf(maker, {
      fetch: (input, init) => {
        if (init?.method === 'POST') posted.push(String(input));
        return fetch(input, init);
      },
    });
    const refused = await client
      .placeOrders([{ marketHash, tick: 400, totalBetSize: 4n * USDC, isMakerBettingOutcomeOne: true }])
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OrderCheckError);
    expect(refused).toMatchObject({ code: 'TOTAL_BET_SIZE_TOO_LOW', details: { minimum: '5000000' } });
    expect(posted).toEqual([]);
    // Signed by hand, the exchange answers the same code (its body carries the minimum).
    const signed = await signOrder(t, maker, { marketHash, tick: 400, size: 4n * USDC });
    const answer = await client.placeOrders([signed as never]).catch((e: unknown) => e);
    expect(answer).toMatchObject({
      status: 400,
      code: 'TOTAL_BET_SIZE_TOO_LOW',
      body: { marketHash, minimum: '5000000' },
    });
  });
});

describe('the order builder', () => {
  it('rounds odds onto the ladder, fills the defaults, and keeps expiry past the betting delay', async () => {
    const { marketHash } = await createMarket(t, { live: true, bettingDelay: 4 });
    const maker = await createTrader(t, 100n * USDC);
    const client = clientOf(maker);
    const [prepared] = await client.prepareOrders([
      {
        marketHash,
        percentageOdds: tickToOdds(400) + 12345n,
        totalBetSize: 5n * USDC,
        isMakerBettingOutcomeOne: true,
      },
    ]);
    expect(prepared).toMatchObject({
      percentageOdds: tickToOdds(400),
      timeInForce: 'GTC',
      baseToken: t.config.baseToken,
    });
    expect(prepared!.expiry).toBeGreaterThan(Date.now() / 1000 + 3000);
    const soon = Math.floor(Date.now() / 1000) + 3;
    await expect(
      client.prepareOrders([
        { marketHash, tick: 400, totalBetSize: 5n * USDC, isMakerBettingOutcomeOne: true, expiry: soon },
      ]),
    ).rejects.toMatchObject({ code: 'EXPIRY_INSIDE_BETTING_DELAY', details: { bettingDelayMs: 4000 } });
    await expect(
      client.prepareOrders([
        { marketHash, tick: 800, totalBetSize: 5n * USDC, isMakerBettingOutcomeOne: true },
      ]),
    ).rejects.toMatchObject({ code: 'ODDS_NOT_ON_LADDER' });
  });
});

describe('placing orders', () => {
  it('answers FAILED with the reason, and placeOrder throws it', async () => {
    const { marketHash } = await createMarket(t);
    const poor = await createTrader(t, 1n * USDC);
    const client = clientOf(poor);
    const [result] = await client.placeOrders([
      { marketHash, tick: 400, totalBetSize: 5n * USDC, isMakerBettingOutcomeOne: true },
    ]);
    expect(result).toMatchObject({
      status: 'FAILED',
      reason: 'INSUFFICIENT_BALANCE',
      commandId: expect.any(String),
    });
    const error = await client
      .placeOrder({ marketHash, tick: 400, totalBetSize: 5n * USDC, isMakerBettingOutcomeOne: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrdersRejectedError);
    expect((error as OrdersRejectedError).reason).toBe('INSUFFICIENT_BALANCE');
  });

  it('retries an order whose answer was lost with the same signature: placed once, answered SUBMITTED', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t, 100n * USDC);
    let lost = 0;
    const network = losingAnswers(() => lost++ < 1);
    const client = clientOf(maker, { fetch: network.fetch, retry: { baseDelayMs: 10 } });
    const retried: unknown[] = [];
    const [placed] = await client.placeOrders(
      [{ marketHash, tick: 420, totalBetSize: 7n * USDC, isMakerBettingOutcomeOne: true }],
      { onRetry: (error) => retried.push(error) },
    );
    expect(retried).toHaveLength(1);
    expect(network.delivered).toHaveLength(1);
    expect(placed).toMatchObject({
      status: 'SUBMITTED',
      retried: true,
      clientOrderId: expect.stringMatching(/^sdk-/),
      order: { status: 'ACTIVE', totalBetSize: '7000000' },
    });
    // The order the first attempt placed, and no second one.
    const open = await collect(clientOf(maker).orders({ marketHash }));
    expect(open.map((o) => o.id)).toEqual([placed!.orderId]);
  });

  it('after every attempt went unanswered, says which orders may be placed, and retrying them later places none twice', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t, 100n * USDC);
    let down = true;
    const network = losingAnswers(() => down);
    const client = clientOf(maker, { fetch: network.fetch, retry: { attempts: 3, baseDelayMs: 10 } });
    const error = await client
      .placeOrders([
        { marketHash, tick: 410, totalBetSize: 3n * USDC, isMakerBettingOutcomeOne: true },
        { marketHash, tick: 405, totalBetSize: 3n * USDC, isMakerBettingOutcomeOne: true },
      ])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlacementUnknownError);
    const unknown = error as PlacementUnknownError;
    expect(network.delivered).toHaveLength(3);
    const rows = await Promise.all(unknown.orders.map((o) => clientOf(maker).getOrder(o.orderId)));
    expect(rows.map((r) => r.status)).toEqual(['ACTIVE', 'ACTIVE']);
    down = false;
    const results = await unknown.retry();
    expect(results.map((r) => r.status)).toEqual(['SUBMITTED', 'SUBMITTED']);
    expect((await clientOf(maker).listOrders({ marketHash })).orders).toHaveLength(2);
  });
});

describe('keepAlive', () => {
  it('keeps orders while it refreshes, leaves them cancelled when it stops without disarming', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t, 100n * USDC);
    const client = clientOf(maker);
    const alive = client.keepAlive({ timeoutSeconds: 3, intervalMs: 300 });
    expect((await alive.armed).timeoutSeconds).toBe(3);
    const placed = await client.placeOrder({
      marketHash,
      tick: 400,
      totalBetSize: 5n * USDC,
      isMakerBettingOutcomeOne: true,
    });
    // Longer than the timeout: only the refreshes keep the order.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect((await client.getOrder(placed.orderId!)).status).toBe('ACTIVE');
    await alive.stop({ disarm: false });
    const cancelled = await until(
      () => client.getOrder(placed.orderId!),
      (o) => o.status === 'INACTIVE',
      15_000,
    );
    expect(cancelled.inactiveReason).toBe('HEARTBEAT_TIMEOUT');
  });

  it('disarms the switch when stopped cleanly: the orders stay', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t, 100n * USDC);
    const client = clientOf(maker);
    const alive = client.keepAlive({ timeoutSeconds: 1, intervalMs: 200 });
    await alive.armed;
    const placed = await client.placeOrder({
      marketHash,
      tick: 400,
      totalBetSize: 5n * USDC,
      isMakerBettingOutcomeOne: true,
    });
    await alive.stop();
    expect(alive.expiresAt).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await client.getOrder(placed.orderId!)).status).toBe('ACTIVE');
  });
});

describe('signers', () => {
  it('a remote signer (JSON typed data, as a KMS gets it) signs orders the exchange takes', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t, 100n * USDC);
    const key = privateKeyToAccount(maker.privateKey);
    const seen: TypedDataPayload[] = [];
    const kms = remoteSigner({
      address: key.address,
      signTypedData: async (typedData) => {
        // What crosses the wire: plain JSON, bigints as decimal strings, the domain's type listed.
        const json = JSON.parse(JSON.stringify(typedData)) as TypedDataPayload;
        seen.push(json);
        return key.signTypedData(json as never);
      },
    });
    const client = createExchangeClient({ baseUrl: url, apiKey: maker.apiKey, signer: kms });
    const placed = await client.placeOrder({
      marketHash,
      tick: 430,
      totalBetSize: 5n * USDC,
      isMakerBettingOutcomeOne: true,
    });
    expect(placed.status).toBe('SUBMITTED');
    expect(seen[0]!.types.EIP712Domain).toBeDefined();
    expect(typeof seen[0]!.message.totalBetSize).toBe('string');
  });

  it('a browser wallet (EIP-1193) signs in, makes an API key on its session, and signs orders', async () => {
    const { marketHash } = await createMarket(t);
    const funded = await createTrader(t, 100n * USDC);
    const key = privateKeyToAccount(funded.privateKey);
    // A wallet as a page sees it: eth_signTypedData_v4 and personal_sign over JSON-RPC parameters.
    const wallet: Eip1193Provider = {
      async request({ method, params }) {
        const args = params as unknown[];
        if (method === 'eth_signTypedData_v4') return key.signTypedData(JSON.parse(args[1] as string));
        if (method === 'personal_sign') {
          const message = args[0] as string;
          return key.signMessage({ message: isHex(message) ? hexToString(message) : message });
        }
        if (method === 'eth_chainId') return `0x${t.config.chainId.toString(16)}`;
        throw new Error(`the wallet does not do ${method}`);
      },
    };
    const signer = eip1193Signer(wallet, key.address);
    const anonymous = createExchangeClient({ baseUrl: url, signer });
    const session = await anonymous.signIn();
    expect(session.address).toBe(key.address);
    const account = anonymous.withCredentials({ sessionToken: session.sessionToken });
    const created = await account.createApiKey('from the sdk');
    const trading = createExchangeClient({ baseUrl: url, apiKey: created.apiKey, signer });
    const placed = await trading.placeOrder({
      marketHash,
      tick: 440,
      totalBetSize: 5n * USDC,
      isMakerBettingOutcomeOne: false,
    });
    expect((await trading.getOrder(placed.orderId!)).userAddress).toBe(key.address);
  });
});

describe('multisig', () => {
  it('adds a signer to the proxy wallet, signed with the client’s signer', async () => {
    const owner = await createTrader(t, 0n);
    const client = clientOf(owner);
    const newSigner = privateKeyToAccount(testPrivateKey()).address;
    const progress = await client.addSigner({ newSignerAddress: newSigner });
    expect(progress).toMatchObject({ signedCount: 1, requiredThreshold: 1, isReadyToExecute: true });
    const safe = await until(
      () => client.getMultisig(),
      (s) => s.owners.includes(newSigner),
      15_000,
    );
    expect(safe).toMatchObject({ deployed: true, threshold: 1 });
    expect(safe.owners).toContain(owner.address);
  });
});

describe('listings and the operator client', () => {
  it('iterates every page of a listing', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t, 100n * USDC);
    const client = clientOf(maker);
    for (let i = 0; i < 3; i++)
      await client.placeOrders(
        [0, 1, 2, 3].map((j) => ({
          marketHash,
          tick: 300 + i * 10 + j,
          totalBetSize: 1n * USDC,
          isMakerBettingOutcomeOne: true,
        })),
      );
    const firstPage = await client.listOrders({ marketHash, perPage: 5 });
    expect(firstPage.orders).toHaveLength(5);
    expect(firstPage.nextKey).not.toBeNull();
    const all = await collect(client.orders({ marketHash, perPage: 5 }));
    expect(all).toHaveLength(12);
    expect(new Set(all.map((o) => o.id)).size).toBe(12);
  });

  it('iterates the ended orders, newest first, with why each ended', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t, 100n * USDC);
    const client = clientOf(maker);
    const placed = [];
    for (const tick of [300, 310, 320])
      placed.push(
        await client.placeOrder({
          marketHash,
          tick,
          totalBetSize: 1n * USDC,
          isMakerBettingOutcomeOne: true,
        }),
      );
    const [kept, ...ended] = placed.map((p) => p.orderId!);
    expect((await client.cancelOrders(ended)).cancelled).toHaveLength(2);

    const firstPage = await client.listEndedOrders({ marketHash, perPage: 1 });
    expect(firstPage.orders.map((o) => o.id)).toEqual([ended[1]]);
    expect(firstPage.nextKey).not.toBeNull();
    const all = await collect(client.endedOrders({ marketHash, perPage: 1 }));
    expect(all.map((o) => [o.id, o.status, o.inactiveReason])).toEqual([
      [ended[1], 'INACTIVE', 'USER_REQUESTED'],
      [ended[0], 'INACTIVE', 'USER_REQUESTED'],
    ]);
    expect((await collect(client.endedOrders({ marketHash, sortAsc: true }))).map((o) => o.id)).toEqual(
      ended,
    );
    expect((await collect(client.orders({ marketHash }))).map((o) => o.id)).toEqual([kept]);
  });

  it('drives the operator routes with its token', async () => {
    const admin = createAdminClient({ baseUrl: url, adminToken: ADMIN_TOKEN });
    const { leagueId } = await admin.createLeague({ sportId: 1, label: `SDK league ${Date.now()}` });
    const { eventId } = await admin.createFixture({
      leagueId,
      teamOneName: 'SDK Home',
      teamTwoName: 'SDK Away',
      gameTime: Math.floor(Date.now() / 1000) + 86_400,
    });
    const { marketHash } = await admin.createMarket({
      eventId,
      type: 52,
      outcomeOneName: 'Home',
      outcomeTwoName: 'Away',
    });
    const [market] = await createExchangeClient({ baseUrl: url }).findMarkets([marketHash]);
    expect(market).toMatchObject({ marketHash, status: 'ACTIVE' });
    await expect(
      createAdminClient({ baseUrl: url, adminToken: 'wrong-token-wrong' }).reconcile(),
    ).rejects.toMatchObject({
      status: 401,
      code: 'BAD_AUTH',
    });
  });
});
