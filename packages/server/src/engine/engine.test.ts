import { describe, expect, it } from 'vitest';
import { Engine, type EngineOptions } from './engine.js';
import type { OrderDoneEvent, OrderRestedEvent } from './events.js';
import { outcomeState } from './outcome.js';
import { type CommandInput, Harness, only, type PlaceInput, summarize } from './test-support/harness.js';

type Step = PlaceInput | CommandInput;

interface Scenario {
  readonly name: string;
  /** Credits; default A, B and C hold 10^12 each. */
  readonly balances?: Record<string, bigint>;
  readonly given?: readonly Step[];
  readonly when: Step;
  /** Expected event lines (see summarize); filtered to `kinds` when given. */
  readonly expected: readonly string[];
  readonly kinds?: readonly string[];
  readonly after?: (h: Harness) => void;
  /** Engine rules; default the exchange's (honest liquidity on). */
  readonly options?: Omit<EngineOptions, 'ladderSize'>;
}

const RICH = 10n ** 12n;

function run(h: Harness, step: Step) {
  return 'type' in step ? h.apply(step) : h.place(step);
}

function scenarios(title: string, table: readonly Scenario[]): void {
  describe(title, () => {
    it.each(table.map((s) => [s.name, s] as const))('%s', (_name, s) => {
      const h = Harness.standard(s.balances ?? { A: RICH, B: RICH, C: RICH }, s.options);
      for (const step of s.given ?? []) run(h, step);
      const events = run(h, s.when);
      expect(s.kinds === undefined ? summarize(events) : only(events, ...s.kinds)).toEqual(s.expected);
      h.engine.assertInvariants();
      s.after?.(h);
    });
  });
}

scenarios('crossing and price', [
  {
    name: 'a GTC that crosses nothing rests; posting locks nothing, it promises (exposure)',
    balances: { A: 1000n },
    when: { id: 'o1', account: 'A', tick: 400, size: 1000n },
    expected: ['accepted o1', 'rested o1 1000/1000', 'level M one@400=1000/1 v1'],
    after: (h) => {
      expect(h.engine.balance('A')).toEqual({ available: 1000n, escrowed: 0n });
      expect(h.engine.exposure('A')).toBe(1000n);
    },
  },
  {
    name: 'ticks summing to N cross; the taker trades at the maker price in whole lots',
    given: [{ id: 'o1', account: 'A', tick: 500, size: 5000n }],
    when: { id: 'o2', account: 'B', one: false, tick: 300, size: 3000n, tif: 'IOC' },
    expected: [
      'accepted o2',
      'match o1<o2 @500 5000+3000',
      'done o1 FILLED filled=5000 left=0',
      'done o2 FILLED filled=3000 left=0',
      'level M one@500=0/0 v2',
      'balance A 999999995000/5000',
      'balance B 999999997000/3000',
    ],
  },
  {
    name: 'ticks summing to N - 1 do not cross',
    given: [{ id: 'o1', account: 'A', tick: 500, size: 5000n }],
    when: { id: 'o2', account: 'B', one: false, tick: 299, size: 3000n },
    expected: ['accepted o2', 'rested o2 3000/3000', 'level M two@299=3000/1 v2'],
  },
  {
    name: 'a better taker limit still trades at the maker price',
    given: [{ id: 'o1', account: 'A', tick: 400, size: 1000n }],
    when: { id: 'o2', account: 'B', one: false, tick: 700, size: 1000n, tif: 'IOC' },
    kinds: ['match'],
    expected: ['match o1<o2 @400 1000+1000'],
  },
  {
    name: 'better price first, then oldest first; maker dust leaves the book',
    given: [
      { id: 'o1', account: 'A', tick: 400, size: 1000n },
      { id: 'o2', account: 'A', tick: 410, size: 1000n },
      { id: 'o3', account: 'C', tick: 410, size: 1000n },
    ],
    when: { id: 'o4', account: 'B', one: false, tick: 400, size: 2372n, tif: 'IOC' },
    expected: [
      'accepted o4',
      'match o2<o4 @410 984+936',
      'done o2 FILLED filled=984 left=16',
      'match o3<o4 @410 984+936',
      'done o3 FILLED filled=984 left=16',
      'match o1<o4 @400 500+500',
      'done o4 FILLED filled=2372 left=0',
      'level M one@410=0/0 v4',
      'level M one@400=500/1 v4',
      'balance A 999999998516/1484',
      'balance B 999999997628/2372',
      'balance C 999999999016/984',
    ],
  },
]);

scenarios('time in force', [
  {
    name: 'GTC fills what it can and rests the rest (PARTIAL_FILL_RESTED)',
    given: [{ id: 'o1', account: 'A', tick: 400, size: 1000n }],
    when: { id: 'o2', account: 'B', one: false, tick: 400, size: 1500n },
    expected: [
      'accepted o2',
      'match o1<o2 @400 1000+1000',
      'done o1 FILLED filled=1000 left=0',
      'rested o2 500/1500',
      'level M one@400=0/0 v2',
      'level M two@400=500/1 v2',
      'balance A 999999999000/1000',
      'balance B 999999999000/1000',
    ],
  },
  {
    name: 'IOC partly filled cancels the rest (PARTIAL_FILL_DONE)',
    given: [{ id: 'o1', account: 'A', tick: 400, size: 1000n }],
    when: { id: 'o2', account: 'B', one: false, tick: 400, size: 1500n, tif: 'IOC' },
    kinds: ['match', 'done', 'rested'],
    expected: [
      'match o1<o2 @400 1000+1000',
      'done o1 FILLED filled=1000 left=0',
      'done o2 NO_LIQUIDITY filled=1000 left=500',
    ],
  },
  {
    name: 'IOC with nothing to take is cancelled NO_LIQUIDITY',
    when: { id: 'o2', account: 'B', one: false, tick: 400, size: 1500n, tif: 'IOC' },
    expected: ['accepted o2', 'done o2 NO_LIQUIDITY filled=0 left=1500'],
  },
  {
    name: 'FOK that can fill completely fills',
    given: [
      { id: 'o1', account: 'A', tick: 400, size: 1000n },
      { id: 'o3', account: 'C', tick: 400, size: 1000n },
    ],
    when: { id: 'o2', account: 'B', one: false, tick: 400, size: 1500n, tif: 'FOK' },
    kinds: ['match', 'done'],
    expected: [
      'match o1<o2 @400 1000+1000',
      'done o1 FILLED filled=1000 left=0',
      'match o3<o2 @400 500+500',
      'done o2 FILLED filled=1500 left=0',
    ],
  },
  {
    name: 'FOK that cannot fill completely is cancelled whole and the book is untouched',
    given: [{ id: 'o1', account: 'A', tick: 400, size: 1000n }],
    when: { id: 'o2', account: 'B', one: false, tick: 400, size: 1500n, tif: 'FOK' },
    expected: ['accepted o2', 'done o2 NO_LIQUIDITY filled=0 left=1500'],
    after: (h) => expect(h.engine.order('o1')?.remainingSize).toBe(1000n),
  },
  {
    name: "FOK counts the makers' funds (a journal begun before honest liquidity)",
    options: { honestLiquidity: false },
    balances: { A: 800n, B: RICH, C: RICH },
    given: [
      { id: 'o1', account: 'A', tick: 400, size: 1000n },
      { id: 'o3', account: 'C', tick: 400, size: 1000n },
    ],
    when: { id: 'o2', account: 'B', one: false, tick: 400, size: 2000n, tif: 'FOK' },
    expected: ['accepted o2', 'done o2 NO_LIQUIDITY filled=0 left=2000'],
    after: (h) => expect(h.engine.order('o1')?.remainingSize).toBe(1000n),
  },
  {
    name: "FOK counts the taker's funds",
    balances: { A: RICH, B: 1500n, C: RICH },
    given: [
      { id: 'o1', account: 'A', tick: 400, size: 1000n },
      { id: 'o3', account: 'C', tick: 400, size: 1000n },
    ],
    when: { id: 'o2', account: 'B', one: false, tick: 400, size: 2000n, tif: 'FOK' },
    expected: ['accepted o2', 'done o2 INSUFFICIENT_BALANCE filled=0 left=2000'],
  },
  {
    name: 'FOK whose remainder is dust counts as complete',
    given: [{ id: 'o1', account: 'A', tick: 500, size: 10000n }],
    when: { id: 'o2', account: 'B', one: false, tick: 300, size: 3001n, tif: 'FOK' },
    kinds: ['match', 'done'],
    expected: ['match o1<o2 @500 5000+3000', 'done o2 FILLED filled=3000 left=1'],
  },
]);

scenarios('lots and dust', [
  {
    name: 'at tick 500 (lot 5:3) a taker remainder below one lot is dust: the order ends FILLED',
    given: [{ id: 'o1', account: 'A', tick: 500, size: 10000n }],
    when: { id: 'o2', account: 'B', one: false, tick: 300, size: 3001n },
    expected: [
      'accepted o2',
      'match o1<o2 @500 5000+3000',
      'done o2 FILLED filled=3000 left=1',
      'level M one@500=5000/1 v2',
      'balance A 999999995000/5000',
      'balance B 999999997000/3000',
    ],
  },
  {
    name: 'a maker remainder below one lot is dust: the maker leaves FILLED',
    given: [{ id: 'o1', account: 'A', tick: 500, size: 5004n }],
    when: { id: 'o2', account: 'B', one: false, tick: 300, size: 3000n, tif: 'IOC' },
    kinds: ['match', 'done'],
    expected: [
      'match o1<o2 @500 5000+3000',
      'done o1 FILLED filled=5000 left=4',
      'done o2 FILLED filled=3000 left=0',
    ],
  },
  {
    name: 'at tick 1 one lot is 1 maker unit against 799 taker units',
    given: [{ id: 'o1', account: 'A', tick: 1, size: 800n }],
    when: { id: 'o2', account: 'B', one: false, tick: 799, size: 1600n, tif: 'IOC' },
    kinds: ['match', 'done', 'level'],
    expected: ['match o1<o2 @1 2+1598', 'done o2 FILLED filled=1598 left=2', 'level M one@1=798/1 v2'],
  },
  {
    name: 'a GTC remainder below its own maker lot does not rest',
    given: [{ id: 'o1', account: 'A', tick: 401, size: 401n * 3n }],
    // Taker tick 399 (lot 399 taker units at maker tick 401): 1500 = 3 lots of 399 + 303.
    when: { id: 'o2', account: 'B', one: false, tick: 399, size: 1500n },
    kinds: ['match', 'done', 'rested'],
    expected: [
      'match o1<o2 @401 1203+1197',
      'done o1 FILLED filled=1203 left=0',
      'done o2 FILLED filled=1197 left=303',
    ],
  },
]);

scenarios('self-trade prevention', [
  {
    name: "the taker skips its own orders, which keep their place, and takes others' behind them",
    given: [
      { id: 'o1', account: 'A', tick: 410, size: 1000n },
      { id: 'o2', account: 'B', tick: 400, size: 1000n },
    ],
    when: { id: 'o3', account: 'A', one: false, tick: 400, size: 1000n, tif: 'IOC' },
    kinds: ['match', 'done'],
    expected: [
      'match o2<o3 @400 1000+1000',
      'done o2 FILLED filled=1000 left=0',
      'done o3 FILLED filled=1000 left=0',
    ],
    after: (h) => expect(h.engine.bestTick('M', true)).toBe(410),
  },
  {
    name: 'a GTC may rest crossing its own orders only',
    given: [{ id: 'o1', account: 'A', tick: 410, size: 1000n }],
    when: { id: 'o2', account: 'A', one: false, tick: 400, size: 1000n },
    expected: ['accepted o2', 'rested o2 1000/1000', 'level M two@400=1000/1 v2'],
  },
]);

scenarios('funds at match', [
  {
    name: 'a maker without funds is removed and matching goes on (a journal begun before honest liquidity)',
    options: { honestLiquidity: false },
    balances: { A: 0n, B: RICH, C: RICH },
    given: [
      { id: 'o1', account: 'A', tick: 410, size: 1000n },
      { id: 'o2', account: 'C', tick: 400, size: 1000n },
    ],
    when: { id: 'o3', account: 'B', one: false, tick: 400, size: 1000n, tif: 'IOC' },
    kinds: ['match', 'done'],
    expected: [
      'done o1 INSUFFICIENT_BALANCE filled=0 left=1000',
      'match o2<o3 @400 1000+1000',
      'done o2 FILLED filled=1000 left=0',
      'done o3 FILLED filled=1000 left=0',
    ],
  },
  {
    name: 'a maker with some funds fills what it can pay, then leaves (a journal begun before honest liquidity)',
    options: { honestLiquidity: false },
    balances: { A: 300n, B: RICH, C: RICH },
    given: [
      { id: 'o1', account: 'A', tick: 400, size: 1000n },
      { id: 'o2', account: 'C', tick: 400, size: 1000n },
    ],
    when: { id: 'o3', account: 'B', one: false, tick: 400, size: 1000n, tif: 'IOC' },
    kinds: ['match', 'done', 'balance'],
    expected: [
      'match o1<o3 @400 300+300',
      'done o1 INSUFFICIENT_BALANCE filled=300 left=700',
      'match o2<o3 @400 700+700',
      'done o3 FILLED filled=1000 left=0',
      'balance A 0/300',
      'balance B 999999999000/1000',
      'balance C 999999999300/700',
    ],
  },
  {
    name: 'a taker fills what it can pay; its GTC remainder does not rest on a crossed book',
    balances: { A: RICH, B: 600n },
    given: [{ id: 'o1', account: 'A', tick: 400, size: 1000n }],
    when: { id: 'o2', account: 'B', one: false, tick: 400, size: 1000n },
    kinds: ['match', 'done', 'rested'],
    expected: ['match o1<o2 @400 600+600', 'done o2 INSUFFICIENT_BALANCE filled=600 left=400'],
    after: (h) => expect(h.engine.order('o1')?.remainingSize).toBe(400n),
  },
]);

describe('expiry while matching', () => {
  it('removes an expired maker met while matching (EXPIRED) and goes on', () => {
    const h = Harness.standard();
    h.place({ id: 'o1', account: 'A', tick: 400, size: 1000n, expiry: 1001 });
    h.place({ id: 'o2', account: 'C', tick: 400, size: 1000n });
    h.ts = 1_001_000;
    const events = h.place({ id: 'o3', account: 'B', one: false, tick: 400, size: 1000n, tif: 'IOC' });
    expect(only(events, 'match', 'done')).toEqual([
      'done o1 EXPIRED filled=0 left=1000',
      'match o2<o3 @400 1000+1000',
      'done o2 FILLED filled=1000 left=0',
      'done o3 FILLED filled=1000 left=0',
    ]);
  });
});

const odds400 = 50_000_000_000_000_000_000n;
scenarios('rejections', [
  {
    name: 'unknown market',
    when: { id: 'o1', account: 'A', market: 'nope', tick: 400, size: 1000n },
    expected: ['rejected o1 MARKET_NOT_FOUND'],
  },
  {
    name: 'closed market',
    given: [{ type: 'closeMarket', marketHash: 'M2' }],
    when: { id: 'o1', account: 'A', market: 'M2', tick: 400, size: 1000n },
    expected: ['rejected o1 MARKET_CLOSED'],
  },
  {
    name: 'id of a resting order',
    given: [{ id: 'o1', account: 'A', tick: 400, size: 1000n }],
    when: { id: 'o1', account: 'B', tick: 300, size: 1000n },
    expected: ['rejected o1 DUPLICATE_ORDER_ID'],
  },
  ...[odds400 + 1n, 0n, 10n ** 20n, -odds400, 10n ** 21n].map(
    (percentageOdds): Scenario => ({
      name: `odds off the ladder: ${percentageOdds}`,
      when: {
        type: 'place',
        orderId: 'o1',
        account: 'A',
        marketHash: 'M',
        isBettingOutcomeOne: true,
        percentageOdds,
        totalBetSize: 1000n,
        expiry: 2_000_000_000,
        timeInForce: 'GTC',
      },
      expected: ['rejected o1 INVALID_TICK'],
    }),
  ),
  ...[799n, 0n, -5n, 2n ** 64n].map(
    (size): Scenario => ({
      name: `size ${size} (below N units or above 64 bits)`,
      when: { id: 'o1', account: 'A', tick: 400, size },
      expected: ['rejected o1 INVALID_SIZE'],
    }),
  ),
  ...[0, -1, 1.5, Number.NaN, 2 ** 32].map(
    (expiry): Scenario => ({
      name: `expiry ${expiry}`,
      when: { id: 'o1', account: 'A', tick: 400, size: 1000n, expiry },
      expected: ['rejected o1 INVALID_EXPIRY'],
    }),
  ),
  {
    name: 'expiry at or before now',
    when: { id: 'o1', account: 'A', tick: 400, size: 1000n, expiry: 1000 },
    expected: ['rejected o1 ORDER_EXPIRED'],
  },
  {
    name: 'a market opened twice',
    when: { type: 'openMarket', marketHash: 'M', eventId: 'E' },
    expected: ['commandRejected openMarket MARKET_EXISTS'],
  },
  {
    name: 'credit of zero',
    when: { type: 'credit', account: 'A', amount: 0n },
    expected: ['commandRejected credit INVALID_AMOUNT'],
  },
  {
    name: 'debit above the available balance',
    balances: { A: 100n },
    when: { type: 'debit', account: 'A', amount: 101n },
    expected: ['commandRejected debit INSUFFICIENT_BALANCE'],
  },
  {
    name: 'debit of an unknown account',
    when: { type: 'debit', account: 'Z', amount: 1n },
    expected: ['commandRejected debit INSUFFICIENT_BALANCE'],
  },
  {
    name: 'cancel in an unknown market',
    when: { type: 'cancelMarket', marketHash: 'nope', reason: 'USER_REQUESTED' },
    expected: ['commandRejected cancelMarket MARKET_NOT_FOUND'],
  },
  {
    name: 'closing a closed market',
    given: [{ type: 'closeMarket', marketHash: 'M' }],
    when: { type: 'closeMarket', marketHash: 'M' },
    expected: ['commandRejected closeMarket MARKET_CLOSED'],
  },
  {
    name: 'resolving a resolved market',
    given: [{ type: 'resolveMarket', marketHash: 'M', outcome: 1 }],
    when: { type: 'resolveMarket', marketHash: 'M', outcome: 2 },
    expected: ['commandRejected resolveMarket MARKET_RESOLVED'],
  },
  {
    name: 'closing a resolved market',
    given: [{ type: 'resolveMarket', marketHash: 'M', outcome: 1 }],
    when: { type: 'closeMarket', marketHash: 'M' },
    expected: ['commandRejected closeMarket MARKET_RESOLVED'],
  },
  {
    name: 'resolving with an unknown outcome',
    when: { type: 'resolveMarket', marketHash: 'M', outcome: 3 as 1 },
    expected: ['commandRejected resolveMarket INVALID_OUTCOME'],
  },
]);

const book: Step[] = [
  { id: 'o1', account: 'A', market: 'M', tick: 300, size: 1000n },
  { id: 'o2', account: 'B', market: 'M', tick: 300, size: 1000n },
  { id: 'o3', account: 'A', market: 'M2', tick: 300, size: 1000n },
  { id: 'o4', account: 'A', market: 'M', one: false, tick: 200, size: 1000n },
  { id: 'o5', account: 'A', market: 'M3', tick: 300, size: 1000n },
  { id: 'o6', account: 'C', market: 'M2', tick: 300, size: 1000n },
];

scenarios('cancels, expiry and market lifecycle', [
  {
    name: 'cancel by id: the owner cancels, others and unknown ids get NOT_FOUND',
    given: book,
    when: { type: 'cancel', orderIds: ['o1', 'o2', 'zz', 'o1'], account: 'A' },
    kinds: ['done', 'cancelRejected'],
    expected: [
      'done o1 USER_REQUESTED filled=0 left=1000',
      'cancelRejected o2 NOT_FOUND',
      'cancelRejected zz NOT_FOUND',
      'cancelRejected o1 NOT_FOUND',
    ],
  },
  {
    name: "cancel one account's orders in a market, in placement order",
    given: book,
    when: { type: 'cancelMarket', marketHash: 'M', account: 'A', reason: 'USER_REQUESTED' },
    expected: [
      'done o1 USER_REQUESTED filled=0 left=1000',
      'done o4 USER_REQUESTED filled=0 left=1000',
      'level M one@300=1000/1 v4',
      'level M two@200=0/0 v4',
    ],
  },
  {
    name: 'cancel a whole event: its markets in opening order, orders in placement order',
    given: book,
    when: { type: 'cancelEvent', eventId: 'E', reason: 'SYSTEM' },
    kinds: ['done'],
    expected: [
      'done o1 SYSTEM filled=0 left=1000',
      'done o2 SYSTEM filled=0 left=1000',
      'done o4 SYSTEM filled=0 left=1000',
      'done o3 SYSTEM filled=0 left=1000',
      'done o6 SYSTEM filled=0 left=1000',
    ],
  },
  {
    name: 'heartbeat timeout cancels all of an account',
    given: book,
    when: { type: 'cancelAccount', account: 'A', reason: 'HEARTBEAT_TIMEOUT' },
    kinds: ['done'],
    expected: [
      'done o1 HEARTBEAT_TIMEOUT filled=0 left=1000',
      'done o3 HEARTBEAT_TIMEOUT filled=0 left=1000',
      'done o4 HEARTBEAT_TIMEOUT filled=0 left=1000',
      'done o5 HEARTBEAT_TIMEOUT filled=0 left=1000',
    ],
  },
  {
    name: 'expire removes orders with expiry <= now, earliest expiry first, then oldest',
    given: [
      { id: 'o1', account: 'A', tick: 300, size: 1000n, expiry: 1005 },
      { id: 'o2', account: 'B', tick: 300, size: 1000n, expiry: 1003 },
      { id: 'o3', account: 'A', tick: 301, size: 1000n, expiry: 1003 },
      { id: 'o4', account: 'C', tick: 300, size: 1000n, expiry: 1006 },
    ],
    when: { type: 'expire', ts: 1_005_999 },
    kinds: ['done'],
    expected: [
      'done o2 EXPIRED filled=0 left=1000',
      'done o3 EXPIRED filled=0 left=1000',
      'done o1 EXPIRED filled=0 left=1000',
    ],
    after: (h) => expect(h.engine.order('o4')).toBeDefined(),
  },
  {
    name: 'closing a market cancels its orders (EVENT_LIFECYCLE)',
    given: book,
    when: { type: 'closeMarket', marketHash: 'M2' },
    kinds: ['closed', 'done'],
    expected: [
      'closed M2',
      'done o3 EVENT_LIFECYCLE filled=0 left=1000',
      'done o6 EVENT_LIFECYCLE filled=0 left=1000',
    ],
  },
]);

const matched: Step[] = [
  { id: 'o1', account: 'A', tick: 500, size: 10000n },
  { id: 'o2', account: 'B', one: false, tick: 300, size: 3000n, tif: 'IOC' },
];
scenarios('resolution', [
  {
    name: 'outcome 1 pays each pot to the outcome-one side and cancels the open orders',
    given: matched,
    when: { type: 'resolveMarket', marketHash: 'M', outcome: 1 },
    expected: [
      'resolved M 1',
      'done o1 EVENT_LIFECYCLE filled=5000 left=5000',
      'payout A stake=5000 payout=8000',
      'payout B stake=3000 payout=0',
      'level M one@500=0/0 v3',
      'balance A 1000000003000/0',
      'balance B 999999997000/0',
    ],
  },
  {
    name: 'outcome 2 pays the outcome-two side',
    given: matched,
    when: { type: 'resolveMarket', marketHash: 'M', outcome: 2 },
    kinds: ['payout', 'balance'],
    expected: [
      'payout A stake=5000 payout=0',
      'payout B stake=3000 payout=8000',
      'balance A 999999995000/0',
      'balance B 1000000005000/0',
    ],
  },
  {
    name: 'void (0) refunds both stakes',
    given: matched,
    when: { type: 'resolveMarket', marketHash: 'M', outcome: 0 },
    kinds: ['payout', 'balance'],
    expected: [
      'payout A stake=5000 payout=5000',
      'payout B stake=3000 payout=3000',
      'balance A 1000000000000/0',
      'balance B 1000000000000/0',
    ],
  },
  {
    name: 'a resolved market refuses orders',
    given: [{ type: 'resolveMarket', marketHash: 'M', outcome: 1 }],
    when: { id: 'o1', account: 'A', tick: 400, size: 1000n },
    expected: ['rejected o1 MARKET_CLOSED'],
  },
]);

describe('money past 64 bits', () => {
  it('keeps balances, escrow and positions exact past 2^64, through resolution and a snapshot', () => {
    const huge = 1n << 70n;
    const h = Harness.standard({ A: huge, B: huge });
    const max = (1n << 64n) - 1n;
    // Three fills of nearly 2^64 each side: stakes, pots and escrow all pass 2^64.
    for (let i = 0; i < 3; i++) {
      h.place({ id: `m${i}`, account: 'A', tick: 400, size: max });
      h.place({ id: `t${i}`, account: 'B', one: false, tick: 400, size: max, tif: 'IOC' });
      h.engine.assertInvariants();
    }
    expect(h.engine.balance('A')).toEqual({ available: huge - 3n * max, escrowed: 3n * max });
    expect(h.engine.position('M', 'A')).toEqual({
      stakeOnOutcomeOne: 3n * max,
      stakeOnOutcomeTwo: 0n,
      payoutIfOutcomeOne: 6n * max,
      payoutIfOutcomeTwo: 0n,
      refunded: 0n,
    });
    const restored = Engine.restore(JSON.parse(JSON.stringify(h.engine.snapshot())));
    expect(restored.snapshot()).toEqual(h.engine.snapshot());
    expect(Engine.restoreBytes(h.engine.snapshotBytes()).snapshot()).toEqual(h.engine.snapshot());
    h.apply({ type: 'credit', account: 'C', amount: huge * huge });
    expect(h.engine.balance('C')).toEqual({ available: huge * huge, escrowed: 0n });
    h.apply({ type: 'debit', account: 'C', amount: huge * huge - 5n });
    expect(h.engine.balance('C')).toEqual({ available: 5n, escrowed: 0n });
    const events = h.apply({ type: 'resolveMarket', marketHash: 'M', outcome: 1 });
    expect(only(events, 'payout')).toEqual([
      `payout A stake=${3n * max} payout=${6n * max}`,
      `payout B stake=${3n * max} payout=0`,
    ]);
    expect(h.engine.balance('A')).toEqual({ available: huge + 3n * max, escrowed: 0n });
    expect(h.engine.balance('B')).toEqual({ available: huge - 3n * max, escrowed: 0n });
    expect(h.engine.position('M', 'A')).toBeUndefined();
    h.engine.assertInvariants();
  });
});

describe('at scale', () => {
  it('finds every resting order among tens of thousands (index growth, real ids, cancels and fills)', () => {
    const h = Harness.standard();
    let state = 7;
    // A small LCG: integers only, as the engine's lint asks.
    const below = (n: number) => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state % n;
    };
    const idOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
    const live = new Set<string>();
    let next = 0;
    for (let i = 0; i < 100_000; i++) {
      const roll = below(100);
      if (i > 30_000 && roll < 40) {
        const id = idOf(below(next));
        const events = h.apply({ type: 'cancel', orderIds: [id], account: live.has(id) ? 'A' : 'B' });
        expect(events.some((e) => e.type === 'cancelRejected')).toBe(!live.has(id));
        live.delete(id);
        continue;
      }
      // Makers on both sides that never cross each other; now and then a taker sweeps the best level.
      const taker = roll >= 95;
      const one = taker || below(2) === 0;
      const events = h.place({
        id: idOf(next++),
        account: taker ? 'C' : 'A',
        one,
        tick: taker ? 460 : one ? 300 + below(50) : 400 + below(50),
        size: taker ? 5_000_000n : 1_000_000n,
        tif: taker ? 'IOC' : 'GTC',
      });
      for (const e of events) {
        if (e.type === 'orderRested') live.add(e.orderId);
        if (e.type === 'orderDone') live.delete(e.orderId);
      }
    }
    expect(h.engine.restingOrderCount).toBe(live.size);
    expect(live.size).toBeGreaterThan(20_000);
    h.engine.assertInvariants();
  });
});

describe('read helpers', () => {
  it('describe orders, levels, best ticks, balances, positions and versions', () => {
    const h = Harness.standard();
    h.place({ id: 'o1', account: 'A', tick: 400, size: 1000n });
    h.place({ id: 'o2', account: 'A', tick: 410, size: 2000n });
    h.place({ id: 'o3', account: 'B', tick: 400, size: 3000n });
    h.place({ id: 'o4', account: 'C', one: false, tick: 200, size: 500n * 2n });
    h.place({ id: 'o5', account: 'C', one: false, tick: 390, size: 1000n, tif: 'IOC' });
    const e = h.engine;
    expect(e.levels('M')).toEqual({
      marketHash: 'M',
      eventId: 'E',
      outcomeOne: [
        { tick: 410, percentageOdds: 51_250_000_000_000_000_000n, size: 975n, orders: 1 },
        { tick: 400, percentageOdds: 50_000_000_000_000_000_000n, size: 4000n, orders: 2 },
      ],
      outcomeTwo: [{ tick: 200, percentageOdds: 25_000_000_000_000_000_000n, size: 1000n, orders: 1 }],
      version: 5,
    });
    expect(e.levels('M', 1)?.outcomeOne).toHaveLength(1);
    expect(e.levels('nope')).toBeUndefined();
    expect(e.bestTick('M', true)).toBe(410);
    expect(e.bestTick('M', false)).toBe(200);
    expect(e.bestTick('M2', true)).toBe(0);
    expect(e.bookVersion('M')).toBe(5);
    expect(e.order('o2')).toEqual({
      orderId: 'o2',
      account: 'A',
      marketHash: 'M',
      eventId: 'E',
      isBettingOutcomeOne: true,
      tick: 410,
      percentageOdds: 51_250_000_000_000_000_000n,
      totalBetSize: 2000n,
      filledSize: 1025n,
      remainingSize: 975n,
      expiry: 2_000_000_000,
      placedSeq: 8,
    });
    expect(e.order('o5')).toBeUndefined();
    expect(e.openOrders('A').map((o) => o.orderId)).toEqual(['o1', 'o2']);
    expect(e.openOrders('nobody')).toEqual([]);
    expect(e.balance('A')).toEqual({ available: RICH - 1025n, escrowed: 1025n });
    expect(e.balance('nobody')).toEqual({ available: 0n, escrowed: 0n });
    expect(e.position('M', 'C')).toEqual({
      stakeOnOutcomeOne: 0n,
      stakeOnOutcomeTwo: 975n,
      payoutIfOutcomeOne: 0n,
      payoutIfOutcomeTwo: 2000n,
      refunded: 0n,
    });
    expect(e.market('M')).toEqual({
      marketHash: 'M',
      eventId: 'E',
      status: 'open',
      version: 5,
      restingOrders: 4,
    });
    expect(e.restingOrderCount).toBe(4);
    expect(e.lastAppliedSeq).toBe(h.seq);
  });

  it('reports each changed level once per command with a version that increases per market', () => {
    const h = Harness.standard();
    const v: number[] = [];
    for (let i = 0; i < 5; i++) {
      const events = h.place({ id: `o${i}`, account: 'A', tick: 400, size: 1000n });
      v.push(...events.flatMap((x) => (x.type === 'levelChanged' ? [x.version] : [])));
    }
    expect(v).toEqual([1, 2, 3, 4, 5]);
    const sweep = h.place({ id: 'x', account: 'B', one: false, tick: 400, size: 5000n, tif: 'IOC' });
    expect(only(sweep, 'level')).toEqual(['level M one@400=0/0 v6']);
  });
});

describe('outcome state', () => {
  it.each([
    ['RESTED', 0n, { id: 't', account: 'B', one: false, tick: 400, size: 1500n }],
    ['PARTIAL_FILL_RESTED', 1000n, { id: 't', account: 'B', one: false, tick: 400, size: 1500n }],
    ['FULLY_FILLED', 1000n, { id: 't', account: 'B', one: false, tick: 400, size: 800n, tif: 'IOC' }],
    ['PARTIAL_FILL_DONE', 1000n, { id: 't', account: 'B', one: false, tick: 400, size: 1500n, tif: 'IOC' }],
    ['CANCELLED', 0n, { id: 't', account: 'B', one: false, tick: 400, size: 1500n, tif: 'IOC' }],
  ] as const)('%s', (state, resting, taker) => {
    const h = Harness.standard();
    if (resting > 0n) h.place({ id: 'm', account: 'A', tick: 400, size: resting });
    const final = h
      .place(taker)
      .find(
        (e): e is OrderRestedEvent | OrderDoneEvent =>
          (e.type === 'orderRested' || e.type === 'orderDone') && e.orderId === 't',
      )!;
    expect(outcomeState(final)).toBe(state);
  });
});

describe('contract', () => {
  it('throws when seq does not increase (a sequencer bug, not a rejection)', () => {
    const engine = new Engine();
    engine.apply({ type: 'openMarket', seq: 5, ts: 0, marketHash: 'M', eventId: 'E' });
    expect(() => engine.apply({ type: 'expire', seq: 5, ts: 0 })).toThrow(RangeError);
    expect(() => engine.apply({ type: 'expire', seq: 4.5, ts: 0 })).toThrow(RangeError);
  });

  it('refuses a ladder whose ticks have no exact percentageOdds', () => {
    expect(() => new Engine({ ladderSize: 3 })).toThrow(RangeError);
    expect(() => new Engine({ ladderSize: 70_000 })).toThrow(RangeError);
  });
});
