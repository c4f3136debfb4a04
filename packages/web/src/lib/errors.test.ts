import { ExchangeApiError, OrderCheckError } from '@oddsbook/client';
import { describe, expect, it } from 'vitest';
import { plainError, plainReason } from './errors.js';

describe('plainError', () => {
  it("gives the exchange's sentence, or a sentence for its code", () => {
    const error = (status: number, body: unknown) => new ExchangeApiError(status, body, null);
    expect(plainError(error(401, { message: 'BAD_AUTH', error: 'Unauthorized', statusCode: 401 }))).toBe(
      'The exchange did not accept your credentials: sign in again.',
    );
    expect(plainError(error(409, { message: 'the proxy wallet is not deployed yet', statusCode: 409 }))).toBe(
      'the proxy wallet is not deployed yet',
    );
    expect(plainError(error(400, { message: ['body/x must be string', 'body/y is required'] }))).toBe(
      'body/x must be string; body/y is required',
    );
    expect(plainError(error(429, { message: 'RATE_LIMITED' }))).toMatch(/Too many requests/);
    expect(plainError(error(503, { message: 'Service Unavailable', statusCode: 503 }))).toMatch(/busy/);
    expect(plainError(new OrderCheckError('TOTAL_BET_SIZE_TOO_LOW', 'stake below the market minimum'))).toBe(
      'The stake is below the market’s minimum.',
    );
    expect(plainError({ code: 4001, message: 'User rejected the request.' })).toBe(
      'You declined the request in your wallet.',
    );
  });

  it('names the refused leg of a parlay request', () => {
    const refused = new ExchangeApiError(
      400,
      {
        message: 'leg 2 is a market of the same event as another leg',
        error: 'Bad Request',
        statusCode: 400,
        code: 'PARLAY_LEGS_SAME_EVENT',
        marketHash: `0x${'ab'.repeat(32)}`,
        legIndex: 1,
      },
      null,
    );
    expect(plainError(refused)).toBe('Leg 2: another leg is of the same game: keep one leg per game.');
    expect(plainReason('PARLAY_QUOTE_WINDOW_CLOSED')).toBe('The quote window of this parlay has closed.');
  });
  it('words order reasons', () => {
    expect(plainReason('NO_LIQUIDITY')).toBe('Nothing on the other side matched your odds.');
    expect(plainReason('HEARTBEAT_TIMEOUT')).toBe('heartbeat timeout');
  });
});
