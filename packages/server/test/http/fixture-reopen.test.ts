import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketStatus } from '../../src/engine/index.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC } from '../helpers/trading.js';

describe('a fixture set back from finished to not started', () => {
  let t: TestExchange;
  let trader: TestUser;
  beforeAll(async () => {
    t = await startTestExchange();
    trader = await createTrader(t, 1_000n * USDC);
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  const setStatus = (eventId: string, status: number) =>
    t.app.inject({
      method: 'POST',
      url: `/admin/fixtures/${eventId}/status`,
      headers: t.admin,
      payload: { status },
    });
  const listed = async (eventId: string) =>
    (await t.app.inject({ method: 'GET', url: `/markets/active?eventId=${eventId}` })).json().data
      .markets as {
      marketHash: string;
    }[];

  it('is refused (409) once its markets have taken orders; listing and engine agree: closed', async () => {
    const { marketHash, eventId } = await createMarket(t);
    const resting = await place(t, trader, { marketHash, tick: 400, size: 10n * USDC });
    expect(resting).toMatchObject({ status: 'SUBMITTED', outcome: { state: 'RESTED' } });
    expect((await setStatus(eventId, 3)).statusCode).toBe(200);

    const reopened = await setStatus(eventId, 1);
    expect(reopened.statusCode).toBe(409);
    expect(reopened.json()).toEqual({
      message: expect.stringMatching(
        /is finished and its markets are closed for trading: it cannot go back to notStarted/,
      ),
      error: 'Conflict',
      statusCode: 409,
      code: 'FIXTURE_CLOSED',
    });
    // Nothing changed: the fixture stays finished, its market off the list and closed in the engine.
    const status = await t.app.inject({ method: 'GET', url: `/fixture/status?sportXEventIds=${eventId}` });
    expect(status.json().data).toEqual({ [eventId]: 3 });
    expect(await listed(eventId)).toEqual([]);
    expect(t.exchange.trading.sequencer.engine.market(marketHash)?.status).toBe(MarketStatus.CLOSED);
    const order = await place(t, trader, { marketHash, tick: 400, size: 10n * USDC });
    expect(order).toMatchObject({ status: 'FAILED', reason: 'MARKET_INACTIVE' });
    // Another closing status is no reopening.
    expect((await setStatus(eventId, 4)).statusCode).toBe(200);
    expect((await setStatus(eventId, 2)).statusCode).toBe(409);
  });

  it('is allowed while none of its markets has met an order: listed and trading again', async () => {
    const { marketHash, eventId } = await createMarket(t);
    expect((await setStatus(eventId, 3)).statusCode).toBe(200);
    expect(await listed(eventId)).toEqual([]);
    const reopened = await setStatus(eventId, 1);
    expect(reopened.statusCode).toBe(200);
    expect(reopened.json().data.status).toBe(1);
    expect((await listed(eventId)).map((m) => m.marketHash)).toEqual([marketHash]);
    expect(await place(t, trader, { marketHash, tick: 400, size: 10n * USDC })).toMatchObject({
      status: 'SUBMITTED',
      outcome: { state: 'RESTED' },
    });
    expect(t.exchange.trading.sequencer.engine.market(marketHash)?.status).toBe(MarketStatus.OPEN);
  });
});
