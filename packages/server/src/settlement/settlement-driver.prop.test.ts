import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SettlementFaultClass } from '../chain/settlement-types.js';
import { differenceUnits } from './reconcile.js';
import { DriverRig } from './test-support.js';

const usd = (x: number) => BigInt(x) * 1_000_000n;
/** Low-funded bettors; E makes deep books on M2 and M3, and F's bet against it keeps the escrow pool deep. */
const BETTORS = ['A', 'B', 'C', 'D'];
const ALL = [...BETTORS, 'E', 'F'];

const step = fc.record({
  op: fc.constantFrom(
    ...(['bet', 'bet', 'bet', 'bet', 'hedge', 'hedge', 'cross', 'spend', 'debt', 'credit'] as const),
    ...(['fault', 'fault', 'block', 'block', 'block', 'resolve'] as const),
    ...(['restart', 'crash', 'chain', 'drop', 'refuse'] as const),
  ),
  account: fc.integer({ min: 0, max: BETTORS.length - 1 }),
  market: fc.constantFrom('M', 'M2'),
  one: fc.boolean(),
  tick: fc.constantFrom(380, 400, 420),
  size: fc.integer({ min: 1, max: 120 }),
  ioc: fc.boolean(),
  fault: fc.constantFrom<SettlementFaultClass>('escrow', 'escrow', 'escrow', 'release', 'payout', 'deposit'),
  count: fc.integer({ min: 1, max: 3 }),
});

// A hundred sequences of tens of blocks: seconds alone, longer on a busy machine.
const TIMEOUT_MS = 300_000;

describe('settlement driver against a real chain (property)', () => {
  it(
    'random low-funded trading with faults, crashes and restarts settles, and the chain ends equal to the engine',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: 0, max: 150 }), { minLength: 4, maxLength: 4 }),
          fc.array(step, { minLength: 5, maxLength: 60 }),
          async (funds, steps) => {
            const rig = await DriverRig.start();
            for (const [i, a] of BETTORS.entries()) if (funds[i]! > 0) rig.credit(a, usd(funds[i]!));
            rig.credit('E', usd(10_000_000));
            rig.credit('F', usd(1_000_000));
            for (const market of ['M2', 'M3'])
              for (const one of [true, false])
                rig.place({
                  id: `e-${market}-${one}`,
                  account: 'E',
                  market,
                  one,
                  tick: 400,
                  size: usd(400_000),
                });
            rig.place({ id: 'f', account: 'F', market: 'M3', tick: 400, size: usd(100_000), tif: 'IOC' });
            expect(await rig.settle()).toBe(true);

            let n = 0;
            const open = (market: string) => rig.h.engine.market(market)?.status === 'open';
            const bet = (account: string, market: string, one: boolean, size: bigint, tick = 400) =>
              rig.place({ id: `o${n++}`, account, market, one, tick, size, tif: 'IOC' });
            for (const s of steps) {
              const account = BETTORS[s.account]!;
              switch (s.op) {
                case 'bet':
                  if (open(s.market))
                    rig.place({
                      id: `o${n++}`,
                      account,
                      market: s.market,
                      one: s.one,
                      tick: s.tick,
                      size: usd(s.size),
                      tif: s.ioc ? 'IOC' : 'GTC',
                    });
                  break;
                case 'hedge':
                  // Both sides of M2 against E: the second paid by the first's refunds.
                  if (open('M2')) {
                    bet(account, 'M2', s.one, usd(s.size));
                    bet(account, 'M2', !s.one, usd(s.size));
                  }
                  break;
                case 'cross': {
                  // Two bettors against each other on M, then each hedges against the other: both get refunds
                  // out of the same fill.
                  if (!open('M')) break;
                  const other = BETTORS[(s.account + 1) % BETTORS.length]!;
                  const size = usd(s.size);
                  rig.place({ id: `o${n++}`, account, market: 'M', one: s.one, tick: 400, size });
                  bet(other, 'M', !s.one, size);
                  rig.place({ id: `o${n++}`, account: other, market: 'M', one: s.one, tick: 400, size });
                  bet(account, 'M', !s.one, size);
                  break;
                }
                case 'spend': {
                  const all = rig.h.engine.balance(account).available;
                  if (all > 0n) bet(account, 'M3', s.one, all);
                  break;
                }
                case 'debt': {
                  // A hedge whose first leg's escrow fails, its refunds spent before the reversal.
                  if (!open('M2')) break;
                  // Receipts refused before are handed on with the next batch (this credit).
                  rig.refuseSubmissions = 0;
                  rig.credit(account, 1n);
                  expect(await rig.settle(40)).toBe(true);
                  await rig.chain.failNextSettlementItems('escrow', 1);
                  bet(account, 'M2', s.one, usd(s.size));
                  bet(account, 'M2', !s.one, usd(s.size));
                  const all = rig.h.engine.balance(account).available;
                  if (all > 0n) bet(account, 'M3', s.one, all);
                  break;
                }
                case 'credit':
                  rig.credit(account, usd(s.size));
                  break;
                case 'fault':
                  await rig.chain.failNextSettlementItems(s.fault, s.count);
                  break;
                case 'block':
                  await rig.block();
                  break;
                case 'resolve': {
                  // As Trading.resolveMarket: closed, then resolved once the chain settled every fill before.
                  if (!open(s.market)) break;
                  rig.refuseSubmissions = 0;
                  rig.run({ type: 'closeMarket', marketHash: s.market });
                  const closed = rig.h.seq;
                  await rig.turns();
                  for (let i = 0; i < 40 && !rig.driver.isSettled(closed); i++) await rig.block();
                  expect(rig.driver.isSettled(closed)).toBe(true);
                  rig.run({ type: 'resolveMarket', marketHash: s.market, outcome: s.one ? 1 : 2 });
                  break;
                }
                case 'restart':
                  await rig.restartDriver();
                  break;
                case 'crash':
                  await rig.crashAfterBlock({ chain: s.one });
                  break;
                case 'chain':
                  await rig.restartDriver({ chain: true });
                  break;
                case 'drop':
                  await rig.chain.dropNextBlockAnnouncement();
                  break;
                case 'refuse':
                  rig.refuseSubmissions = s.count;
                  break;
              }
            }
            // Whatever is armed, the sequencer takes the receipts from now on; a last batch hands any refused on.
            rig.refuseSubmissions = 0;
            rig.errors.length = 0;
            rig.credit('A', 1n);
            expect(await rig.settle(60)).toBe(true);

            const report = await rig.reconcile();
            expect(report.differences).toEqual([]);
            expect(differenceUnits(report)).toBe(0n);
            expect(report.totals.chain).toBe(report.totals.engine);
            const { engine, chain } = await rig.books(ALL);
            expect(chain).toEqual(engine);
            let money = 0n;
            for (const a of ALL) {
              const b = rig.h.engine.balance(a);
              money += b.available + b.escrowed - rig.h.engine.owed(a);
            }
            expect(money).toBe(rig.h.engine.netDeposits);
            expect(rig.errors).toEqual([]);
          },
        ),
        { numRuns: 100, seed: 33, endOnFailure: true },
      );
    },
    TIMEOUT_MS,
  );
});
