import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OrderRecord } from '../records/records.js';
import { compareWithJournal } from '../sequencer/recovery.js';
import { Projector } from './projector.js';
import { type PortsUnderTest, storesUnderTest } from './test-support/stores-under-test.js';
import { A, B, C, everyRead, LADDER, M, M2, TradingScenario, USDC } from './test-support/trading-scenario.js';
import { fillListing, orderListing, type SortKey, tradeListing } from './trading-reads.js';

const stores = await storesUnderTest();
const all = { limit: 100, after: null };

describe.each(stores)('the trading projections on $name', (store) => {
  let ports: PortsUnderTest;
  let scenario: TradingScenario;
  beforeEach(async () => {
    ports = await store.open();
    scenario = await TradingScenario.run(ports);
  });
  afterEach(() => ports.close());

  it('mirror the engine exactly, as the journal replays it', async () => {
    const cursor = await ports.projections.cursor();
    expect(cursor).toBe(scenario.entries.at(-1)!.seq);
    const expected = scenario.engine.snapshot();
    expect(await ports.projections.engineSnapshot(LADDER, expected.lastSeq)).toEqual(expected);
    const compared = await compareWithJournal(ports.journal, ports.projections, cursor, LADDER);
    expect(compared.projectionsHash).toBe(compared.journalHash);
    expect(compared.replayedCommands).toBeGreaterThan(10);
  });

  it('answer orders, fills and trades as they show: pending, cancelled, locked, failed, settled', async () => {
    const { reads } = ports;
    const delayed = await reads.getOrderByClientId(A, 'tag-2');
    expect(delayed).toMatchObject({ status: 'PENDING', totalBetSize: (20n * USDC).toString() });
    const open = await reads.orders(A, {}, orderListing('createdAt', true), all);
    expect(open.map((o) => o.status)).toEqual(['PENDING']);
    const rested = (await reads.getOrderByClientId(A, 'tag-1'))!;
    expect(rested).toMatchObject({ status: 'INACTIVE', filledSize: (15n * USDC).toString() });
    // A's ended orders, newest first (a tie by id, descending): the cancel, the hedge's two takes, and the
    // order that rested on M, closed with its market after 15 matched. The pending order is not among them.
    const newestFirst = orderListing('createdAt', false, 'ended');
    const ended = await reads.orders(A, {}, newestFirst, all);
    expect(ended.map((o) => [o.marketHash, o.status, o.inactiveReason, o.filledSize])).toEqual([
      [M2, 'INACTIVE', 'USER_REQUESTED', '0'],
      [M2, 'INACTIVE', 'FILLED', (100n * USDC).toString()],
      [M2, 'INACTIVE', 'FILLED', (100n * USDC).toString()],
      [M, 'INACTIVE', 'EVENT_LIFECYCLE', (15n * USDC).toString()],
    ]);
    expect(ended[1]!.id > ended[2]!.id).toBe(true);
    expect(ended.at(-1)!.id).toBe(rested.id);
    const onePerPage: OrderRecord[] = [];
    for (let after: SortKey | null = null; ; ) {
      const page = await reads.orders(A, {}, newestFirst, { limit: 1, after });
      if (page.length === 0) break;
      onePerPage.push(...page);
      after = newestFirst.keyOf(page[0]!);
    }
    expect(onePerPage).toEqual(ended);
    expect(await reads.orders(A, { marketHash: M }, newestFirst, all)).toEqual([rested]);
    expect(
      await reads.orders(A, { eventId: 'L1000002' }, orderListing('createdAt', true, 'ended'), all),
    ).toEqual([ended[2], ended[1], ended[0]]);
    // B's first fill (with C) failed on the chain and was reversed; its second order's fills are settled
    // (M resolved for outcome one, B bet outcome two: nothing to pay).
    const bFills = await reads.fills(B, {}, fillListing(true), all);
    expect(bFills.map((f) => [f.fillAmount, f.status])).toEqual([
      [(10n * USDC).toString(), 'FAILED'],
      [(5n * USDC).toString(), 'SETTLED'],
      [(15n * USDC).toString(), 'SETTLED'],
      [(100n * USDC).toString(), 'LOCKED'],
    ]);
    expect(await reads.fills(B, { orderId: bFills[1]!.orderId }, fillListing(false), all)).toEqual([
      bFills[2],
      bFills[1],
    ]);
    // C's trade on M had a fill reversed: FAILED, whatever it won.
    const cTrades = await reads.trades(C, {}, tradeListing(true), all);
    expect(cTrades.map((t) => [t.marketHash, t.status])).toEqual([
      [M, 'FAILED'],
      [M2, 'LOCKED'],
    ]);
    // A won on M: SETTLED once its payout landed (block 3), with its pot.
    const aTrades = await reads.trades(A, { marketHash: M }, tradeListing(true), all);
    expect(aTrades).toHaveLength(1);
    expect(aTrades[0]).toMatchObject({
      status: 'SETTLED',
      outcome: 1,
      updatedAt: scenario.batches.get('block 3')!.ts,
    });
    expect(aTrades[0]!.payout).toBe(aTrades[0]!.pot);
    expect(await reads.paidPayouts(1, 1_000, scenario.batches.get('block 3')!.ts)).toEqual([
      { marketHash: M, account: A },
    ]);
    const locked = await reads.trades(A, { status: ['LOCKED'] }, tradeListing(true), all);
    expect(locked.map((t) => t.marketHash)).toEqual([M2, M2]);
    expect(locked.every((t) => t.marketHasRefunds)).toBe(true);
    expect(await reads.settlements()).toEqual([{ marketHash: M, outcome: 1 }]);
    // A value no row can hold (PostgreSQL text has no NUL) matches nothing, on every store.
    expect(await reads.fills(A, { orderId: 'o\u0000' }, fillListing(true), all)).toEqual([]);
    expect(await reads.getOrderByClientId(A, 'tag-1\u0000')).toBeNull();
    expect(await reads.trades(A, { marketHash: `${M}\u0000` }, tradeListing(true), all)).toEqual([]);
    const noRefunds = { sortAsc: true, offset: 0, limit: 5, eventsOffset: 0, eventsLimit: 5 };
    expect(await reads.refunds(A, { fillId: '\u0000' }, noRefunds)).toEqual({ markets: [], count: 0 });
  });

  it('keep refunds, positions, and what the settlement driver reads back', async () => {
    const { reads, feed } = ports;
    const refunds = await reads.refunds(
      A,
      {},
      { sortAsc: true, offset: 0, limit: 10, eventsOffset: 0, eventsLimit: 10 },
    );
    expect(refunds.count).toBe(1);
    expect(refunds.markets[0]).toMatchObject({
      marketHash: M2,
      totalRefunded: (200n * USDC).toString(),
      eventCount: 1,
    });
    const positions = await reads.positions(A, {}, all);
    expect(positions.map((p) => [p.marketHash, p.eventId, p.refunded])).toEqual([
      [M2, 'L1000002', (200n * USDC).toString()],
    ]);
    // The deposit to C that failed waits to be submitted again, its amount a bigint again.
    const outstanding = await feed.outstanding();
    expect(outstanding).toHaveLength(1);
    expect(outstanding[0]).toMatchObject({
      kind: 'deposit',
      moves: [{ kind: 'mint', amount: 1_000n * USDC }],
    });
    expect(await feed.projectedBlock()).toBe(4);
    const balances = await feed.balances();
    for (const account of [A, B, C]) {
      const engine = scenario.engine.balance(account);
      expect(balances.get(account)).toMatchObject({ available: engine.available, escrowed: engine.escrowed });
    }
  });

  it('project nothing twice, and follow on after a restart', async () => {
    const before = await everyRead(ports, scenario);
    ports = await ports.reopen();
    const projector = await Projector.open(ports.projections);
    expect(projector.cursor()).toBe(scenario.entries.at(-1)!.seq);
    expect(await projector.project(scenario.entries)).toEqual([]);
    expect(await everyRead(ports, scenario)).toEqual(before);
  });
});

describe('the trading projections on every store', () => {
  it.skipIf(stores.length < 2)('answer every read alike', async () => {
    const answers = [];
    for (const store of stores) {
      const ports = await store.open();
      answers.push(await everyRead(ports, await TradingScenario.run(ports)));
      await ports.close();
    }
    expect(
      JSON.stringify(answers[0], (_, v) => (typeof v === 'bigint' ? `${v}n` : v)).length,
    ).toBeGreaterThan(20_000);
    for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);
  });
});
