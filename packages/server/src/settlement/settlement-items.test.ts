import { describe, expect, it } from 'vitest';
import type { Address } from '../chain/chain-types.js';
import { fillsOf } from '../engine/index.js';
import { Harness } from '../engine/test-support/harness.js';
import type { AppliedEntry, SequencerInput } from '../sequencer/inputs.js';
import { fillToReverse, settledFill, settlementItems } from './settlement-items.js';

const usd = (x: number) => BigInt(x) * 1_000_000n;
const walletOf = (account: string) => `0x${account.padStart(40, '0')}` as Address;

/** Applies an engine command and gives its journal entry. */
function entry(h: Harness, command: Extract<SequencerInput, { kind: 'engine' }>['command']): AppliedEntry {
  const events = h.apply(command as Parameters<Harness['apply']>[0]);
  return { seq: h.seq, ts: h.ts, input: { kind: 'engine', command }, events };
}

describe('settlement items of a journal entry', () => {
  it('a fill: both stakes escrowed, then each refund released (the hedge pays its next lots from them)', () => {
    const h = Harness.standard({ A: usd(110), B: usd(1_000), C: usd(1_000) });
    h.place({ id: 'b', account: 'B', one: false, tick: 400, size: usd(100) });
    h.place({ id: 'a1', account: 'A', tick: 400, size: usd(100), tif: 'IOC' });
    h.place({ id: 'c', account: 'C', tick: 400, size: usd(100) });
    const hedge = entry(
      h,
      h.placeCommand({ id: 'a2', account: 'A', one: false, tick: 400, size: usd(100), tif: 'IOC' }),
    );
    const items = settlementItems(hedge, walletOf);
    // A had 10 available: the walk filled 10, then 20, 40 and 30, each paid by the refund before it.
    expect(items.map((i) => i.moves.map((m) => `${m.kind} ${m.amount / 1_000_000n}`))).toEqual([
      ['escrow 10', 'escrow 10', 'release 20'],
      ['escrow 20', 'escrow 20', 'release 40'],
      ['escrow 40', 'escrow 40', 'release 80'],
      ['escrow 30', 'escrow 30', 'release 60'],
    ]);
    // A's wallet never goes below zero in this order: 10 -> 0 -> 20 -> 0 -> 40 -> 0 -> 80 -> 50 -> 110.
    let wallet = usd(10);
    for (const item of items) {
      for (const move of item.moves) {
        if (move.kind === 'escrow' && move.from === walletOf('A')) wallet -= move.amount;
        if (move.kind === 'release' && move.to === walletOf('A')) wallet += move.amount;
        expect(wallet >= 0n).toBe(true);
      }
    }
    expect(wallet).toBe(h.engine.balance('A').available);
    expect(items.every((i) => i.kind === 'fill' && i.id === `fill:${i.fill!.matchId}`)).toBe(true);
  });

  it('calldata that reverses as the engine made the fill', () => {
    const h = Harness.standard({ A: usd(100), B: usd(100) });
    h.place({ id: 'b', account: 'B', one: false, tick: 300, size: usd(30) });
    const e = entry(h, h.placeCommand({ id: 'a', account: 'A', tick: 500, size: usd(70), tif: 'IOC' }));
    const [fill] = fillsOf(e.events);
    expect(fillToReverse(JSON.parse(JSON.stringify(settledFill(fill!, e.seq))))).toEqual(fill);
  });

  it('a deposit mints; a payout releases; what an account owed is paid back into escrow after', () => {
    const h = Harness.standard({ A: usd(100), B: usd(100) });
    const credit = entry(h, { type: 'credit', account: 'A', amount: usd(5) });
    expect(settlementItems(credit, walletOf)).toEqual([
      {
        id: `deposit:${credit.seq}`,
        kind: 'deposit',
        moves: [{ kind: 'mint', to: walletOf('A'), amount: usd(5) }],
      },
    ]);
    h.place({ id: 'b', account: 'B', one: false, tick: 400, size: usd(50) });
    h.place({ id: 'a', account: 'A', tick: 400, size: usd(50), tif: 'IOC' });
    const resolved = entry(h, { type: 'resolveMarket', marketHash: 'M', outcome: 1 });
    expect(settlementItems(resolved, walletOf)).toEqual([
      { id: 'payout:M:A', kind: 'payout', moves: [{ kind: 'release', to: walletOf('A'), amount: usd(100) }] },
    ]);
  });

  it('a reversal moves each party’s wallet delta; entries without money moves have none', () => {
    const h = Harness.standard({ A: usd(1_000), B: usd(1_000), C: usd(1_000) });
    h.place({ id: 'b', account: 'B', one: false, tick: 400, size: usd(100) });
    const [f1] = fillsOf(h.place({ id: 'a1', account: 'A', tick: 400, size: usd(100), tif: 'IOC' }));
    h.place({ id: 'c', account: 'C', tick: 400, size: usd(100) });
    h.place({ id: 'a2', account: 'A', one: false, tick: 400, size: usd(100), tif: 'IOC' });
    const reversal = entry(h, { type: 'reverseFill', fill: f1! });
    expect(settlementItems(reversal, walletOf)).toEqual([
      {
        id: `adjust:${reversal.seq}:A`,
        kind: 'adjustment',
        moves: [{ kind: 'escrow', from: walletOf('A'), amount: usd(200) }],
      },
    ]);
    const rest = entry(h, h.placeCommand({ id: 'r', account: 'B', tick: 100, size: usd(1) }));
    expect(settlementItems(rest, walletOf)).toEqual([]);
  });

  it('a credit to an account that owes: the mint first, then what it pays back', () => {
    const h = Harness.standard({ A: usd(1_000), B: usd(1_000), C: usd(1_000), D: usd(1_000) });
    h.place({ id: 'b', account: 'B', one: false, tick: 400, size: usd(100) });
    const [f1] = fillsOf(h.place({ id: 'a1', account: 'A', tick: 400, size: usd(100), tif: 'IOC' }));
    h.place({ id: 'c', account: 'C', tick: 400, size: usd(100) });
    h.place({ id: 'a2', account: 'A', one: false, tick: 400, size: usd(100), tif: 'IOC' });
    h.place({ id: 'd', account: 'D', market: 'M2', one: false, tick: 400, size: usd(1_000) });
    h.place({ id: 'a3', account: 'A', market: 'M2', tick: 400, size: usd(1_000), tif: 'IOC' });
    h.apply({ type: 'reverseFill', fill: f1! });
    const credit = entry(h, { type: 'credit', account: 'A', amount: usd(30) });
    expect(
      settlementItems(credit, walletOf).map((i) => [i.id, i.moves[0]!.kind, i.moves[0]!.amount]),
    ).toEqual([
      [`deposit:${credit.seq}`, 'mint', usd(30)],
      [`repay:${credit.seq}:A`, 'escrow', usd(30)],
    ]);
  });
});
