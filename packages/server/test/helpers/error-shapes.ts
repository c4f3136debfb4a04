import { expect } from 'vitest';

/** The error shapes of the spec (Errors): the common one, 503's, the order-size one and the legacy one. */
export function expectSpecErrorShape(status: number, body: Record<string, unknown>): void {
  if (body.message === 'TOTAL_BET_SIZE_TOO_LOW') {
    expect(body).toMatchObject({ marketHash: expect.any(String), minimum: expect.any(String) });
  } else if (body.status === 'failure') {
    expect(body.errorCode).toBeDefined();
  } else {
    const message = body.message;
    expect(
      typeof message === 'string' || (Array.isArray(message) && message.every((m) => typeof m === 'string')),
    ).toBe(true);
    expect(body.statusCode).toBe(status);
    if (status !== 503) expect(typeof body.error).toBe('string');
  }
}
