import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EngineCommand, MarketOutcome } from './commands.js';
import { Engine } from './engine.js';
import type { EngineEvent, OrderMatchedEvent, QuarterLineLeg } from './events.js';
import { splitStake } from './market-book.js';
import { Harness, only } from './test-support/harness.js';

/** Amounts in base units of a 6-decimal token: `usd(100)` is 100 USDC. */
const usd = (x: number) => BigInt(x) * 1_000_000n;
const START = usd(1_000);

/**
 * An asian handicap -0.75 market Q with its legs: W, the whole line (-1.0), and H, the half line (-0.5).
 * Tick 400 of N = 800 is 50 %.
 */
function quarter(): Harness {
  const h = new Harness();
  h.apply({ type: 'openMarket', marketHash: 'W', eventId: 'E' });
  h.apply({ type: 'openMarket', marketHash: 'H', eventId: 'E' });
  h.apply({ type: 'openMarket', marketHash: 'Q', eventId: 'E', legs: ['W', 'H'] });
  for (const a of ['A', 'B', 'C']) h.apply({ type: 'credit', account: a, amount: START });
  return h;
}

/** Markets resolved and closed, orders done: the first words of their summaries. */
const lifecycle = (events: readonly EngineEvent[]) =>
  only(events, 'resolved', 'closed', 'done').map((line) => line.split(' ').slice(0, 3).join(' '));

const matches = (events: readonly EngineEvent[]) =>
  events.filter((e): e is OrderMatchedEvent => e.type === 'orderMatched');

describe('splitStake', () => {
  it('halves every stake exactly: the two add up to it, the whole line has the odd unit', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (stake) => {
        const [whole, half] = splitStake(stake);
        expect(whole + half).toBe(stake);
        expect(whole - half === 0n || whole - half === 1n).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('quarter-line markets (issue 26)', () => {
  it('open with two open ordinary markets of their event as legs, and only so', () => {
    const h = quarter();
    h.apply({ type: 'openMarket', marketHash: 'X', eventId: 'OTHER' });
    h.apply({ type: 'openMarket', marketHash: 'S', eventId: 'E' });
    h.apply({ type: 'closeMarket', marketHash: 'S' });
    for (const legs of [
      ['W', 'W'],
      ['W', 'NOPE'],
      ['W', 'X'],
      ['W', 'S'],
      ['Q', 'H'],
    ] as const) {
      const events = h.apply({ type: 'openMarket', marketHash: `Q${legs[1]}`, eventId: 'E', legs });
      expect(events).toEqual([{ type: 'commandRejected', command: 'openMarket', code: 'INVALID_LEGS' }]);
    }
    expect(
      quarter()
        .engine.snapshot()
        .markets.map((m) => m.legs),
    ).toEqual([undefined, undefined, ['W', 'H']]);
  });

  it('matches on its own book and puts half of each stake on each leg, at the same odds', () => {
    const h = quarter();
    h.place({ id: 'b1', account: 'B', market: 'Q', one: false, tick: 400, size: usd(100) });
    const events = h.place({
      id: 'a1',
      account: 'A',
      market: 'Q',
      tick: 400,
      size: usd(100) + 1n,
      tif: 'IOC',
    });
    // 100 000 001 units: lots of 1 : 1, one unit is taker dust.
    const [match] = matches(events);
    expect(match).toMatchObject({
      marketHash: 'Q',
      makerStake: usd(100),
      takerStake: usd(100),
      legs: [
        { marketHash: 'W', makerStake: usd(50), takerStake: usd(50) },
        { marketHash: 'H', makerStake: usd(50), takerStake: usd(50) },
      ],
    });
    expect(h.engine.position('Q', 'A')).toBeUndefined();
    for (const leg of ['W', 'H']) {
      expect(h.engine.position(leg, 'A')).toMatchObject({
        stakeOnOutcomeOne: usd(50),
        payoutIfOutcomeOne: usd(100),
        stakeOnOutcomeTwo: 0n,
      });
      expect(h.engine.position(leg, 'B')).toMatchObject({
        stakeOnOutcomeTwo: usd(50),
        payoutIfOutcomeTwo: usd(100),
      });
    }
    expect(h.engine.balance('A')).toEqual({ available: START - usd(100), escrowed: usd(100) });
  });

  it('gives an odd unit of each stake to the whole line, creating no money', () => {
    const h = quarter();
    // Tick 500 (62.5 %): lots of 5 : 3. Three lots: maker 15, taker 9.
    h.place({ id: 'b1', account: 'B', market: 'Q', one: false, tick: 500, size: 15n * 800n });
    const [match] = matches(
      h.place({ id: 'a1', account: 'A', market: 'Q', tick: 300, size: 9n * 800n, tif: 'IOC' }),
    );
    const { makerStake, takerStake, legs } = match!;
    expect(legs![0].makerStake + legs![1].makerStake).toBe(makerStake);
    expect(legs![0].takerStake + legs![1].takerStake).toBe(takerStake);
    expect(legs![0].makerStake - legs![1].makerStake).toBe(makerStake % 2n);
  });

  it('cannot be resolved itself; a leg closing or resolved closes it and cancels its orders', () => {
    const h = quarter();
    h.place({ id: 'q1', account: 'A', market: 'Q', tick: 400, size: usd(10) });
    expect(h.apply({ type: 'resolveMarket', marketHash: 'Q', outcome: 1 })).toEqual([
      { type: 'commandRejected', command: 'resolveMarket', code: 'QUARTER_LINE_MARKET' },
    ]);
    const events = h.apply({ type: 'resolveMarket', marketHash: 'H', outcome: 1 });
    expect(lifecycle(events)).toEqual(['resolved H 1', 'closed Q', 'done q1 EVENT_LIFECYCLE']);
    expect(h.place({ id: 'q2', account: 'A', market: 'Q', tick: 400, size: usd(10) })).toContainEqual(
      expect.objectContaining({ type: 'orderRejected', code: 'MARKET_CLOSED' }),
    );
    const closing = quarter();
    closing.place({ id: 'q1', account: 'A', market: 'Q', tick: 400, size: usd(10) });
    expect(lifecycle(closing.apply({ type: 'closeMarket', marketHash: 'W' }))).toEqual([
      'closed W',
      'closed Q',
      'done q1 EVENT_LIFECYCLE',
    ]);
  });

  // The worked examples of docs/matching.md: A backs the home side -0.75 for 100 at 50 % against B.
  const settle: [string, MarketOutcome, MarketOutcome, bigint, bigint][] = [
    // Home wins by 2 or more: both legs win.
    ['home wins by 2', 1, 1, START + usd(100), START - usd(100)],
    // Home wins by 1: -0.5 wins, -1.0 pushes (void): a half win.
    ['home wins by 1', 1, 0, START + usd(50), START - usd(50)],
    // Draw or away win: both lose.
    ['home draws or loses', 2, 2, START - usd(100), START + usd(100)],
    // The same shape for +0.25 drawn (legs 0 and +0.5): the whole line pushes, the half line wins.
    ['+0.25, drawn', 1, 0, START + usd(50), START - usd(50)],
  ];
  for (const [name, half, whole, a, b] of settle) {
    it(`settles each leg by its own result: ${name}`, () => {
      const h = quarter();
      h.place({ id: 'b1', account: 'B', market: 'Q', one: false, tick: 400, size: usd(100) });
      h.place({ id: 'a1', account: 'A', market: 'Q', tick: 400, size: usd(100), tif: 'IOC' });
      h.apply({ type: 'resolveMarket', marketHash: 'H', outcome: half });
      h.apply({ type: 'resolveMarket', marketHash: 'W', outcome: whole });
      expect(h.engine.balance('A')).toEqual({ available: a, escrowed: 0n });
      expect(h.engine.balance('B')).toEqual({ available: b, escrowed: 0n });
    });
  }

  it('refunds per leg market: a quarter bet hedged on one leg gets that leg back at once', () => {
    const h = quarter();
    h.place({ id: 'b1', account: 'B', market: 'Q', one: false, tick: 400, size: usd(100) });
    h.place({ id: 'a1', account: 'A', market: 'Q', tick: 400, size: usd(100), tif: 'IOC' });
    // A's W leg: 50 on outcome one (pot 100). It now backs outcome two on W for 50 at 50 % against C.
    h.place({ id: 'c1', account: 'C', market: 'W', tick: 400, size: usd(50) });
    const events = h.place({
      id: 'a2',
      account: 'A',
      market: 'W',
      one: false,
      tick: 400,
      size: usd(50),
      tif: 'IOC',
    });
    expect(events.filter((e) => e.type === 'ceRefund')).toEqual([
      expect.objectContaining({ account: 'A', marketHash: 'W', amount: usd(100), refundedTotal: usd(100) }),
    ]);
    expect(h.engine.balance('A')).toEqual({ available: START - usd(50), escrowed: usd(50) });
  });

  it('keeps its legs across a snapshot, in either form', () => {
    const h = quarter();
    h.place({ id: 'b1', account: 'B', market: 'Q', one: false, tick: 400, size: usd(100) });
    const fromJson = Engine.restore(JSON.parse(JSON.stringify(h.engine.snapshot())));
    const fromBytes = Engine.restoreBytes(h.engine.snapshotBytes());
    for (const engine of [fromJson, fromBytes]) {
      expect(engine.snapshotBytes()).toEqual(h.engine.snapshotBytes());
      const again = new Harness(engine);
      again.seq = h.seq;
      const [match] = matches(again.place({ id: 'a1', account: 'A', market: 'Q', tick: 400, size: usd(10) }));
      expect(match?.legs?.map((l) => l.marketHash)).toEqual(['W', 'H']);
    }
  });
});

// ------------------------------------------------------------------------------------ property

type Unstamped = EngineCommand extends infer C ? (C extends unknown ? Omit<C, 'seq' | 'ts'> : never) : never;

const ACCOUNTS = ['A', 'B', 'C'];
const BOOKS = ['Q', 'W', 'H'];
const opArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      k: fc.constant('place' as const),
      who: fc.nat({ max: 2 }),
      book: fc.constantFrom(0, 0, 0, 1, 2),
      one: fc.boolean(),
      tick: fc.constantFrom(2, 300, 399, 400, 401, 500, 798),
      size: fc.integer({ min: 800, max: 40_000 }),
      tif: fc.constantFrom('GTC' as const, 'GTC' as const, 'IOC' as const, 'FOK' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('cancel' as const), pick: fc.nat() }) },
);

/** Independent of the engine: what each account collects from the fills, leg by leg, without refunds. */
class LegLedger {
  readonly net = new Map<string, bigint>();
  private readonly legs = new Map<string, { account: string; one: boolean; stake: bigint; pot: bigint }[]>();

  match(e: OrderMatchedEvent): void {
    const parts: readonly QuarterLineLeg[] = e.legs ?? [
      { marketHash: e.marketHash, makerStake: e.makerStake, takerStake: e.takerStake },
    ];
    expect(parts.reduce((s, p) => s + p.makerStake, 0n)).toBe(e.makerStake);
    expect(parts.reduce((s, p) => s + p.takerStake, 0n)).toBe(e.takerStake);
    for (const p of parts) {
      const pot = p.makerStake + p.takerStake;
      const list = this.legs.get(p.marketHash) ?? [];
      list.push({ account: e.makerAccount, one: e.makerIsBettingOutcomeOne, stake: p.makerStake, pot });
      list.push({ account: e.takerAccount, one: !e.makerIsBettingOutcomeOne, stake: p.takerStake, pot });
      this.legs.set(p.marketHash, list);
    }
  }

  resolve(marketHash: string, outcome: MarketOutcome): void {
    for (const bet of this.legs.get(marketHash) ?? []) {
      const won = outcome === 0 ? bet.stake : (outcome === 1) === bet.one ? bet.pot : 0n;
      this.net.set(bet.account, (this.net.get(bet.account) ?? 0n) + won - bet.stake);
    }
  }
}

describe('quarter-line markets: property', () => {
  it('conserves money after every command; FOK never half fills; legs settle as the fills say', () => {
    let legFills = 0;
    let legRefunds = 0;
    let fokFills = 0;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 200_000 }), { minLength: 3, maxLength: 3 }),
        fc.array(opArb, { minLength: 5, maxLength: 60 }),
        fc.constantFrom<MarketOutcome>(0, 1, 2),
        fc.constantFrom<MarketOutcome>(0, 1, 2),
        fc.boolean(),
        (funds, ops, whole, half, halfFirst) => {
          const engine = new Engine({ ladderSize: 800 });
          const ledger = new LegLedger();
          let seq = 0;
          let deposits = 0n;
          const placed: string[] = [];
          const run = (c: Unstamped) => {
            const events = engine.apply({ ...c, seq: ++seq, ts: 1_000_000 } as EngineCommand);
            for (const e of events) {
              if (e.type === 'orderMatched') {
                ledger.match(e);
                if (e.legs) legFills++;
              } else if (e.type === 'ceRefund' && e.marketHash !== 'Q') {
                legRefunds++;
              } else if (
                e.type === 'orderDone' &&
                c.type === 'place' &&
                c.timeInForce === 'FOK' &&
                e.orderId === c.orderId
              ) {
                // All (but dust smaller than a lot) or nothing; makers it met may end partly filled.
                if (e.filledSize > 0n) {
                  expect(e.remainingSize < 800n).toBe(true);
                  if (c.marketHash === 'Q') fokFills++;
                }
              }
            }
            let money = 0n;
            for (const a of ACCOUNTS) money += engine.balance(a).available + engine.balance(a).escrowed;
            expect(money).toBe(deposits);
            return events;
          };
          run({ type: 'openMarket', marketHash: 'W', eventId: 'E' });
          run({ type: 'openMarket', marketHash: 'H', eventId: 'E' });
          run({ type: 'openMarket', marketHash: 'Q', eventId: 'E', legs: ['W', 'H'] });
          funds.forEach((f, i) => {
            if (f === 0) return;
            deposits += BigInt(f);
            run({ type: 'credit', account: ACCOUNTS[i]!, amount: BigInt(f) });
          });
          for (const op of ops) {
            if (op.k === 'cancel') {
              if (placed.length > 0) run({ type: 'cancel', orderIds: [placed[op.pick % placed.length]!] });
              continue;
            }
            const orderId = `o${seq}`;
            placed.push(orderId);
            run({
              type: 'place',
              orderId,
              account: ACCOUNTS[op.who]!,
              marketHash: BOOKS[op.book]!,
              isBettingOutcomeOne: op.one,
              percentageOdds: engine.ladder.odds[op.tick]!,
              totalBetSize: BigInt(op.size),
              expiry: 2_000_000_000,
              timeInForce: op.tif,
            });
            engine.assertInvariants();
          }
          expect(run({ type: 'resolveMarket', marketHash: 'Q', outcome: 1 })[0]).toMatchObject({
            code: 'QUARTER_LINE_MARKET',
          });
          const results: [string, MarketOutcome][] = [
            ['W', whole],
            ['H', half],
          ];
          if (halfFirst) results.reverse();
          for (const [marketHash, outcome] of results) {
            run({ type: 'resolveMarket', marketHash, outcome });
            ledger.resolve(marketHash, outcome);
          }
          engine.assertInvariants();
          expect(engine.restingOrderCount).toBe(
            placed.filter((id) => engine.order(id)?.marketHash === 'Q').length,
          );
          // Every leg settled: nothing escrowed, each balance its deposit plus what its legs won or lost.
          funds.forEach((f, i) => {
            const a = ACCOUNTS[i]!;
            expect(engine.balance(a)).toEqual({
              available: BigInt(f) + (ledger.net.get(a) ?? 0n),
              escrowed: 0n,
            });
          });
        },
      ),
      { numRuns: 300, endOnFailure: true },
    );
    // The sequences exercise what they check: quarter fills, refunds on the legs, FOK fills on Q.
    expect(legFills).toBeGreaterThan(100);
    expect(legRefunds).toBeGreaterThan(20);
    expect(fokFills).toBeGreaterThan(5);
  });
});
