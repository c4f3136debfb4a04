import { describe, expect, it } from 'vitest';
import type { EngineCommand, MarketOutcome } from './commands.js';
import { Engine } from './engine.js';
import type { CeRefundEvent, EngineEvent } from './events.js';
import type { EngineSnapshot } from './snapshot.js';
import { Harness, only } from './test-support/harness.js';
import { ReferenceEngine } from './test-support/reference-engine.js';

/** Amounts in base units of a 6-decimal token: `usd(100)` is 100 USDC. */
const usd = (x: number) => BigInt(x) * 1_000_000n;
const START = usd(1_000);
const ACCOUNTS = ['A', 'B', 'C'];

/**
 * The done-when case of issue 25: A backs outcome one for 100 at 50 % (against B), then outcome two for
 * 100 at 50 % (against C). Tick 400 of N = 800 is 50 %.
 */
function fullHedge(h: Harness): readonly EngineEvent[][] {
  return [
    [...h.place({ id: 'b1', account: 'B', one: false, tick: 400, size: usd(100) })],
    [...h.place({ id: 'a1', account: 'A', tick: 400, size: usd(100), tif: 'IOC' })],
    [...h.place({ id: 'c1', account: 'C', tick: 400, size: usd(100) })],
    [...h.place({ id: 'a2', account: 'A', one: false, tick: 400, size: usd(100), tif: 'IOC' })],
  ];
}

const refunds = (events: readonly EngineEvent[]) =>
  events.filter((e): e is CeRefundEvent => e.type === 'ceRefund');

/** The same commands through the naive reference with capital efficiency off: the balances it ends with. */
function withoutCe(
  commands: readonly EngineCommand[],
): Record<string, { available: bigint; escrowed: bigint }> {
  const reference = new ReferenceEngine(800, { capitalEfficiency: false });
  for (const c of commands) reference.apply(c);
  return Object.fromEntries(ACCOUNTS.map((a) => [a, reference.balanceOf(a)]));
}

/** Runs the engine through a harness and keeps every command it applied. */
function recorded(): { h: Harness; commands: EngineCommand[] } {
  const commands: EngineCommand[] = [];
  const h = new Harness();
  const apply = h.engine.apply.bind(h.engine);
  h.engine.apply = (c: EngineCommand) => {
    commands.push(c);
    return apply(c);
  };
  h.apply({ type: 'openMarket', marketHash: 'M', eventId: 'E' });
  for (const a of ACCOUNTS) h.apply({ type: 'credit', account: a, amount: START });
  return { h, commands };
}

describe('capital efficiency: the full hedge (issue 25, done when)', () => {
  it('gives the whole 200 back right after the second fill', () => {
    const { h } = recorded();
    const [, first, , second] = fullHedge(h);
    // One outcome only: nothing is certain yet, nothing comes back.
    expect(refunds(first!)).toEqual([]);
    expect(only(first!, 'balance')).toContain(`balance A ${START - usd(100)}/${usd(100)}`);
    expect(only(second!, 'match', 'refund', 'balance')).toEqual([
      `match c1<a2 @400 ${usd(100)}+${usd(100)}`,
      `refund A ${usd(200)} total=${usd(200)} taker 8-0`,
      `balance C ${START - usd(100)}/${usd(100)}`,
      `balance A ${START}/0`,
    ]);
    expect(refunds(second!)[0]).toEqual({
      type: 'ceRefund',
      account: 'A',
      marketHash: 'M',
      eventId: 'E',
      amount: usd(200),
      refundedTotal: usd(200),
      matchId: '8-0',
      maker: false,
      orderId: 'a2',
    });
    expect(h.engine.balance('A')).toEqual({ available: START, escrowed: 0n });
    expect(h.engine.position('M', 'A')).toEqual({
      stakeOnOutcomeOne: usd(100),
      stakeOnOutcomeTwo: usd(100),
      payoutIfOutcomeOne: usd(200),
      payoutIfOutcomeTwo: usd(200),
      refunded: usd(200),
    });
    h.engine.assertInvariants();
  });

  it.each([1, 2, 0] as const)(
    'ends result %s with the balances it would have without the refund',
    (outcome) => {
      const { h, commands } = recorded();
      fullHedge(h);
      const events = h.apply({ type: 'resolveMarket', marketHash: 'M', outcome: outcome as MarketOutcome });
      h.engine.assertInvariants();
      // A had everything back already: its settlement moves nothing.
      expect(only(events, 'payout')).toEqual([
        'payout A stake=0 payout=0',
        `payout B stake=${usd(100)} payout=${outcome === 2 ? usd(200) : outcome === 0 ? usd(100) : 0n}`,
        `payout C stake=${usd(100)} payout=${outcome === 1 ? usd(200) : outcome === 0 ? usd(100) : 0n}`,
      ]);
      const expected = withoutCe(commands);
      expect(expected.A).toEqual({ available: START, escrowed: 0n });
      for (const a of ACCOUNTS) expect(h.engine.balance(a)).toEqual(expected[a]);
    },
  );
});

describe('capital efficiency: partial hedges and the void limit', () => {
  it('a partial hedge returns what every result pays at least, and settles to the same balance', () => {
    for (const outcome of [1, 2, 0] as const) {
      const { h, commands } = recorded();
      h.place({ id: 'b1', account: 'B', one: false, tick: 400, size: usd(100) });
      h.place({ id: 'a1', account: 'A', tick: 400, size: usd(100), tif: 'IOC' });
      h.place({ id: 'c1', account: 'C', tick: 400, size: usd(50) });
      const events = h.place({ id: 'a2', account: 'A', one: false, tick: 400, size: usd(50), tif: 'IOC' });
      // Pots 200 and 100, stakes 150: 100 is certain.
      expect(only(events, 'refund')).toEqual([`refund A ${usd(100)} total=${usd(100)} taker 8-0`]);
      expect(h.engine.balance('A')).toEqual({ available: START - usd(50), escrowed: usd(50) });
      const payout = only(h.apply({ type: 'resolveMarket', marketHash: 'M', outcome }), 'payout')[0];
      expect(payout).toBe(
        `payout A stake=${usd(50)} payout=${outcome === 1 ? usd(100) : outcome === 2 ? 0n : usd(50)}`,
      );
      const expected = withoutCe(commands);
      for (const a of ACCOUNTS) expect(h.engine.balance(a)).toEqual(expected[a]);
      h.engine.assertInvariants();
    }
  });

  it('refunds no more than the stakes when both pots exceed them (void pays stakes back)', () => {
    for (const outcome of [1, 2, 0] as const) {
      const { h, commands } = recorded();
      // A backs outcome one at 25 % (B's maker order on two at 75 %): stake 100, pot one 400.
      h.place({ id: 'b1', account: 'B', one: false, tick: 600, size: usd(300) });
      h.place({ id: 'a1', account: 'A', tick: 200, size: usd(100), tif: 'IOC' });
      // Then outcome two at 40 % (C's maker order on one at 60 %): stake 100, pot two 250.
      h.place({ id: 'c1', account: 'C', tick: 480, size: usd(150) });
      const events = h.place({ id: 'a2', account: 'A', one: false, tick: 320, size: usd(100), tif: 'IOC' });
      // min(pot one 400, pot two 250) = 250 would be more than the 200 escrowed: void limits it to 200.
      expect(only(events, 'refund')).toEqual([`refund A ${usd(200)} total=${usd(200)} taker 8-0`]);
      expect(h.engine.balance('A')).toEqual({ available: START, escrowed: 0n });
      expect(h.engine.position('M', 'A')?.refunded).toBe(usd(200));
      const payout = only(h.apply({ type: 'resolveMarket', marketHash: 'M', outcome }), 'payout')[0];
      expect(payout).toBe(
        `payout A stake=0 payout=${outcome === 1 ? usd(200) : outcome === 2 ? usd(50) : 0n}`,
      );
      const expected = withoutCe(commands);
      for (const a of ACCOUNTS) expect(h.engine.balance(a)).toEqual(expected[a]);
      h.engine.assertInvariants();
    }
  });

  it('refunds makers too, in the same fill as the taker, maker first', () => {
    const h = Harness.standard({ A: START, B: START });
    // A and B each hold one side; then each hedges against the other: both are parties to one fill.
    h.place({ id: 'a1', account: 'A', tick: 400, size: usd(100) });
    h.place({ id: 'b1', account: 'B', one: false, tick: 400, size: usd(100), tif: 'IOC' });
    h.place({ id: 'a2', account: 'A', one: false, tick: 400, size: usd(100) });
    const events = h.place({ id: 'b2', account: 'B', tick: 400, size: usd(100), tif: 'IOC' });
    expect(only(events, 'match', 'refund')).toEqual([
      `match a2<b2 @400 ${usd(100)}+${usd(100)}`,
      `refund A ${usd(200)} total=${usd(200)} maker ${h.seq}-0`,
      `refund B ${usd(200)} total=${usd(200)} taker ${h.seq}-0`,
    ]);
    expect(h.engine.balance('A')).toEqual({ available: START, escrowed: 0n });
    expect(h.engine.balance('B')).toEqual({ available: START, escrowed: 0n });
    h.engine.assertInvariants();
  });

  it('a refund mid-walk pays for the next lots: a hedge with no money left fills in full', () => {
    const h = Harness.standard({ A: usd(110), B: START, C: START });
    h.place({ id: 'b1', account: 'B', one: false, tick: 400, size: usd(100) });
    h.place({ id: 'a1', account: 'A', tick: 400, size: usd(100), tif: 'IOC' });
    // A has 10 left. C offers 100 on outcome one at 50 % in four orders; A hedges 100 on two, FOK.
    for (let i = 0; i < 4; i++) h.place({ id: `c${i}`, account: 'C', tick: 400, size: usd(25) });
    const events = h.place({ id: 'a2', account: 'A', one: false, tick: 400, size: usd(100), tif: 'FOK' });
    expect(only(events, 'done').at(-1)).toBe(`done a2 FILLED filled=${usd(100)} left=0`);
    expect(h.engine.balance('A')).toEqual({ available: usd(110), escrowed: 0n });
    h.engine.assertInvariants();
  });
});

describe('capital efficiency in the FOK dry run', () => {
  it('foresees refunds, but counts each maker order once however often a refund lets it fill again', () => {
    const h = Harness.standard({ A: usd(110), B: START, C: START });
    h.place({ id: 'b1', account: 'B', one: false, tick: 400, size: usd(100) });
    h.place({ id: 'a1', account: 'A', tick: 400, size: usd(100), tif: 'IOC' });
    // A has 10 left; C offers 30 on outcome one. A's refunds would pay for 50, but only 30 is there.
    h.place({ id: 'c1', account: 'C', tick: 400, size: usd(30) });
    const killed = h.place({ id: 'a2', account: 'A', one: false, tick: 400, size: usd(50), tif: 'FOK' });
    expect(only(killed, 'match', 'done')).toEqual([`done a2 NO_LIQUIDITY filled=0 left=${usd(50)}`]);
    const filled = h.place({ id: 'a3', account: 'A', one: false, tick: 400, size: usd(30), tif: 'FOK' });
    // 10, then 20 (paid by the first refund of 20): c1 filled, A certain of 60.
    expect(only(filled, 'match', 'refund')).toEqual([
      `match c1<a3 @400 ${usd(10)}+${usd(10)}`,
      `refund A ${usd(20)} total=${usd(20)} taker ${h.seq}-0`,
      `match c1<a3 @400 ${usd(20)}+${usd(20)}`,
      `refund A ${usd(40)} total=${usd(60)} taker ${h.seq}-1`,
    ]);
    expect(h.engine.balance('A')).toEqual({ available: usd(40), escrowed: usd(70) });
    h.engine.assertInvariants();
  });
});

describe('capital efficiency in snapshots', () => {
  it('keeps the refunded amount in both snapshot forms and in the state hash bytes', () => {
    const { h } = recorded();
    fullHedge(h);
    const snapshot = h.engine.snapshot();
    expect(snapshot.format).toBe(2);
    expect(snapshot.markets[0]!.positions.find((p) => p[0] === 'A')).toEqual([
      'A',
      `${usd(100)}`,
      `${usd(100)}`,
      `${usd(200)}`,
      `${usd(200)}`,
      `${usd(200)}`,
    ]);
    const bytes = h.engine.snapshotBytes();
    for (const restored of [
      Engine.restore(JSON.parse(JSON.stringify(snapshot))),
      Engine.restoreBytes(bytes),
    ]) {
      expect(restored.position('M', 'A')?.refunded).toBe(usd(200));
      expect(restored.snapshotBytes()).toEqual(bytes);
      restored.assertInvariants();
    }
    // Two states that differ only in what was refunded give different bytes (so different hashes).
    const other = Engine.restore({
      ...snapshot,
      accounts: snapshot.accounts.map((r) =>
        r[0] === 'A' ? ['A', `${START - usd(200)}`, `${usd(200)}`] : r,
      ),
      markets: snapshot.markets.map((m) => ({
        ...m,
        positions: m.positions.map((p) => (p[0] === 'A' ? [...p.slice(0, 5), '0'] : p)),
      })) as EngineSnapshot['markets'],
    });
    other.assertInvariants();
    expect(other.snapshotBytes()).not.toEqual(bytes);
  });

  /**
   * Bytes of the format before capital efficiency ('OBS2'), taken from the engine as it was: A holds
   * 100 on outcome one (pot 200) and 50 on two (pot 100), 150 escrowed, nothing refunded.
   */
  const OBS2 =
    'T0JTMiADAAAAAAAAAAAmQAoAAAAzMDAwMDAwMDAwAwAAAAEAAABBAQAAAEIBAAAAQwMAAAAAAAAACQAAADg1MDAwMDAwMAkAAAAxNTAwMDAwMDABAAAACQAAADkwMDAwMDAwMAkAAAAxMDAwMDAwMDACAAAACQAAADk1MDAwMDAwMAgAAAA1MDAwMDAwMAMAAAABAAAATQEAAABFBAAAAG9wZW4AAAAAAAAUQAMAAAAAAAAACQAAADEwMDAwMDAwMAgAAAA1MDAwMDAwMAkAAAAyMDAwMDAwMDAJAAAAMTAwMDAwMDAwAQAAAAEAAAAwCQAAADEwMDAwMDAwMAEAAAAwCQAAADIwMDAwMDAwMAIAAAAIAAAANTAwMDAwMDABAAAAMAkAAAAxMDAwMDAwMDABAAAAMAIAAABNMgEAAABFBAAAAG9wZW4AAAAAAAAAAAAAAAACAAAATTMBAAAARgQAAABvcGVuAAAAAAAAAAAAAAAAAQAAAAIAAABjMgIAAAAAAAAALAEAAEAfAAAAAAAAQB8AAAAAAAAAlDV3AAAAAAAAJkA=';

  it('reads the format before capital efficiency with nothing refunded; the next fill refunds what is certain', () => {
    const engine = Engine.restoreBytes(Uint8Array.from(Buffer.from(OBS2, 'base64')));
    engine.assertInvariants();
    expect(engine.position('M', 'A')).toEqual({
      stakeOnOutcomeOne: usd(100),
      stakeOnOutcomeTwo: usd(50),
      payoutIfOutcomeOne: usd(200),
      payoutIfOutcomeTwo: usd(100),
      refunded: 0n,
    });
    expect(engine.balance('A')).toEqual({ available: usd(850), escrowed: usd(150) });
    // The JSON form of format 1 (no refunded column) reads the same.
    const json = engine.snapshot();
    const v1 = {
      ...json,
      format: 1,
      markets: json.markets.map((m) => ({ ...m, positions: m.positions.map((p) => p.slice(0, 5)) })),
    } as unknown as EngineSnapshot;
    expect(Engine.restore(v1).snapshotBytes()).toEqual(engine.snapshotBytes());
    // C's order c2 bets outcome one at tick 300 (lot 3 : 5): A takes 5,000 units of outcome two.
    const events = engine.apply({
      type: 'place',
      seq: 12,
      ts: 1_000_000,
      orderId: 'a3',
      account: 'A',
      marketHash: 'M',
      isBettingOutcomeOne: false,
      percentageOdds: engine.ladder.odds[500]!,
      totalBetSize: 5_000n,
      expiry: 2_000_000_000,
      timeInForce: 'IOC',
    });
    // Pots 200 and 100.008, stakes 150.005: 100.008 is certain, all of it refunded now.
    expect(refunds(events).map((e) => [e.account, e.amount, e.refundedTotal])).toEqual([
      ['A', usd(100) + 8_000n, usd(100) + 8_000n],
    ]);
    engine.assertInvariants();
  });

  it('refuses bytes of an unknown format', () => {
    const bytes = Uint8Array.from(Buffer.from(OBS2, 'base64'));
    bytes[3] = 0x39; // 'OBS9'
    expect(() => Engine.restoreBytes(bytes)).toThrow('not an engine snapshot');
    expect(() => Engine.restore({ format: 3 } as unknown as EngineSnapshot)).toThrow(
      'unknown snapshot format 3',
    );
  });
});
