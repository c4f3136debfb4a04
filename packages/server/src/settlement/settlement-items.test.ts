import { describe, expect, it } from 'vitest';
import type { Address } from '../chain/chain-types.js';
import { type FillToReverse, fillsOf } from '../engine/index.js';
import { Harness } from '../engine/test-support/harness.js';
import type { AppliedEntry, NotLandedItem, SequencerInput } from '../sequencer/inputs.js';
import { fillToReverse, SettlementItemStream, settledFill, settlementItems } from './settlement-items.js';

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

/** The `settlement` input of a receipt in which these fills failed (journaled at the harness's next seq). */
function receiptOf(
  h: Harness,
  failed: readonly FillToReverse[],
  others: readonly NotLandedItem[] = [],
): AppliedEntry {
  h.seq += 1;
  const fills = failed.map((fill) => ({
    id: `fill:${fill.matchId}`,
    kind: 'fill' as const,
    moves: [],
    fill: settledFill(fill, 0),
    status: 'failed' as const,
    error: 'INJECTED_FAULT',
  }));
  const notLanded = [...fills, ...others];
  return {
    seq: h.seq,
    ts: h.ts,
    input: { kind: 'settlement', block: 1, txs: [{ firstSeq: 1, lastSeq: 0, notLanded, landed: [] }] },
    events: [],
  };
}

describe('settlement items of the reversals of one receipt', () => {
  /** A hedges its back of 100 against B (f1) by laying 100 against C (f2), paid by f2's refund. */
  function hedge() {
    const h = Harness.standard({ A: usd(1_000), B: usd(1_000), C: usd(1_000) });
    h.place({ id: 'b', account: 'B', one: false, tick: 400, size: usd(100) });
    const [f1] = fillsOf(h.place({ id: 'a1', account: 'A', tick: 400, size: usd(100), tif: 'IOC' }));
    h.place({ id: 'c', account: 'C', tick: 400, size: usd(100) });
    const [f2] = fillsOf(
      h.place({ id: 'a2', account: 'A', one: false, tick: 400, size: usd(100), tif: 'IOC' }),
    );
    return { h, f1: f1!, f2: f2! };
  }

  it('go as one net item per account, escrows first, once the last of them is seen', () => {
    const { h, f1, f2 } = hedge();
    const stream = new SettlementItemStream(walletOf);
    const receipt = receiptOf(h, [f1, f2]);
    expect(stream.push(receipt)).toEqual([]);
    expect(stream.openSince()).toBe(receipt.seq);
    // Alone, f1's reversal takes f2's refund (200) back from A's wallet, which never got it: f2 failed too.
    const first = entry(h, { type: 'reverseFill', fill: f1 });
    expect(settlementItems(first, walletOf).map((i) => [i.id, i.moves[0]!.kind])).toEqual([
      [`adjust:${first.seq}:A`, 'escrow'],
    ]);
    expect(stream.push(first)).toEqual([]);
    const second = entry(h, { type: 'reverseFill', fill: f2 });
    // Together they move nothing: neither fill moved anything on the chain.
    expect(stream.push(second)).toEqual([]);
    expect(stream.openSince()).toBeNull();
    expect(h.engine.balance('A')).toEqual({ available: usd(1_000), escrowed: 0n });
  });

  it('takes in the adjustments of the receipt that did not land: they may need what the failed fill would have paid', () => {
    const { h, f2 } = hedge();
    const stream = new SettlementItemStream(walletOf);
    // A journal read back has the amounts of a receipt's items as decimal strings.
    const repay = {
      id: 'repay:9:A',
      kind: 'adjustment' as const,
      moves: [{ kind: 'escrow' as const, from: walletOf('A'), amount: '50' as unknown as bigint }],
      status: 'failed' as const,
      error: 'INSUFFICIENT_BALANCE',
    };
    const receipt = receiptOf(h, [f2], [repay]);
    stream.push(receipt);
    // f2's own reversal moves nothing (A is where it was before the hedge): the repayment alone is left.
    expect(stream.push(entry(h, { type: 'reverseFill', fill: f2 }))).toEqual([
      {
        id: `reversals:${receipt.seq}:${walletOf('A')}`,
        kind: 'adjustment',
        moves: [{ kind: 'escrow', from: walletOf('A'), amount: 50n }],
      },
    ]);
    // A payout goes in too; its wallet's item pays it, so there is one even when it nets to nothing.
    const payout = {
      id: 'payout:M3:A',
      kind: 'payout' as const,
      moves: [{ kind: 'release' as const, to: walletOf('A'), amount: '200' as unknown as bigint }],
      status: 'failed' as const,
      error: 'INSUFFICIENT_ESCROW',
    };
    const takeBack = {
      ...repay,
      id: 'repay:10:A',
      moves: [{ ...repay.moves[0]!, amount: '200' as unknown as bigint }],
    };
    const second = receiptOf(h, [f2], [payout, takeBack]);
    stream.push(second);
    expect(stream.push(entry(h, { type: 'reverseFill', fill: f2 }))).toEqual([
      { id: `reversals:${second.seq}:${walletOf('A')}`, kind: 'adjustment', moves: [] },
    ]);
    // Without a failed fill, the receipt starts no run: its adjustments are submitted again as they are.
    expect(stream.push(receiptOf(h, [], [repay]))).toEqual([]);
    expect(stream.openSince()).toBeNull();
  });

  it('a run ended early (a start, or any other entry) nets what it has; other entries keep their own ids', () => {
    const { h, f1, f2 } = hedge();
    const stream = new SettlementItemStream(walletOf);
    stream.push(receiptOf(h, [f1, f2]));
    stream.push(entry(h, { type: 'reverseFill', fill: f1 }));
    const credit = entry(h, { type: 'credit', account: 'B', amount: usd(5) });
    const receipt = h.seq - 2;
    expect(stream.push(credit).map((i) => [i.id, i.moves[0]!.kind, i.moves[0]!.amount])).toEqual([
      [`reversals:${receipt}:${walletOf('A')}`, 'escrow', usd(200)],
      [`deposit:${credit.seq}`, 'mint', usd(5)],
    ]);
    // f2's reversal in a receipt of its own gives the 200 back.
    const late = receiptOf(h, [f2]);
    stream.push(late);
    const items = stream.push(entry(h, { type: 'reverseFill', fill: f2 }));
    expect(items.map((i) => [i.id, i.moves[0]!.kind, i.moves[0]!.amount])).toEqual([
      [`reversals:${late.seq}:${walletOf('A')}`, 'release', usd(200)],
    ]);
    expect(stream.openSince()).toBeNull();
    stream.push(receiptOf(h, [f1]));
    expect(stream.close()).toEqual([]);
    expect(stream.openSince()).toBeNull();
  });
});
