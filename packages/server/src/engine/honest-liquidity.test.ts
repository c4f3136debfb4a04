import { describe, expect, it } from 'vitest';
import { Engine } from './engine.js';
import type { EngineEvent } from './events.js';
import { Harness, only } from './test-support/harness.js';

const USDC = 1_000_000n;

const doneReasons = (events: readonly EngineEvent[]) =>
  events.flatMap((e) => (e.type === 'orderDone' ? [`${e.orderId} ${e.reason}`] : []));

describe('honest liquidity (issue 34): a maker never promises more than it holds', () => {
  it('refuses an unfunded account’s resting order at admission', () => {
    const h = Harness.standard({ B: 1_000n * USDC });
    const events = h.place({ id: 'o1', account: 'A', tick: 400, size: 100_000n * USDC });
    expect(only(events, 'rejected', 'accepted', 'rested')).toEqual(['rejected o1 INSUFFICIENT_BALANCE']);
    expect(h.engine.levels('M')?.outcomeOne).toEqual([]);
    expect(h.engine.exposure('A')).toBe(0n);
  });

  it('rests 60 + 40 of 100 but not a third order; taking 30 elsewhere pulls the newest', () => {
    const h = Harness.standard({ A: 100n * USDC, B: 1_000n * USDC });
    expect(only(h.place({ id: 'a60', account: 'A', tick: 400, size: 60n * USDC }), 'rested')).toHaveLength(1);
    expect(only(h.place({ id: 'a40', account: 'A', tick: 300, size: 40n * USDC }), 'rested')).toHaveLength(1);
    expect(h.engine.exposure('A')).toBe(100n * USDC);
    expect(only(h.place({ id: 'a1', account: 'A', tick: 200, size: 1n * USDC }), 'rejected')).toEqual([
      'rejected a1 INSUFFICIENT_BALANCE',
    ]);
    // B lays in another market; A takes 30 of it (IOC at 50 %: 30 against 30).
    h.place({ id: 'b', account: 'B', market: 'M2', one: false, tick: 400, size: 30n * USDC });
    const taken = h.place({
      id: 'take',
      account: 'A',
      market: 'M2',
      tick: 400,
      size: 30n * USDC,
      tif: 'IOC',
    });
    expect(doneReasons(taken)).toEqual(['b FILLED', 'take FILLED', 'a40 INSUFFICIENT_BALANCE']);
    expect(h.engine.balance('A')).toEqual({ available: 70n * USDC, escrowed: 30n * USDC });
    expect(h.engine.exposure('A')).toBe(60n * USDC);
    // The book shows only what A can pay: the 60 at tick 400, not the 40 at tick 300.
    expect(h.engine.levels('M')?.outcomeOne.map((l) => [l.tick, l.size])).toEqual([[400, 60n * USDC]]);
    h.engine.assertInvariants();
  });

  it('a GTC whose remainder would not fit fills what it can and cancels the rest', () => {
    const h = Harness.standard({ A: 50n * USDC, B: 1_000n * USDC });
    h.place({ id: 'a', account: 'A', tick: 400, size: 30n * USDC });
    // C... B offers 10 on the other side; A's GTC for 40 takes 10 and would rest 30 with 10 free: refused.
    h.place({ id: 'b', account: 'B', market: 'M2', one: false, tick: 400, size: 10n * USDC });
    const events = h.place({ id: 'g', account: 'A', market: 'M2', tick: 400, size: 40n * USDC });
    expect(only(events, 'match', 'done', 'rested')).toEqual([
      'match b<g @400 10000000+10000000',
      'done b FILLED filled=10000000 left=0',
      'done g INSUFFICIENT_BALANCE filled=10000000 left=30000000',
    ]);
    expect(h.engine.exposure('A')).toBe(30n * USDC);
    h.engine.assertInvariants();
  });

  it('a remainder that fits rests after its fills', () => {
    const h = Harness.standard({ A: 50n * USDC, B: 1_000n * USDC });
    h.place({ id: 'b', account: 'B', one: false, tick: 400, size: 10n * USDC });
    const events = h.place({ id: 'g', account: 'A', tick: 400, size: 40n * USDC });
    expect(only(events, 'rested')).toEqual(['rested g 30000000/40000000']);
    expect(h.engine.exposure('A')).toBe(30n * USDC);
    expect(h.engine.balance('A').available).toBe(40n * USDC);
  });

  it('a GTC that fills whole as a taker may spend what backs resting orders; the newest go', () => {
    const h = Harness.standard({ A: 100n * USDC, B: 1_000n * USDC });
    h.place({ id: 'old', account: 'A', tick: 100, size: 50n * USDC });
    h.place({ id: 'new', account: 'A', tick: 100, size: 50n * USDC });
    h.place({ id: 'b', account: 'B', market: 'M3', one: false, tick: 400, size: 20n * USDC });
    const events = h.place({ id: 'take', account: 'A', market: 'M3', tick: 400, size: 20n * USDC });
    expect(doneReasons(events)).toEqual(['b FILLED', 'take FILLED', 'new INSUFFICIENT_BALANCE']);
    expect(h.engine.openOrders('A').map((o) => o.orderId)).toEqual(['old']);
  });

  it('a maker’s own fills never pull its other orders', () => {
    const h = Harness.standard({ A: 100n * USDC, B: 1_000n * USDC });
    h.place({ id: 'a1', account: 'A', tick: 400, size: 50n * USDC });
    h.place({ id: 'a2', account: 'A', tick: 400, size: 50n * USDC });
    const events = h.place({ id: 'b', account: 'B', one: false, tick: 400, size: 30n * USDC, tif: 'IOC' });
    expect(doneReasons(events)).toEqual(['b FILLED']);
    expect(h.engine.balance('A')).toEqual({ available: 70n * USDC, escrowed: 30n * USDC });
    expect(h.engine.exposure('A')).toBe(70n * USDC);
    h.engine.assertInvariants();
  });

  it('a debit pulls the newest orders until the rest fit; a credit pulls nothing', () => {
    const h = Harness.standard({ A: 100n * USDC });
    h.place({ id: 'a1', account: 'A', tick: 100, size: 40n * USDC });
    h.place({ id: 'a2', account: 'A', tick: 200, size: 30n * USDC });
    h.place({ id: 'a3', account: 'A', tick: 300, size: 30n * USDC });
    expect(doneReasons(h.apply({ type: 'credit', account: 'A', amount: 1n }))).toEqual([]);
    const events = h.apply({ type: 'debit', account: 'A', amount: 35n * USDC });
    expect(doneReasons(events)).toEqual(['a3 INSUFFICIENT_BALANCE', 'a2 INSUFFICIENT_BALANCE']);
    expect(h.engine.exposure('A')).toBe(40n * USDC);
    h.engine.assertInvariants();
  });

  it('a hedge needs room for its whole stake to rest, refunds notwithstanding', () => {
    const h = Harness.standard({ A: 100n * USDC, B: 1_000n * USDC });
    h.place({ id: 'b', account: 'B', one: false, tick: 400, size: 100n * USDC });
    h.place({ id: 'a', account: 'A', tick: 400, size: 100n * USDC, tif: 'IOC' });
    // A holds 0 available and 100 escrowed: a resting order on the other side (a hedge) is refused.
    const events = h.place({ id: 'hedge', account: 'A', one: false, tick: 400, size: 100n * USDC });
    expect(only(events, 'rejected')).toEqual(['rejected hedge INSUFFICIENT_BALANCE']);
  });

  it('a journal begun before the rule: the first command with it pulls what is beyond each balance', () => {
    const h = new Harness(800, { honestLiquidityFromSeq: 6 });
    h.apply({ type: 'openMarket', marketHash: 'M', eventId: 'E' });
    h.apply({ type: 'credit', account: 'A', amount: 50n * USDC });
    h.place({ id: 'a1', account: 'A', tick: 100, size: 40n * USDC });
    h.place({ id: 'a2', account: 'A', tick: 200, size: 40n * USDC });
    h.place({ id: 'z', account: 'Z', tick: 300, size: 10n * USDC });
    expect(h.engine.exposure('A')).toBe(80n * USDC);
    const events = h.apply({ type: 'expire' });
    expect(doneReasons(events)).toEqual(['a2 INSUFFICIENT_BALANCE', 'z INSUFFICIENT_BALANCE']);
    h.engine.assertInvariants();
  });

  it('a restored engine knows each account’s exposure', () => {
    const h = Harness.standard({ A: 100n * USDC });
    h.place({ id: 'a1', account: 'A', tick: 100, size: 60n * USDC });
    for (const restored of [
      Engine.restore(h.engine.snapshot()),
      Engine.restoreBytes(h.engine.snapshotBytes()),
    ]) {
      expect(restored.exposure('A')).toBe(60n * USDC);
      const again = new Harness(restored);
      again.seq = h.seq;
      expect(only(again.place({ id: 'a2', account: 'A', tick: 100, size: 41n * USDC }), 'rejected')).toEqual([
        'rejected a2 INSUFFICIENT_BALANCE',
      ]);
      restored.assertInvariants();
    }
  });
});
