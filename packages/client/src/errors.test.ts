import { describe, expect, it } from 'vitest';
import { ExchangeApiError, errorCodeOf, retryAfterMs } from './errors.js';

describe('errorCodeOf', () => {
  it('reads the code from a code field, the legacy errorCode, a code message or a code prefix', () => {
    expect(errorCodeOf(400, { code: 'INVALID_EXPIRY', message: 'expiry must be in the future' })).toBe(
      'INVALID_EXPIRY',
    );
    expect(errorCodeOf(403, { status: 'failure', errorCode: 'BETTOR_MISMATCH' })).toBe('BETTOR_MISMATCH');
    expect(errorCodeOf(401, { message: 'BAD_AUTH', error: 'Unauthorized', statusCode: 401 })).toBe(
      'BAD_AUTH',
    );
    expect(errorCodeOf(429, { message: 'RATE_LIMITED: retry in 2 seconds' })).toBe('RATE_LIMITED');
    expect(errorCodeOf(400, { message: 'TOTAL_BET_SIZE_TOO_LOW', marketHash: '0x', minimum: '5' })).toBe(
      'TOTAL_BET_SIZE_TOO_LOW',
    );
  });

  it('falls back on what a list of messages, a missing route or the status says', () => {
    expect(errorCodeOf(400, { message: ['body/orders must NOT have fewer than 1 items'] })).toBe(
      'VALIDATION_FAILED',
    );
    expect(errorCodeOf(404, { message: 'Cannot GET /nope' })).toBe('ROUTE_NOT_FOUND');
    expect(errorCodeOf(404, { message: 'Order not found' })).toBe('NOT_FOUND');
    expect(errorCodeOf(400, { message: 'endDate must not be earlier than startDate' })).toBe('BAD_REQUEST');
    expect(errorCodeOf(409, { message: 'the market was resolved' })).toBe('CONFLICT');
    expect(errorCodeOf(401, { message: 'the nonce is unknown, used or expired: sign in again' })).toBe(
      'SIGN_IN_FAILED',
    );
    expect(errorCodeOf(503, { message: 'The exchange is stopping', statusCode: 503 })).toBe(
      'SERVICE_UNAVAILABLE',
    );
    expect(errorCodeOf(502, null)).toBe('SERVICE_UNAVAILABLE');
    expect(errorCodeOf(500, 'oops')).toBe('INTERNAL_ERROR');
    // A code-looking word that is not a code is not taken for one.
    expect(errorCodeOf(400, { message: 'NOT_A_CODE_WE_KNOW' })).toBe('BAD_REQUEST');
  });
});

describe('ExchangeApiError', () => {
  it('carries status, code, message, request id, the wait asked for, and what to do', () => {
    const error = new ExchangeApiError(429, { message: 'RATE_LIMITED: retry in 2 seconds' }, 'req-1', {
      retryAfterMs: 2000,
      method: 'POST',
      path: '/orders-v3',
    });
    expect(error).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      requestId: 'req-1',
      retryAfterMs: 2000,
    });
    expect(error.message).toBe('429 RATE_LIMITED: RATE_LIMITED: retry in 2 seconds (POST /orders-v3)');
    expect(error.hint.action).toMatch(/Retry-After/);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs('Thu, 01 Jan 2099 00:00:10 GMT', Date.parse('Thu, 01 Jan 2099 00:00:00 GMT'))).toBe(
      10_000,
    );
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});
