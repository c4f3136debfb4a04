import { describe, expect, it } from 'vitest';
import type { MarketOutcome, ParlaySpec } from './commands.js';
import { Engine } from './engine.js';
import type { EngineEvent, PayoutEvent } from './events.js';
import { type LegResult, parlayFee, parlayOutcome, quarterLineResult } from './parlay-rule.js';
import { Harness } from './test-support/harness.js';

const usd = (x: number) => BigInt(x) * 1_000_000n;
const START = usd(1_000);
const T0 = 1_000_000;
const FEE = 'FEE';

/** Legs L1..L3 on events E1..E3 (plus a quarter line Q on E4 with halves W, H); R requests, M1/M2 make. */
function parlayHarness(legs = ['L1', 'L2', 'L3'], picks = [true, false, true], feeBps = 500) {
  const h = new Harness();
  ['L1', 'L2', 'L3'].forEach((m, i) => {
    h.apply({ type: 'openMarket', marketHash: m, eventId: `E${i + 1}` });
  });
  h.apply({ type: 'openMarket', marketHash: 'W', eventId: 'E4' });
  h.apply({ type: 'openMarket', marketHash: 'H', eventId: 'E4' });
  h.apply({ type: 'openMarket', marketHash: 'Q', eventId: 'E4', legs: ['W', 'H'] });
  for (const a of ['R', 'M1', 'M2', 'X']) h.apply({ type: 'credit', account: a, amount: START });
  const spec: ParlaySpec = {
    requester: 'R',
    requestedAt: T0,
    baseToken: 'T',
    requestSize: null,
    quoteWindowEndsAt: T0 + 3_000,
    takeUntil: T0 + 60_000,
    feeBps,
    feeAccount: FEE,
    legs: legs.map((marketHash, i) => ({ marketHash, bettingOutcomeOne: picks[i]! })),
  };
  const opened = h.apply({ type: 'openMarket', marketHash: 'P', eventId: 'parlay-P', parlay: spec, ts: T0 });
  return { h, spec, opened };
}

const payouts = (events: readonly EngineEvent[]) =>
  events.filter((e): e is PayoutEvent => e.type === 'payout' && e.marketHash === 'P');

/** R backs the parlay for 10 at 20 % (maker M1 lays 40 at 80 %): pot 50. */
function matched(h: Harness) {
  h.place({ id: 'o1', account: 'M1', market: 'P', one: false, tick: 640, size: usd(40) });
  h.apply({ type: 'expire', ts: T0 + 4_000 });
  const events = h.place({ id: 't1', account: 'R', market: 'P', tick: 160, size: usd(10), tif: 'IOC' });
  expect(events.some((e) => e.type === 'orderMatched')).toBe(true);
}

describe('the parlay rule', () => {
  it('grades a parlay from its legs: a loss decides at once, all wins win, a void without loss voids', () => {
    const cases: [(LegResult | null)[], MarketOutcome | null][] = [
      [['won', 'won'], 1],
      [['won', 'lost'], 2],
      [['lost', null], 2],
      [[null, 'won'], null],
      [['void', 'won'], 0],
      [['void', 'void'], 0],
      [['void', null], null],
      [['void', 'lost'], 2],
    ];
    for (const [legs, outcome] of cases) expect(parlayOutcome(legs)).toBe(outcome);
  });

  it('grades a quarter-line leg from its halves', () => {
    expect(quarterLineResult(['won', 'won'])).toBe('won');
    expect(quarterLineResult(['void', 'won'])).toBe('void');
    expect(quarterLineResult(['void', 'lost'])).toBe('lost');
    expect(quarterLineResult([null, 'lost'])).toBe('lost');
    expect(quarterLineResult(['won', null])).toBeNull();
  });

  it('takes the fee on profit only, rounded down', () => {
    expect(parlayFee(usd(40), 500)).toBe(usd(2));
    expect(parlayFee(19n, 500)).toBe(0n);
    expect(parlayFee(21n, 500)).toBe(1n);
    expect(parlayFee(-5n, 500)).toBe(0n);
    expect(parlayFee(usd(40), 0)).toBe(0n);
  });
});

describe('parlay markets in the engine (issue 39)', () => {
  it('open only on 2 to 10 open ordinary markets of different events', () => {
    const { h, opened } = parlayHarness();
    expect(opened.map((e) => e.type)).toEqual(['marketOpened']);
    const open = (legs: string[]) =>
      h.apply({
        type: 'openMarket',
        marketHash: `P-${legs.join('-')}`,
        eventId: 'parlay-x',
        parlay: {
          requester: 'R',
          requestedAt: T0,
          baseToken: 'T',
          requestSize: null,
          quoteWindowEndsAt: T0,
          takeUntil: T0,
          feeBps: 0,
          feeAccount: FEE,
          legs: legs.map((marketHash) => ({ marketHash, bettingOutcomeOne: true })),
        },
      });
    h.apply({ type: 'closeMarket', marketHash: 'L3' });
    for (const legs of [['L1'], ['L1', 'NOPE'], ['L1', 'L1'], ['L1', 'L3'], ['L1', 'P'], ['W', 'Q']])
      expect(open(legs)).toEqual([
        { type: 'commandRejected', command: 'openMarket', code: 'INVALID_PARLAY' },
      ]);
    expect(open(['L1', 'Q']).map((e) => e.type)).toEqual(['marketOpened']);
  });

  it('take offers from anyone but the requester within the quote window; only the requester bets it', () => {
    const { h } = parlayHarness();
    const reject = (events: readonly EngineEvent[]) => events.find((e) => e.type === 'orderRejected');
    expect(reject(h.place({ id: 'x1', account: 'X', market: 'P', tick: 160, size: usd(10) }))).toMatchObject({
      code: 'PARLAY_REQUESTER_ONLY',
    });
    expect(
      reject(h.place({ id: 'm1', account: 'M1', market: 'P', one: false, tick: 640, size: usd(40) })),
    ).toBe(undefined);
    h.apply({ type: 'expire', ts: T0 + 3_000 });
    expect(
      reject(h.place({ id: 'm2', account: 'M2', market: 'P', one: false, tick: 700, size: usd(40) })),
    ).toMatchObject({ code: 'PARLAY_QUOTE_WINDOW_CLOSED' });
    expect(
      reject(h.place({ id: 't1', account: 'R', market: 'P', tick: 160, size: usd(10), tif: 'IOC' })),
    ).toBe(undefined);
    expect(h.engine.position('P', 'R')).toMatchObject({
      stakeOnOutcomeOne: usd(10),
      payoutIfOutcomeOne: usd(50),
    });
  });

  it('refuse the requester until the quote window closes (PARLAY_QUOTE_WINDOW_OPEN), then let it take', () => {
    const { h } = parlayHarness();
    h.place({ id: 'm1', account: 'M1', market: 'P', one: false, tick: 640, size: usd(40) });
    const reject = (events: readonly EngineEvent[]) => events.find((e) => e.type === 'orderRejected');
    h.apply({ type: 'expire', ts: T0 + 2_999 });
    for (const [id, one] of [
      ['early-back', true],
      ['early-lay', false],
    ] as const)
      expect(
        reject(h.place({ id, account: 'R', market: 'P', one, tick: 160, size: usd(10), tif: 'IOC' })),
      ).toMatchObject({ code: 'PARLAY_QUOTE_WINDOW_OPEN', account: 'R', marketHash: 'P' });
    expect(h.engine.position('P', 'R')).toBeUndefined();
    h.apply({ type: 'expire', ts: T0 + 3_000 });
    const taken = h.place({ id: 't1', account: 'R', market: 'P', tick: 160, size: usd(10), tif: 'IOC' });
    expect(reject(taken)).toBe(undefined);
    expect(taken.some((e) => e.type === 'orderMatched')).toBe(true);
  });

  it('close at takeUntil, cancelling resting offers (EVENT_LIFECYCLE), and refuse orders after it', () => {
    const { h } = parlayHarness();
    h.place({ id: 'm1', account: 'M1', market: 'P', one: false, tick: 640, size: usd(40) });
    expect(h.engine.dueParlayCloses(T0 + 59_999)).toEqual([]);
    expect(h.engine.dueParlayCloses(T0 + 60_000)).toEqual(['P']);
    const events = h.apply({ type: 'closeMarket', marketHash: 'P', ts: T0 + 60_000 });
    expect(events).toContainEqual(expect.objectContaining({ type: 'marketClosed', marketHash: 'P' }));
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'orderDone', orderId: 'm1', reason: 'EVENT_LIFECYCLE' }),
    );
    expect(h.engine.dueParlayCloses(T0 + 70_000)).toEqual([]);
    expect(h.engine.market('P')?.status).toBe('closed');
  });

  it('cannot be resolved itself', () => {
    const { h } = parlayHarness();
    expect(h.apply({ type: 'resolveMarket', marketHash: 'P', outcome: 1 })).toEqual([
      { type: 'commandRejected', command: 'resolveMarket', code: 'PARLAY_MARKET' },
    ]);
  });

  it('settles on the first lost leg, in the command that resolves it, before the other legs', () => {
    const { h } = parlayHarness();
    matched(h);
    // The bettor needs L2's outcome two: outcome one loses it.
    const events = h.apply({ type: 'resolveMarket', marketHash: 'L2', outcome: 1 });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'marketResolved', marketHash: 'P', outcome: 2 }),
    );
    const paid = payouts(events);
    // The maker wins 10 of profit: 5 % fee is 0.5; the requester gets nothing.
    expect(paid.find((p) => p.account === 'M1')).toMatchObject({ payout: usd(50) - 500_000n, fee: 500_000n });
    expect(paid.find((p) => p.account === 'R')).toMatchObject({ payout: 0n, fee: 0n });
    expect(paid.find((p) => p.account === FEE)).toMatchObject({ stake: 0n, payout: 500_000n });
    expect(h.engine.balance(FEE).available).toBe(500_000n);
    expect(h.engine.balance('M1').available).toBe(START + usd(10) - 500_000n);
    expect(h.engine.balance('R').available).toBe(START - usd(10));
    h.engine.assertInvariants();
    // Later legs change nothing.
    expect(payouts(h.apply({ type: 'resolveMarket', marketHash: 'L1', outcome: 1 }))).toEqual([]);
  });

  it('wins once every leg is won, the fee on the requester’s profit', () => {
    const { h } = parlayHarness();
    matched(h);
    expect(payouts(h.apply({ type: 'resolveMarket', marketHash: 'L1', outcome: 1 }))).toEqual([]);
    expect(payouts(h.apply({ type: 'resolveMarket', marketHash: 'L2', outcome: 2 }))).toEqual([]);
    const events = h.apply({ type: 'resolveMarket', marketHash: 'L3', outcome: 1 });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'marketResolved', marketHash: 'P', outcome: 1 }),
    );
    // Profit 40: fee 2.
    expect(h.engine.balance('R').available).toBe(START + usd(40) - usd(2));
    expect(h.engine.balance('M1').available).toBe(START - usd(40));
    expect(h.engine.balance(FEE).available).toBe(usd(2));
    h.engine.assertInvariants();
  });

  it('voids (every stake back, no fee) when a leg is void and none lost', () => {
    const { h } = parlayHarness();
    matched(h);
    h.apply({ type: 'resolveMarket', marketHash: 'L1', outcome: 0 });
    h.apply({ type: 'resolveMarket', marketHash: 'L2', outcome: 2 });
    const events = h.apply({ type: 'resolveMarket', marketHash: 'L3', outcome: 1 });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'marketResolved', marketHash: 'P', outcome: 0 }),
    );
    expect(h.engine.balance('R').available).toBe(START);
    expect(h.engine.balance('M1').available).toBe(START);
    expect(h.engine.balance(FEE).available).toBe(0n);
  });

  it('grades a quarter-line leg from its halves: a half lost loses the parlay', () => {
    const { h } = parlayHarness(['L1', 'Q'], [true, true], 0);
    matched(h);
    expect(payouts(h.apply({ type: 'resolveMarket', marketHash: 'W', outcome: 0 }))).toEqual([]);
    const events = h.apply({ type: 'resolveMarket', marketHash: 'H', outcome: 2 });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'marketResolved', marketHash: 'P', outcome: 2 }),
    );
    expect(h.engine.balance('M1').available).toBe(START + usd(10));
  });

  it('closes when a leg closes', () => {
    const { h } = parlayHarness();
    h.place({ id: 'm1', account: 'M1', market: 'P', one: false, tick: 640, size: usd(40) });
    const events = h.apply({ type: 'closeMarket', marketHash: 'L1' });
    expect(events).toContainEqual(expect.objectContaining({ type: 'marketClosed', marketHash: 'P' }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'orderDone', orderId: 'm1' }));
  });

  it('survives snapshots (bytes and JSON) with its legs’ results so far', () => {
    const { h } = parlayHarness(['L1', 'Q', 'L2'], [true, true, false]);
    matched(h);
    h.apply({ type: 'resolveMarket', marketHash: 'L1', outcome: 1 });
    h.apply({ type: 'resolveMarket', marketHash: 'W', outcome: 1 });
    const bytes = h.engine.snapshotBytes();
    for (const engine of [Engine.restoreBytes(bytes), Engine.restore(h.engine.snapshot())]) {
      expect(engine.snapshotBytes()).toEqual(bytes);
      const r = new Harness(engine);
      r.seq = h.seq;
      r.ts = h.ts;
      r.apply({ type: 'resolveMarket', marketHash: 'L2', outcome: 2 });
      const events = r.apply({ type: 'resolveMarket', marketHash: 'H', outcome: 1 });
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'marketResolved', marketHash: 'P', outcome: 1 }),
      );
      expect(engine.balance('R').available).toBe(START + usd(40) - usd(2));
    }
  });

  it('keeps the bytes of a state without parlays', () => {
    const h = Harness.standard();
    const bytes = h.engine.snapshotBytes();
    expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true)).toBe(0x3553_424f);
  });
});
