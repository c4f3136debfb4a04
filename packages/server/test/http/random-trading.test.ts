import { tickToOdds } from '@oddsbook/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSpecErrorShape } from '../helpers/error-shapes.js';
import { startTestExchange, type TestExchange, type TestUser } from '../helpers/test-exchange.js';
import { createMarket, createTrader, signOrder, USDC } from '../helpers/trading.js';

const FUNDS = 100n * USDC;
let t: TestExchange;
let traders: TestUser[];
/** The property's run, to keep client order ids of runs apart. */
let run = 0;

beforeAll(async () => {
  t = await startTestExchange();
  traders = [await createTrader(t, FUNDS), await createTrader(t, FUNDS), await createTrader(t, FUNDS)];
});
afterAll(async () => {
  await t?.close();
});

/** An order's fields, each mostly sensible and sometimes not: the signature is always valid over them. */
const orderArb = fc.record({
  trader: fc.nat({ max: 2 }),
  isOne: fc.boolean(),
  odds: fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min: 380, max: 420 }).map((tick) => tickToOdds(tick)) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 799 }).map((tick) => tickToOdds(tick) + 1n) },
    { weight: 1, arbitrary: fc.constantFrom(0n, 10n ** 20n, 10n ** 20n + 1n, 2n ** 256n - 1n) },
  ),
  size: fc.oneof(
    { weight: 8, arbitrary: fc.bigInt({ min: 1_000_000n, max: 30_000_000n }) },
    { weight: 1, arbitrary: fc.constantFrom(0n, 1n, 799n, 10n ** 30n, 2n ** 256n - 1n) },
    { weight: 1, arbitrary: fc.bigInt({ min: 30_000_000n, max: 300_000_000n }) },
  ),
  timeInForce: fc.constantFrom('GTC', 'GTC', 'IOC', 'FOK'),
  /** Seconds from now, or an absolute value (0; milliseconds; far future). */
  expiry: fc.oneof(
    { weight: 8, arbitrary: fc.constant({ fromNow: 3_600 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { fromNow: -60 },
        { fromNow: 1 },
        { at: 0 },
        { at: 2 ** 40 },
        { at: 4_000_000_000 },
      ),
    },
  ),
  /** Client order ids are unique per account for good: a run's own ids, sometimes twice in it. */
  clientOrderId: fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom('a', 'b') },
  ),
});
type OrderSpec = typeof orderArb extends fc.Arbitrary<infer T> ? T : never;

const stepArb = fc.oneof(
  { weight: 6, arbitrary: fc.array(orderArb, { minLength: 1, maxLength: 4 }).map((orders) => ({ orders })) },
  { weight: 1, arbitrary: fc.record({ cancel: fc.nat({ max: 2 }), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ cancelAll: fc.nat({ max: 2 }) }) },
);

function signed(marketHash: `0x${string}`, o: OrderSpec) {
  return signOrder(t, traders[o.trader]!, {
    marketHash,
    tick: 0,
    odds: o.odds,
    size: o.size,
    isOne: o.isOne,
    timeInForce: o.timeInForce,
    expiry: 'at' in o.expiry ? o.expiry.at : Math.floor(Date.now() / 1000) + o.expiry.fromNow,
    ...(o.clientOrderId ? { clientOrderId: `${o.clientOrderId}-${run}` } : {}),
  });
}

async function balances() {
  const rows = await Promise.all(
    traders.map(
      async (user) =>
        (await t.app.inject({ method: 'GET', url: '/user/balance-v3', headers: user.headers })).json().data
          .balances[0] as { availableAmount: string; escrowedAmount: string },
    ),
  );
  return rows.map((r) => ({ available: BigInt(r.availableAmount), escrowed: BigInt(r.escrowedAmount) }));
}

describe('random signed orders and cancels through HTTP on one market, then its settlement', () => {
  it('answers each in the spec shapes, never loses or makes money, and pays out exactly what was staked', async () => {
    const total = FUNDS * BigInt(traders.length);
    let filled = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(0, 1, 2),
        async (steps, outcome) => {
          run += 1;
          const { marketHash } = await createMarket(t);
          const placed: { trader: number; orderId: string }[] = [];
          for (const step of steps) {
            if ('orders' in step) {
              // One request per maker: a batch has a single maker.
              const byTrader = new Map<number, OrderSpec[]>();
              for (const o of step.orders) byTrader.set(o.trader, [...(byTrader.get(o.trader) ?? []), o]);
              for (const [trader, orders] of byTrader) {
                const res = await t.app.inject({
                  method: 'POST',
                  url: '/orders-v3',
                  headers: traders[trader]!.headers,
                  payload: {
                    orders: await Promise.all(orders.map((o) => signed(marketHash, o))),
                    waitForOutcome: true,
                  },
                });
                expect(res.statusCode, res.body).toBeLessThan(500);
                if (res.statusCode !== 200) {
                  expect(res.statusCode).toBe(400);
                  expectSpecErrorShape(res.statusCode, res.json());
                  continue;
                }
                for (const r of res.json().data.orders as {
                  status: string;
                  orderId: string;
                  reason?: string;
                  outcome?: { state: string; fillAmount: string };
                }[]) {
                  expect(['SUBMITTED', 'FAILED']).toContain(r.status);
                  if (r.status === 'FAILED') expect(typeof r.reason).toBe('string');
                  else placed.push({ trader, orderId: r.orderId });
                  if (r.outcome && BigInt(r.outcome.fillAmount) > 0n) filled += 1;
                }
              }
            } else if ('cancel' in step) {
              const mine = placed.filter((p) => p.trader === step.cancel);
              const orderId = mine.length ? mine[step.pick % mine.length]!.orderId : `0x${'1'.repeat(64)}`;
              const res = await t.app.inject({
                method: 'DELETE',
                url: '/orders-v3',
                headers: traders[step.cancel]!.headers,
                payload: { orders: [{ orderId }] },
              });
              expect(res.statusCode, res.body).toBe(200);
            } else {
              const res = await t.app.inject({
                method: 'DELETE',
                url: '/orders-v3/all',
                headers: traders[step.cancelAll]!.headers,
              });
              expect(res.statusCode, res.body).toBe(200);
            }
            // Matching moves stakes from available to escrowed, never in or out of the exchange.
            const now = await balances();
            expect(now.reduce((sum, b) => sum + b.available + b.escrowed, 0n)).toBe(total);
          }
          const resolved = await t.app.inject({
            method: 'POST',
            url: `/admin/markets/${marketHash}/resolve`,
            headers: t.admin,
            payload: { outcome },
          });
          expect(resolved.statusCode, resolved.body).toBe(200);
          const after = await balances();
          expect(after.every((b) => b.escrowed === 0n)).toBe(true);
          expect(after.reduce((sum, b) => sum + b.available, 0n)).toBe(total);
        },
      ),
      { numRuns: 60 },
    );
    // The generated flows really match.
    expect(filled).toBeGreaterThan(0);
  }, 120_000);
});
