import { describe, expect, it } from 'vitest';
import { Harness } from '../engine/test-support/harness.js';
import { EXCHANGE_ENGINE, recoverEngine } from './recovery.js';

const USDC = 1_000_000n;

/** A backs outcome one for 100 at 50 % against B, then outcome two for 100 at 50 % against C. */
function hedge(h: Harness) {
  h.apply({ type: 'openMarket', marketHash: 'M', eventId: 'E' });
  for (const a of ['A', 'B', 'C']) h.apply({ type: 'credit', account: a, amount: 1_000n * USDC });
  h.place({ id: 'b1', account: 'B', one: false, tick: 400, size: 100n * USDC });
  h.place({ id: 'a1', account: 'A', tick: 400, size: 100n * USDC, tif: 'IOC' });
  h.place({ id: 'c1', account: 'C', tick: 400, size: 100n * USDC });
  return h.place({ id: 'a2', account: 'A', one: false, tick: 400, size: 100n * USDC, tif: 'IOC' });
}

describe('the engine the exchange runs', () => {
  it('has capital efficiency off until the chain link and the projections carry refunds (issue 25)', () => {
    const exchange = new Harness(800, EXCHANGE_ENGINE);
    expect(hedge(exchange).some((e) => e.type === 'ceRefund')).toBe(false);
    expect(exchange.engine.balance('A').escrowed).toBe(200n * USDC);
    // The engine alone refunds the hedge.
    const engine = new Harness(800);
    expect(hedge(engine).some((e) => e.type === 'ceRefund')).toBe(true);
    expect(engine.engine.balance('A').escrowed).toBe(0n);
  });

  it('is what a start builds, from an empty journal or a checkpoint', () => {
    const empty = { after: () => [][Symbol.iterator](), latestCheckpoint: () => null };
    const started = new Harness(recoverEngine(empty, 800).engine);
    expect(hedge(started).some((e) => e.type === 'ceRefund')).toBe(false);
  });
});
