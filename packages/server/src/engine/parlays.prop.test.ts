import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EngineEvent, OrderMatchedEvent } from './events.js';
import { Harness } from './test-support/harness.js';

/**
 * Random parlays (issue 39): 2 to 10 legs with random picks, makers' offers at random odds and sizes, the
 * requester's takes partly filling them, the legs resolved in a random order with random results. After
 * each command the engine's invariants hold and no money is made or lost; at the end each account's balance
 * is what an independent ledger of the fills and the rule says, the fee account's the fees it computes.
 */
const START = 10n ** 12n;
const T0 = 1_000_000;
const BPS = 500n;

type Run = {
  picks: boolean[];
  offers: { maker: number; tick: number; size: bigint }[];
  takes: { tick: number; size: bigint }[];
  results: (0 | 1 | 2)[];
  order: number[];
};

const run: fc.Arbitrary<Run> = fc.integer({ min: 2, max: 10 }).chain((n) =>
  fc
    .record({
      picks: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
      offers: fc.array(
        fc.record({
          maker: fc.integer({ min: 0, max: 2 }),
          tick: fc.integer({ min: 400, max: 790 }),
          size: fc.bigInt({ min: 800n, max: 50_000_000n }),
        }),
        { minLength: 1, maxLength: 5 },
      ),
      takes: fc.array(
        fc.record({
          tick: fc.integer({ min: 10, max: 400 }),
          size: fc.bigInt({ min: 800n, max: 30_000_000n }),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      // Each leg graded for the bettor's pick, mostly won: uniform results would make "every leg won" rare.
      grades: fc.array(
        fc.oneof(
          { arbitrary: fc.constant('won' as const), weight: 8 },
          { arbitrary: fc.constant('lost' as const), weight: 1 },
          { arbitrary: fc.constant('void' as const), weight: 1 },
        ),
        { minLength: n, maxLength: n },
      ),
      order: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
    })
    .map(({ grades, ...r }) => ({
      ...r,
      results: grades.map((grade, i): 0 | 1 | 2 =>
        grade === 'void' ? 0 : (grade === 'won') === r.picks[i] ? 1 : 2,
      ),
    })),
);

/** The outcome the rule gives once the legs in `known` are resolved (null: not decided yet), independently. */
function expectedOutcome(r: Run, known: readonly number[]): 0 | 1 | 2 | null {
  let lost = false;
  let voided = false;
  for (const i of known) {
    const result = r.results[i]!;
    if (result === 0) voided = true;
    else if ((result === 1) !== r.picks[i]) lost = true;
  }
  if (lost) return 2;
  if (known.length < r.picks.length) return null;
  return voided ? 0 : 1;
}

describe('random parlays (property)', () => {
  it('conserve money exactly and pay each account what an independent ledger says', () => {
    // What the runs covered, so that the property cannot pass on runs that never fill or settle.
    const seen = { filled: 0, early: 0, outcomes: [0, 0, 0], fees: 0 };
    fc.assert(
      fc.property(run, (r) => {
        const h = new Harness();
        const accounts = ['R', 'M0', 'M1', 'M2'];
        r.picks.forEach((_, i) => {
          h.apply({ type: 'openMarket', marketHash: `L${i}`, eventId: `E${i}` });
        });
        for (const a of accounts) h.apply({ type: 'credit', account: a, amount: START });
        h.apply({
          type: 'openMarket',
          marketHash: 'P',
          eventId: 'parlay',
          ts: T0,
          parlay: {
            requester: 'R',
            requestedAt: T0,
            baseToken: 'T',
            requestSize: null,
            quoteWindowEndsAt: T0 + 3_000,
            takeUntil: T0 + 63_000,
            feeBps: Number(BPS),
            feeAccount: 'FEE',
            legs: r.picks.map((bettingOutcomeOne, i) => ({ marketHash: `L${i}`, bettingOutcomeOne })),
          },
        });
        // The independent ledger: per account, stake and pot of its side.
        const stake = new Map<string, bigint>();
        const pot = new Map<string, bigint>();
        const add = (m: Map<string, bigint>, a: string, x: bigint) => m.set(a, (m.get(a) ?? 0n) + x);
        const follow = (events: readonly EngineEvent[]) => {
          for (const e of events) {
            if (e.type !== 'orderMatched' || e.marketHash !== 'P') continue;
            const f = e as OrderMatchedEvent;
            const both = f.makerStake + f.takerStake;
            add(stake, f.makerAccount, f.makerStake);
            add(pot, f.makerAccount, both);
            add(stake, f.takerAccount, f.takerStake);
            add(pot, f.takerAccount, both);
          }
          h.engine.assertInvariants();
        };
        r.offers.forEach((o, i) => {
          follow(
            h.place({
              id: `o${i}`,
              account: `M${o.maker}`,
              market: 'P',
              one: false,
              tick: o.tick,
              size: o.size,
            }),
          );
        });
        h.apply({ type: 'expire', ts: T0 + 3_000 });
        r.takes.forEach((take, i) => {
          follow(
            h.place({ id: `t${i}`, account: 'R', market: 'P', tick: take.tick, size: take.size, tif: 'IOC' }),
          );
        });
        follow(h.apply({ type: 'closeMarket', marketHash: 'P', ts: T0 + 63_000 }));

        const known: number[] = [];
        let settledAt = -1;
        for (const [step, i] of r.order.entries()) {
          known.push(i);
          const events = h.apply({ type: 'resolveMarket', marketHash: `L${i}`, outcome: r.results[i]! });
          follow(events);
          const resolved = events.find((e) => e.type === 'marketResolved' && e.marketHash === 'P');
          const expected = expectedOutcome(r, known);
          if (settledAt < 0) {
            // Settled exactly when the rule decides it, with the rule's outcome.
            expect(resolved === undefined).toBe(expected === null);
            if (resolved) {
              expect(resolved).toMatchObject({ outcome: expected });
              settledAt = step;
            }
          } else expect(resolved).toBeUndefined();
        }
        const outcome = expectedOutcome(r, known)!;
        if (stake.size > 0) seen.filled += 1;
        if (settledAt < r.order.length - 1) seen.early += 1;
        seen.outcomes[outcome] = (seen.outcomes[outcome] ?? 0) + 1;
        let fees = 0n;
        for (const a of accounts) {
          const s = stake.get(a) ?? 0n;
          const won = outcome === 0 ? s : (a === 'R') === (outcome === 1) ? (pot.get(a) ?? 0n) : 0n;
          const profit = won - s;
          const fee = outcome !== 0 && profit > 0n ? (profit * BPS) / 10_000n : 0n;
          fees += fee;
          expect(h.engine.balance(a)).toEqual({ available: START - s + won - fee, escrowed: 0n });
        }
        expect(h.engine.balance('FEE')).toEqual({ available: fees, escrowed: 0n });
        if (fees > 0n) seen.fees += 1;
        const total = [...accounts, 'FEE'].reduce((sum, a) => sum + h.engine.balance(a).available, 0n);
        expect(total).toBe(START * BigInt(accounts.length));
      }),
      { numRuns: 300 },
    );
    console.log(
      `parlay property: 300 runs, ${seen.filled} with fills, ${seen.fees} charging a fee, ${seen.early} settled before their last leg; outcomes void/one/two ${seen.outcomes.join('/')}`,
    );
    expect(seen.filled).toBeGreaterThan(30);
    expect(seen.fees).toBeGreaterThan(10);
    expect(seen.early).toBeGreaterThan(10);
    for (const count of seen.outcomes) expect(count).toBeGreaterThan(5);
  });
});
