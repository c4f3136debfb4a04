import { describe, expect, it } from 'vitest';
import { Engine, type EngineEvent, ODDS_SCALE } from '../engine/index.js';
import { Admission } from './admission.js';
import { applyEntry } from './apply-entry.js';
import { capToAverageOdds } from './average-odds-cap.js';
import { checkpointBytes, restoreCheckpoint } from './checkpoint.js';
import { decide } from './decide.js';
import type { AppliedEntry, OrderMeta, PlaceOrderInput } from './inputs.js';
import type { Intent, IntentResult } from './intents.js';

const usd = (x: number) => BigInt(x) * 1_000_000n;
const odds = (percent: number) => (BigInt(Math.round(percent * 1000)) * ODDS_SCALE) / 100_000n;
const CUTOVER = 1_700_000_050_000;

class Harness {
  engine = new Engine({ ladderSize: 800 });
  admission = new Admission();
  seq = 0;
  ts = 1_700_000_000_000;
  readonly journal: AppliedEntry[] = [];

  decide(intent: Intent): IntentResult {
    const state = { engine: this.engine, admission: this.admission, ts: this.ts };
    return decide(intent, state, (input) => {
      const entry = applyEntry(state, input, ++this.seq, this.ts);
      this.journal.push(entry);
      return entry;
    });
  }
}

let n = 0;
function order(
  account: string,
  o: { one?: boolean; tif?: 'GTC' | 'IOC'; v2?: boolean; odds?: bigint; size?: bigint } = {},
): { order: PlaceOrderInput; meta: OrderMeta } {
  n += 1;
  return {
    order: {
      type: 'place',
      orderId: `0x${n.toString(16).padStart(64, '0')}`,
      account,
      marketHash: 'M',
      isBettingOutcomeOne: o.one ?? true,
      percentageOdds: o.odds ?? odds(50),
      totalBetSize: o.size ?? usd(10),
      expiry: 1_700_010_000,
      timeInForce: o.tif ?? 'GTC',
    },
    meta: {
      commandId: `c${n}`,
      eventId: 'E',
      clientOrderId: null,
      salt: '0x1',
      baseToken: '0xb',
      signature: '0xs',
      ...(o.v2 ? { api: 'v2' as const } : {}),
    },
  };
}

const place = (o: ReturnType<typeof order>, delayMs = 0): Intent => ({
  kind: 'order',
  ...o,
  market: { eventId: 'E', legs: null },
  bettingDelayMs: delayMs,
});

function funded(): Harness {
  const h = new Harness();
  for (const a of ['A', 'B', 'C'])
    h.decide({
      kind: 'input',
      input: { kind: 'engine', command: { type: 'credit', account: a, amount: usd(1_000) } },
    });
  return h;
}

const doneReasons = (events: readonly EngineEvent[]) =>
  events.flatMap((e) => (e.type === 'orderDone' ? [[e.orderId, e.reason]] : []));

describe('the v3 cut-over (V2_CUTOVER_AT)', () => {
  it('cancels every open v2 order in one engine input, withdraws those waiting a delay, and leaves v3 alone', () => {
    const h = funded();
    const v2a = order('A', { v2: true, odds: odds(40) });
    const v2b = order('B', { v2: true, one: false, odds: odds(30) });
    const v3 = order('C', { odds: odds(45) });
    for (const o of [v2a, v2b, v3]) expect(h.decide(place(o)).order).toEqual({ status: 'placed' });
    const waiting = order('C', { v2: true, tif: 'IOC', one: false });
    expect(h.decide(place(waiting, 5_000)).order?.status).toBe('admitted');

    h.ts = CUTOVER - 1;
    expect(h.decide({ kind: 'v2Cutover', at: CUTOVER }).entries).toEqual([]);
    h.ts = CUTOVER;
    const result = h.decide({ kind: 'v2Cutover', at: CUTOVER });
    expect(result.entries.map((e) => e.input.kind)).toEqual(['withdraw', 'engine']);
    expect(result.entries[0]!.input).toEqual({
      kind: 'withdraw',
      orderIds: [waiting.order.orderId],
      reason: 'V2_CUTOVER',
    });
    expect(doneReasons(result.entries[1]!.events)).toEqual([
      [v2a.order.orderId, 'V2_CUTOVER'],
      [v2b.order.orderId, 'V2_CUTOVER'],
    ]);
    expect(h.engine.order(v3.order.orderId)).toBeDefined();
    // Nothing v2 is left open: another cut-over intent does nothing.
    expect(h.decide({ kind: 'v2Cutover', at: CUTOVER }).entries).toEqual([]);
  });

  it('leaves filled and cancelled v2 orders out, and is rebuilt alike from a checkpoint or the journal', () => {
    const h = funded();
    const maker = order('A', { v2: true, odds: odds(40) });
    const filled = order('B', { v2: true, odds: odds(50), one: false });
    h.decide(place(maker));
    h.decide(place(filled));
    // A v3 taker fills `filled` whole (B bets two at 50 %, C takes outcome one at 50 %).
    h.decide(place(order('C', { tif: 'IOC', odds: odds(50) })));
    expect(h.engine.order(filled.order.orderId)).toBeUndefined();
    const checkpoint = checkpointBytes(h.engine, h.admission);
    const restored = restoreCheckpoint(checkpoint, {})!;
    expect(restored.admission.snapshotBytes()).toEqual(h.admission.snapshotBytes());
    const replayed = { engine: new Engine({ ladderSize: 800 }), admission: new Admission() };
    for (const e of h.journal) applyEntry(replayed, e.input, e.seq, e.ts);
    expect(replayed.admission.snapshotBytes()).toEqual(h.admission.snapshotBytes());

    h.ts = CUTOVER;
    const result = h.decide({ kind: 'v2Cutover', at: CUTOVER });
    expect(result.cancel?.cancelled).toEqual([maker.order.orderId]);
    // The restored state decides the same (a start after the date with resting v2 orders).
    const again = new Harness();
    again.engine = restored.engine;
    again.admission = restored.admission;
    again.seq = h.seq;
    again.ts = CUTOVER;
    expect(again.decide({ kind: 'v2Cutover', at: CUTOVER }).cancel?.cancelled).toEqual([maker.order.orderId]);
  });

  it('writes the checkpoint bytes of before the legacy API while there is no v2 order', () => {
    const h = funded();
    h.decide(place(order('A')));
    const bytes = h.admission.snapshotBytes();
    expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true)).toBe(0x3141_424f);
  });
});

describe('a v2 fill’s slippage rule: the stake-weighted average stays within the bound', () => {
  // Resting makers on outcome two at 60 %, 55 % and 50 % (the taker of outcome one pays 40 %, 45 %, 50 %).
  const levels = [
    { tick: 480, percentageOdds: odds(60), size: usd(60), orders: 1 },
    { tick: 440, percentageOdds: odds(55), size: usd(55), orders: 1 },
    { tick: 400, percentageOdds: odds(50), size: usd(50), orders: 1 },
  ];
  const taker = order('B', { tif: 'IOC', size: usd(1_000) }).order;

  it('takes the levels within the bound whole, and of the next what keeps the average within it', () => {
    // Bound 44 % (desired 44 %, no slippage): the 40 % and 45 % levels whole (85 stake, pot 200: 42.5 %), then
    // at 50 % x with (85 + x) / (200 + 2x) <= 0.44: x <= 25, less one lot of that price (1 base unit).
    const capped = capToAverageOdds(
      taker,
      { desiredOdds: odds(44).toString(), oddsSlippage: 0 },
      levels,
      800,
    )!;
    expect(capped.percentageOdds).toBe(odds(50));
    expect(capped.totalBetSize).toBe(usd(110) - 1n);
    const stake = capped.totalBetSize;
    const pot = usd(200) + (stake - usd(85)) * 2n;
    expect(stake * ODDS_SCALE <= odds(44) * pot).toBe(true);
  });

  it('slippage widens the bound: desired x 100 / (100 - slippage)', () => {
    const tight = capToAverageOdds(
      taker,
      { desiredOdds: odds(40).toString(), oddsSlippage: 0 },
      levels,
      800,
    )!;
    expect(tight.totalBetSize).toBe(usd(40));
    expect(tight.percentageOdds).toBe(odds(40));
    // 45 / 0.9 = 50 %: every level is within it.
    const wide = capToAverageOdds(
      taker,
      { desiredOdds: odds(45).toString(), oddsSlippage: 10 },
      levels,
      800,
    )!;
    expect(wide.percentageOdds).toBe(odds(50));
    expect(wide.totalBetSize).toBe(usd(40 + 45 + 50));
  });

  it('takes nothing when even the best level is beyond the bound by more than a lot', () => {
    expect(
      capToAverageOdds(taker, { desiredOdds: odds(30).toString(), oddsSlippage: 0 }, levels, 800),
    ).toBeNull();
    expect(
      capToAverageOdds(taker, { desiredOdds: odds(30).toString(), oddsSlippage: 0 }, [], 800),
    ).toBeNull();
  });

  it('in the sequencer, a fill that can take nothing ends NO_LIQUIDITY and moves no money', () => {
    const h = funded();
    h.decide(place(order('A', { one: false, odds: odds(60) })));
    const fill = order('B', { tif: 'IOC', v2: true, odds: odds(99) });
    fill.meta.averageOddsLimit = { desiredOdds: odds(30).toString(), oddsSlippage: 0 };
    const result = h.decide(place(fill));
    const events = result.entries.at(-1)!.events;
    expect(events.some((e) => e.type === 'orderMatched')).toBe(false);
    expect(doneReasons(events)).toEqual([[fill.order.orderId, 'NO_LIQUIDITY']]);
  });
});
