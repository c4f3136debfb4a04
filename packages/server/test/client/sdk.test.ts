import { createExchangeClient, ExchangeApiError } from '@oddsbook/client';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, USDC, until } from '../helpers/trading.js';

describe('@oddsbook/client against a listening server', () => {
  let t: TestExchange;
  let baseUrl: string;
  beforeAll(async () => {
    t = await startTestExchange();
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  async function trader() {
    const user = await t.createUser();
    const client = createExchangeClient({
      baseUrl,
      apiKey: user.apiKey,
      account: privateKeyToAccount(user.privateKey),
    });
    await client.deployProxy();
    await until(
      () => client.getProxy(),
      (p) => p.deployed,
      10_000,
    );
    await t.app.inject({
      method: 'POST',
      url: '/admin/faucet',
      headers: t.admin,
      payload: { address: user.address, amount: (100n * USDC).toString() },
    });
    return client;
  }

  it('signs, places, reads, takes and cancels', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await trader();
    const taker = await trader();
    const expiry = Math.floor(Date.now() / 1000) + 600;
    const [made] = await maker.placeOrders(
      [
        {
          marketHash,
          tick: 440,
          totalBetSize: 22n * USDC,
          isMakerBettingOutcomeOne: true,
          timeInForce: 'GTC',
          expiry,
          clientOrderId: 'sdk-1',
        },
      ],
      { waitForOutcome: true },
    );
    expect(made).toMatchObject({ status: 'SUBMITTED', outcome: { state: 'RESTED' } });
    expect((await maker.getOrderByClientId('sdk-1')).id).toBe(made!.orderId);
    expect((await maker.getOrderBook(marketHash)).outcomeOne).toHaveLength(1);

    const [took] = await taker.placeOrders(
      [
        {
          marketHash,
          tick: 360,
          totalBetSize: 9n * USDC,
          isMakerBettingOutcomeOne: false,
          timeInForce: 'FOK',
          expiry,
        },
      ],
      { waitForOutcome: true },
    );
    expect(took!.outcome).toMatchObject({ state: 'FULLY_FILLED', fillAmount: (9n * USDC).toString() });
    expect((await taker.listFills()).fills).toHaveLength(1);
    // An ordinary bet in the consolidated listing: itself, no parent, no legs.
    expect((await taker.listConsolidatedTrades({ hideQuarterLineLegs: true })).trades).toEqual([
      expect.objectContaining({
        tradeId: took!.outcome!.tradeId,
        isQuarterLineParent: false,
        isQuarterLineLeg: false,
        quarterLineFillHash: null,
        totalStake: (9n * USDC).toString(),
      }),
    ]);
    expect((await taker.listPositions({ marketHash })).positions).toEqual([
      expect.objectContaining({ marketHash, guaranteedReceipt: '0', maxLoss: (9n * USDC).toString() }),
    ]);
    // Its own refunds (the bettor is the client's account): none, a plain bet refunds nothing.
    expect(await taker.listRefunds({ sortAsc: true, page: 0, perPage: 10, eventsPerPage: 5 })).toEqual({
      results: [],
      count: 0,
    });
    await expect(taker.listRefunds({ bettor: '0x12' })).rejects.toMatchObject({
      status: 400,
      body: { status: 'failure', errorCode: 'BAD_BETTOR' },
    });
    // Another bettor's refunds are not the key's to read.
    await expect(taker.listRefunds({ bettor: `0x${'22'.repeat(20)}` })).rejects.toMatchObject({
      status: 403,
      body: { status: 'failure', errorCode: 'BETTOR_MISMATCH' },
    });
    expect(await taker.getBalance()).toMatchObject({
      availableAmount: (91n * USDC).toString(),
      escrowedAmount: (9n * USDC).toString(),
    });

    const madeId = made?.orderId;
    if (!madeId) throw new Error(`the maker's order has no id: ${JSON.stringify(made)}`);
    const cancelled = await maker.cancelOrders([madeId]);
    expect(cancelled.cancelled.map((c) => c.orderId)).toEqual([madeId]);
    expect((await maker.listOrders()).orders).toEqual([]);
    expect((await maker.heartbeat(30)).expiresAt).toBeTruthy();
    expect(await maker.realtimeToken()).toMatch(/^ey/);
  });

  it('throws ExchangeApiError with the status and body', async () => {
    const anonymous = createExchangeClient({ baseUrl, apiKey: 'nope' });
    const error = await anonymous.listOrders().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExchangeApiError);
    expect(error).toMatchObject({ status: 401, body: { message: 'BAD_AUTH' } });
    expect((error as ExchangeApiError).requestId).toBeTruthy();
  });
});
