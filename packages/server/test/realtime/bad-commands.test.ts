import { accountOrdersChannel } from '@oddsbook/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_METHODS } from '../../src/realtime/wire.js';
import {
  ALICE,
  BOB,
  BOOK,
  connectedRawClient,
  pubsOf,
  startHub,
  type TestHub,
  tokenFor,
  until,
} from './helpers.js';

let t: TestHub;
beforeAll(async () => {
  t = await startHub();
});
afterAll(async () => {
  await t.close();
});

const CHANNELS = [
  BOOK,
  'markets:global',
  'best_odds:global',
  accountOrdersChannel(ALICE),
  accountOrdersChannel(BOB),
  'order_book:market_0x',
  'x'.repeat(300),
  '',
];

const anything = fc.oneof(fc.jsonValue(), fc.constantFrom(null, [], {}, -1, 2 ** 53, '💥', 'a'.repeat(3000)));
/** Mostly a well-typed value, else anything (most commands must get past the frame checks to test more). */
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 15, arbitrary: valid }, { weight: 1, arbitrary: anything });
/** Params shaped like the protocol's (channel, offsets, flags, a token), any of them wrong or missing. */
const params = mostly(
  fc.record(
    {
      channel: mostly(fc.constantFrom(...CHANNELS)),
      token: mostly(
        fc.constantFrom(tokenFor(BOB), tokenFor(ALICE, 1, Date.now() - 3_600_000), 'not-a-token'),
      ),
      positioned: mostly(fc.boolean()),
      recoverable: mostly(fc.boolean()),
      recover: mostly(fc.boolean()),
      offset: mostly(fc.nat()),
      epoch: mostly(fc.string()),
      limit: mostly(fc.integer({ min: -1, max: 200 })),
      since: mostly(fc.record({ offset: fc.nat(), epoch: fc.string() })),
      reverse: mostly(fc.boolean()),
      data: anything,
      method: anything,
      flag: anything,
    },
    { requiredKeys: [] },
  ),
);
const command = fc
  .tuple(
    fc.option(mostly(fc.nat({ max: 1000 })), { nil: undefined, freq: 30 }),
    fc.oneof({ weight: 30, arbitrary: fc.constantFrom(...COMMAND_METHODS) }, fc.string()),
    params,
  )
  .map(([id, method, p]) => (id === undefined ? { [method]: p } : { id, [method]: p }));

describe('random commands on a connected realtime client', () => {
  it('get a reply or an error, or close the connection with a protocol code (never 3004); the hub keeps serving', async () => {
    let replies = 0;
    let closes = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 8 }), async (commands) => {
        const raw = await connectedRawClient(t.url);
        const seen = raw.lines.length;
        const outcome = Promise.race([raw.closed, new Promise<null>((r) => setTimeout(() => r(null), 60))]);
        raw.send(...commands);
        const closed = await outcome;
        for (const line of raw.lines.slice(seen)) {
          // A reply carries an error { code, message } or exactly one result key besides its id.
          const { id: _id, error, ...result } = line as { id?: unknown; error?: unknown };
          if (error !== undefined) {
            expect(error).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
          } else if (!('push' in line)) {
            expect(Object.keys(result)).toHaveLength(1);
          }
          replies += 1;
        }
        if (closed) {
          closes += 1;
          // A protocol close, never 3004 "internal server error" (the realtime side's 500).
          expect(closed.code, `${closed.code} ${closed.reason} after ${JSON.stringify(commands)}`).not.toBe(
            3004,
          );
          expect(closed.code).toBeGreaterThanOrEqual(3000);
          expect(closed.code).toBeLessThan(5000);
        } else {
          raw.ws.close();
        }
      }),
      { numRuns: 150 },
    );
    expect(replies).toBeGreaterThan(0);
    expect(closes).toBeGreaterThan(0);

    // Afterwards a new client subscribes and receives as usual.
    const fresh = await connectedRawClient(t.url);
    fresh.send({ id: 2, subscribe: { channel: BOOK } });
    expect(await fresh.reply(2)).toEqual({ id: 2, subscribe: {} });
    t.hub.publish(BOOK, { levels: [7] });
    await until(() => pubsOf(fresh, BOOK).length === 1, 5000, 'publication');
    fresh.ws.close();
  }, 60_000);
});
