import { describe, expect, it } from 'vitest';
import { differenceUnits } from './reconcile.js';
import { DriverRig } from './test-support.js';

const usd = (x: number) => BigInt(x) * 1_000_000n;

/** The chain holds what the engine says, wallet by wallet and in the pool, and reconciliation agrees. */
async function expectExact(rig: DriverRig, accounts: readonly string[]): Promise<void> {
  const { engine, chain } = await rig.books(accounts);
  expect(chain).toEqual(engine);
  const report = await rig.reconcile();
  expect(report.differences).toEqual([]);
  expect(differenceUnits(report)).toBe(0n);
  expect(rig.errors).toEqual([]);
}

describe('settlement driver: debts', () => {
  it('a reversal that takes back a refund already spent leaves a debt, repaid from the next credit', async () => {
    const rig = await DriverRig.start();
    for (const a of ['A', 'B', 'C', 'D']) rig.credit(a, usd(1_000));
    // A backs one outcome against B (f1), hedges it against C (f2: its refund), and spends everything on M2.
    rig.place({ id: 'b', account: 'B', one: false, tick: 400, size: usd(100) });
    rig.place({ id: 'a1', account: 'A', tick: 400, size: usd(100), tif: 'IOC' });
    rig.place({ id: 'c', account: 'C', tick: 400, size: usd(100) });
    rig.place({ id: 'a2', account: 'A', one: false, tick: 400, size: usd(100), tif: 'IOC' });
    rig.place({ id: 'd', account: 'D', market: 'M2', one: false, tick: 400, size: usd(1_000) });
    rig.place({ id: 'a3', account: 'A', market: 'M2', tick: 400, size: usd(1_000), tif: 'IOC' });
    // f1's escrow fails: its reversal takes back f2's refund, which A spent on M2.
    await rig.chain.failNextSettlementItems('escrow', 1);
    expect(await rig.settle()).toBe(true);
    expect(rig.h.engine.owed('A')).toBe(usd(100));
    const owedRow = () => rig.db.prepare("SELECT owed FROM balances WHERE account = 'A'").pluck().get();
    expect(owedRow()).toBe(usd(100).toString());
    await expectExact(rig, ['A', 'B', 'C', 'D']);

    rig.credit('A', usd(150));
    expect(await rig.settle()).toBe(true);
    expect(rig.h.engine.owed('A')).toBe(0n);
    expect(rig.h.engine.balance('A').available).toBe(usd(50));
    expect(owedRow()).toBe('0');
    await expectExact(rig, ['A', 'B', 'C', 'D']);
    // A start reads the debts back from the projections.
    await rig.restartDriver();
    await expectExact(rig, ['A', 'B', 'C', 'D']);
  });
});
