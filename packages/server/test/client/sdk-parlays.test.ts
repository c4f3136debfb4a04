import type { ChildProcess } from 'node:child_process';
import {
  createAdminClient,
  createExchangeClient,
  ExchangeApiError,
  type ParlayRequest,
} from '@oddsbook/client';
import { ODDS_SCALE } from '@oddsbook/protocol';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExample } from '../helpers/cli-process.js';
import {
  ADMIN_TOKEN,
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC, until } from '../helpers/trading.js';

const pct = (p: number) => (BigInt(Math.round(p * 1000)) * ODDS_SCALE) / 100_000n;

describe('parlays through the SDK and the example quoter', () => {
  let t: TestExchange;
  let url: string;
  const running: ChildProcess[] = [];
  beforeAll(async () => {
    // A quote window longer than the default 3 s: the quoter must offer within it on a loaded test machine too.
    t = await startTestExchange({ env: { PARLAY_QUOTE_WINDOW_MS: '8000' } });
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const child of running) child.kill('SIGKILL');
    await t.close();
    removeDataDir(t.dataDir);
  });
  const clientOf = (user: TestUser) =>
    createExchangeClient({ baseUrl: url, apiKey: user.apiKey, signer: privateKeyToAccount(user.privateKey) });

  it('refuses a parlay with two legs of one game, naming the leg', async () => {
    const bettor = clientOf(await createTrader(t, 0n));
    const { marketHash: one, eventId } = await createMarket(t);
    const admin = createAdminClient({ baseUrl: url, adminToken: ADMIN_TOKEN });
    const { marketHash: two } = await admin.createMarket({
      eventId,
      type: 2,
      outcomeOneName: 'Over 2.5',
      outcomeTwoName: 'Under 2.5',
      line: 2.5,
    });
    const refused = await bettor
      .requestParlay({
        legs: [
          { marketHash: one, bettingOutcomeOne: true },
          { marketHash: two, bettingOutcomeOne: false },
        ],
      })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ExchangeApiError);
    expect(refused).toMatchObject({ status: 400, code: 'PARLAY_LEGS_SAME_EVENT' });
    expect((refused as ExchangeApiError).body).toMatchObject({ marketHash: two, legIndex: 1 });
  });

  it('a maker hears the request; the quoter offers in the window; the requester takes it; the legs settle it', async () => {
    // Three games, each with a book: makers bet outcome one at 53 % and outcome two at 43 % (fair: 55 / 45).
    const liquidity = await createTrader(t);
    const legs = [];
    for (const pick of [true, false, true]) {
      const { marketHash } = await createMarket(t);
      expect(
        (await place(t, liquidity, { marketHash, tick: 424, size: 20n * USDC, isOne: true })).status,
      ).toBe('SUBMITTED');
      expect(
        (await place(t, liquidity, { marketHash, tick: 344, size: 20n * USDC, isOne: false })).status,
      ).toBe('SUBMITTED');
      legs.push({ marketHash, bettingOutcomeOne: pick });
    }

    // A maker following the requests through the SDK, and the example quoter in a process of its own.
    const watcher = clientOf(await createTrader(t, 0n));
    const requests = watcher.watchParlayRequests();
    await requests.ready;
    const heard: ParlayRequest[] = [];
    requests.on((r) => heard.push(r));
    const quoter = startExample('parlay-quoter', ['--margin', '3', '--size', '20'], {
      ODDSBOOK_URL: url,
      ODDSBOOK_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    running.push(quoter.child);
    await until(quoter.output, (out) => out.includes('[quoter] listening for parlay requests'), 60_000);

    const bettorUser = await createTrader(t, 100n * USDC);
    const bettor = clientOf(bettorUser);
    const request = await bettor.requestParlay({ legs, requestSize: 10n * USDC });
    expect(request.legs).toEqual(legs);
    expect(Date.parse(request.takeUntil)).toBeGreaterThan(Date.parse(request.quoteWindowEndsAt));

    const [broadcast] = await until(
      () => heard,
      (h) => h.length === 1,
      10_000,
    );
    expect(broadcast).toEqual({
      channelName: 'markets:parlay',
      marketHash: request.marketHash,
      baseToken: (await bettor.getMetadata()).activeAsset.baseToken,
      requestSize: '10000000',
      legs,
    });
    // 55 % x 45 % x 55 % = 13.6125 %, + 3 % = 16.6125 %, up onto the 0.125 % ladder: 16.625 % to the bettor.
    // Laying 10 USDC at 16.625 % takes 10 x 83.375 / 16.625 = 50.150375.. USDC, rounded up.
    await until(
      quoter.output,
      (out) => out.includes(`[quoter] offered ${request.marketHash.slice(0, 10)}`),
      30_000,
    );
    expect(quoter.output()).toContain('16.625 % to the bettor');

    // The requester sees the offer once the window has closed.
    const detail = await until(
      () => bettor.getParlay(request.marketHash),
      (d) => d.state === 'TAKING' && d.offers.length > 0,
      30_000,
    );
    expect(detail.requester.toLowerCase()).toBe(bettorUser.address.toLowerCase());
    expect(
      detail.legs.map((l) => ({ marketHash: l.marketHash, bettingOutcomeOne: l.bettingOutcomeOne })),
    ).toEqual(legs);
    expect(detail.offers).toHaveLength(1);
    const [offer] = detail.offers;
    expect(offer).toMatchObject({
      isMakerBettingOutcomeOne: false,
      percentageOdds: pct(83.375).toString(),
      remainingSize: '50150376',
    });

    // The requester takes it: an ordinary signed order betting the parlay (outcome one) at the offer's odds.
    const [taken] = await bettor.placeOrders(
      [
        {
          marketHash: request.marketHash,
          percentageOdds: pct(16.625),
          totalBetSize: 10n * USDC,
          isMakerBettingOutcomeOne: true,
          timeInForce: 'IOC',
        },
      ],
      { waitForOutcome: true },
    );
    expect(taken!.status).toBe('SUBMITTED');
    expect(BigInt(taken!.outcome!.fillAmount)).toBeGreaterThan(9n * USDC);
    await until(
      quoter.output,
      (out) => out.includes(`[quoter] taken ${request.marketHash.slice(0, 10)}`),
      30_000,
    );

    // Every leg goes the bettor's way: the parlay wins, its payout net of the fee on the profit.
    const admin = createAdminClient({ baseUrl: url, adminToken: ADMIN_TOKEN });
    const feesBefore = BigInt((await admin.getFees()).collectedAmount);
    for (const leg of legs) await admin.resolveMarket(leg.marketHash, leg.bettingOutcomeOne ? 1 : 2);
    await t.settled();
    const trade = await until(
      async () => (await bettor.listTrades({ marketHash: request.marketHash })).trades[0],
      (row) => row?.status === 'SETTLED',
      30_000,
    );
    expect(trade!.isParlay).toBe(true);
    const profit = BigInt(trade!.potentialPayout) - BigInt(trade!.stake);
    const fee = BigInt(trade!.fee);
    expect(fee).toBeGreaterThan(0n);
    // 5 % of the profit by default, to the base unit.
    expect(fee * 20n - profit).toBeGreaterThan(-20n);
    expect(fee * 20n - profit).toBeLessThan(20n);
    expect(BigInt(trade!.settlement!.payout) + fee).toBe(BigInt(trade!.potentialPayout));
    expect(BigInt((await admin.getFees()).collectedAmount) - feesBefore).toBe(fee);
    expect((await bettor.getParlay(request.marketHash)).state).toBe('SETTLED');

    quoter.child.kill('SIGINT');
    expect(await quoter.exited).toBe(0);
    expect(quoter.output()).toMatch(/\[quoter\] stopping after 1 offers/);
    requests.close();
    watcher.close();
  }, 180_000);
});
