import { describe, expect, it } from 'vitest';
import type { SettleTx } from '../chain/chain-types.js';
import { fillsOf } from '../engine/index.js';
import { differenceUnits } from './reconcile.js';
import { DriverRig } from './test-support.js';

const usd = (x: number) => BigInt(x) * 1_000_000n;

/** The settlement transactions mined so far that carried the item, as retry or in their window. */
async function submissionsOf(rig: DriverRig, id: string): Promise<number> {
  return (await rig.chain.receiptsBetween(0, rig.chain.headNumber(), 'settle')).filter((r) =>
    [...(r.tx as SettleTx).retries, ...(r.tx as SettleTx).items].some((i) => i.id === id),
  ).length;
}

/** The chain holds what the engine says, wallet by wallet and in the pool, and reconciliation agrees. */
async function expectExact(rig: DriverRig, accounts: readonly string[]): Promise<void> {
  const { engine, chain } = await rig.books(accounts);
  expect(chain).toEqual(engine);
  const report = await rig.reconcile();
  expect(report.differences).toEqual([]);
  expect(differenceUnits(report)).toBe(0n);
  expect(rig.errors).toEqual([]);
}

/** Every settlement transaction mined is journaled once, in chain order. */
async function expectReceiptsJournaledOnce(rig: DriverRig): Promise<void> {
  const mined = await rig.chain.receiptsBetween(0, rig.chain.headNumber(), 'settle');
  const journaled = rig.journal.flatMap((e) => (e.input.kind === 'settlement' ? e.input.txs : []));
  expect(journaled.map((tx) => [tx.firstSeq, tx.lastSeq])).toEqual(
    mined.map((r) => [(r.tx as SettleTx).firstSeq, (r.tx as SettleTx).lastSeq]),
  );
}

describe('settlement driver: in journal order', () => {
  it('a hedge paid by its own refunds needs no more in the wallet than the engine allowed', async () => {
    const rig = await DriverRig.start();
    rig.credit('A', usd(110));
    rig.credit('B', usd(1_000));
    rig.credit('C', usd(1_000));
    rig.place({ id: 'b', account: 'B', one: false, tick: 400, size: usd(100) });
    rig.place({ id: 'a1', account: 'A', tick: 400, size: usd(100), tif: 'IOC' });
    rig.place({ id: 'c', account: 'C', tick: 400, size: usd(100) });
    const hedge = fillsOf(
      rig.place({ id: 'a2', account: 'A', one: false, tick: 400, size: usd(100), tif: 'IOC' }),
    );
    expect(hedge).toHaveLength(4);
    expect(await rig.settle()).toBe(true);
    expect(rig.journal.some((e) => e.input.kind === 'engine' && e.input.command.type === 'reverseFill')).toBe(
      false,
    );
    await expectExact(rig, ['A', 'B', 'C']);
    // C's bet wins: its payout comes out of a pool that A's refunds never dipped into.
    rig.run({ type: 'closeMarket', marketHash: 'M' });
    expect(await rig.settle()).toBe(true);
    rig.run({ type: 'resolveMarket', marketHash: 'M', outcome: 1 });
    expect(await rig.settle()).toBe(true);
    expect(rig.h.engine.balance('C').available).toBe(usd(1_100));
    await expectExact(rig, ['A', 'B', 'C']);
  });

  it('a deposit and the bet it funds, in consecutive seqs: a failed deposit holds the bet back until it lands', async () => {
    const rig = await DriverRig.start();
    rig.credit('B', usd(100));
    rig.place({ id: 'b', account: 'B', one: false, tick: 400, size: usd(100) });
    expect(await rig.settle()).toBe(true);
    await rig.chain.failNextSettlementItems('deposit', 2);
    rig.credit('A', usd(100));
    rig.place({ id: 'a', account: 'A', tick: 400, size: usd(100), tif: 'IOC' });
    expect(await rig.settle()).toBe(true);
    expect(await submissionsOf(rig, `deposit:${rig.h.seq - 4}`)).toBe(3);
    expect(rig.journal.some((e) => e.input.kind === 'engine' && e.input.command.type === 'reverseFill')).toBe(
      false,
    );
    await expectExact(rig, ['A', 'B']);
  });
});

describe('settlement driver: throughput', () => {
  it('every batch committed while a transaction is under way goes in the next one: two blocks for twenty', async () => {
    const rig = await DriverRig.start();
    const before = rig.chain.headNumber();
    rig.credit('A', usd(1_000));
    await rig.turns();
    expect(rig.driver.backlog().inFlight).toBe(1);
    // Twenty batches more (each its own commit): ten deposits and five bets each filled by the next.
    for (let i = 0; i < 5; i++) {
      rig.credit('B', usd(10));
      rig.credit('C', usd(10));
      rig.place({ id: `b${i}`, account: 'B', tick: 400, size: usd(10) });
      rig.place({ id: `c${i}`, account: 'C', one: false, tick: 400, size: usd(10), tif: 'IOC' });
    }
    await rig.turns();
    expect(rig.driver.backlog()).toMatchObject({ inFlight: 1, queuedItems: 15 });
    expect(await rig.settle()).toBe(true);
    const settles = await rig.chain.receiptsBetween(before, rig.chain.headNumber(), 'settle');
    expect(settles.map((r) => (r.tx as SettleTx).items.length)).toEqual([1, 15]);
    expect(rig.chain.headNumber() - before).toBe(2);
    await expectExact(rig, ['A', 'B', 'C']);
  });
});

describe('settlement driver: crashes', () => {
  it('a crash between a block and its receipts, the chain started again too: they are journaled once', async () => {
    const rig = await DriverRig.start();
    rig.credit('A', usd(50));
    rig.credit('B', usd(50));
    rig.place({ id: 'b', account: 'B', one: false, tick: 400, size: usd(50) });
    rig.place({ id: 'a', account: 'A', tick: 400, size: usd(50), tif: 'IOC' });
    await rig.chain.failNextSettlementItems('escrow', 1);
    await rig.crashAfterBlock({ chain: true });
    expect(await rig.settle()).toBe(true);
    await expectReceiptsJournaledOnce(rig);
    const reversals = rig.journal.filter(
      (e) => e.input.kind === 'engine' && e.input.command.type === 'reverseFill',
    );
    expect(reversals).toHaveLength(1);
    await expectExact(rig, ['A', 'B']);
  });

  it('a start with a backlog: a transaction under way, entries never submitted, items to submit again', async () => {
    const rig = await DriverRig.start();
    rig.credit('A', usd(50));
    rig.credit('B', usd(50));
    expect(await rig.settle()).toBe(true);
    // D's deposit fails: it is to submit again, and its retry is under way at the crash; A's bet, C's deposit
    // and C's bet are committed, never submitted.
    await rig.chain.failNextSettlementItems('deposit', 1);
    rig.credit('D', usd(10));
    await rig.block();
    expect(rig.driver.backlog()).toMatchObject({ outstandingItems: 1, inFlight: 1 });
    rig.place({ id: 'a', account: 'A', one: false, tick: 400, size: usd(50) });
    rig.credit('C', usd(50));
    rig.place({ id: 'c', account: 'C', tick: 400, size: usd(50), tif: 'IOC' });
    await rig.turns();
    expect(rig.driver.backlog().queuedItems).toBe(2);
    await rig.restartDriver({ chain: true });
    expect(await rig.settle()).toBe(true);
    await expectReceiptsJournaledOnce(rig);
    await expectExact(rig, ['A', 'B', 'C', 'D']);
  });
});

describe('settlement driver: a start with receipts mined and not journaled', () => {
  it('journals them before it submits anything, and counts only its own transactions under way', async () => {
    const rig = await DriverRig.start();
    rig.credit('A', usd(50));
    rig.credit('B', usd(50));
    expect(await rig.settle()).toBe(true);
    // A's deposit fails in the transaction the crash leaves mined and not journaled; B's bet after it is
    // skipped; C's deposit and bet come while it is under way, never submitted.
    await rig.chain.failNextSettlementItems('deposit', 1);
    rig.credit('A', usd(10));
    rig.place({ id: 'b', account: 'B', one: false, tick: 400, size: usd(50) });
    await rig.turns();
    rig.credit('C', usd(50));
    rig.place({ id: 'c', account: 'C', tick: 400, size: usd(50), tif: 'IOC' });
    const last = rig.h.seq;
    await rig.crashAfterBlock();
    // The receipt is journaled first: the retries go alone, before the entries after them.
    const pending = rig.chain.pendingSettlements();
    expect(pending.map((tx) => [tx.retries.map((i) => i.id), tx.items.length])).toEqual([
      [[`deposit:${last - 3}`], 0],
    ]);
    expect(rig.driver.backlog()).toMatchObject({ inFlight: 1, outstandingItems: 1, queuedItems: 2 });
    expect(rig.driver.isSettled(last)).toBe(false);
    expect(await rig.settle()).toBe(true);
    await expectReceiptsJournaledOnce(rig);
    await expectExact(rig, ['A', 'B', 'C']);
  });

  it('a resolution waits for the fills of a window submitted before the crash and mined after', async () => {
    const rig = await DriverRig.start();
    rig.credit('B', usd(50));
    rig.credit('C', usd(50));
    expect(await rig.settle()).toBe(true);
    rig.credit('A', usd(1));
    await rig.turns();
    // C's bet on M comes while A's deposit is under way; the crash leaves the deposit's receipt unjournaled.
    rig.place({ id: 'b', account: 'B', one: false, tick: 400, size: usd(50) });
    rig.place({ id: 'c', account: 'C', tick: 400, size: usd(50), tif: 'IOC' });
    await rig.crashAfterBlock();
    rig.run({ type: 'closeMarket', marketHash: 'M' });
    const closed = rig.h.seq;
    await rig.turns();
    // The bet's window is under way: the market's fills are not settled until its receipt.
    expect(rig.chain.pendingSettlements()).toHaveLength(1);
    expect(rig.driver.isSettled(closed)).toBe(false);
    await rig.chain.failNextSettlementItems('escrow', 1);
    expect(await rig.settle()).toBe(true);
    expect(rig.driver.isSettled(closed)).toBe(true);
    rig.run({ type: 'resolveMarket', marketHash: 'M', outcome: 1 });
    expect(await rig.settle()).toBe(true);
    // The fill failed and was reversed before the resolution: C's bet never paid out.
    expect(rig.h.engine.balance('C')).toEqual({ available: usd(50), escrowed: 0n });
    await expectExact(rig, ['A', 'B', 'C']);
  });
});

describe('settlement driver: items to submit again', () => {
  it('a fill skipped behind a failed deposit that fails when retried is reversed once and never submitted again', async () => {
    const rig = await DriverRig.start();
    rig.credit('B', usd(49));
    rig.credit('C', usd(1));
    rig.place({ id: 'b', account: 'B', one: false, tick: 300, size: usd(1) });
    rig.place({ id: 'c', account: 'C', one: true, tick: 500, size: usd(1) });
    // The first transaction stops at B's deposit (the rest skipped); the retry lands both deposits, and the
    // fill's escrow fails there, three times over if it were submitted again.
    await rig.chain.failNextSettlementItems('deposit', 1);
    await rig.chain.failNextSettlementItems('escrow', 3);

    expect(await rig.settle()).toBe(true);
    const reversals = rig.journal.filter(
      (e) => e.input.kind === 'engine' && e.input.command.type === 'reverseFill',
    );
    expect(reversals).toHaveLength(1);
    expect(reversals[0]!.events.some((e) => e.type === 'fillReversed')).toBe(true);
    // In the first transaction (skipped) and its retry (failed, final): never after its reversal.
    expect(await submissionsOf(rig, 'fill:7-0')).toBe(2);
    expect(rig.chain.faults().failSettlementItems.escrow).toBe(2);
    expect(rig.h.engine.balance('B')).toEqual({ available: usd(49), escrowed: 0n });
    await expectExact(rig, ['B', 'C']);
    // Nor after a start: the projections do not keep it to submit again, nor hold B's and C's fills below it.
    expect(rig.db.prepare('SELECT id FROM settlement_outstanding').pluck().all()).toEqual([]);
    const locks = rig.db
      .prepare('SELECT account, through_seq FROM escrow_locks ORDER BY account')
      .raw()
      .all();
    expect(locks).toEqual([
      ['B', 7],
      ['C', 7],
    ]);
    await rig.restartDriver();
    expect(await rig.settle()).toBe(true);
    expect(await submissionsOf(rig, 'fill:7-0')).toBe(2);
    await expectExact(rig, ['B', 'C']);
  });
});

describe('settlement driver: reversals', () => {
  it('fills of one hedge that all fail are reversed to the unit, not retried for ever', async () => {
    const rig = await DriverRig.start();
    rig.credit('B', usd(94));
    // E makes both sides of M2; F's bet against E on M3 keeps the shared escrow pool deep.
    rig.credit('E', usd(10_000_000));
    rig.credit('F', usd(1_000_000));
    rig.place({ id: 'e1', account: 'E', market: 'M2', one: true, tick: 400, size: usd(400_000) });
    rig.place({ id: 'e2', account: 'E', market: 'M2', one: false, tick: 400, size: usd(400_000) });
    rig.place({ id: 'e3', account: 'E', market: 'M3', one: false, tick: 400, size: usd(400_000) });
    rig.place({ id: 'f', account: 'F', market: 'M3', tick: 400, size: usd(100_000), tif: 'IOC' });
    expect(await rig.settle()).toBe(true);
    // B lays 48, then backs 48 in two fills paid by their refunds; the three escrows fail.
    const legs = [
      ...fillsOf(
        rig.place({ id: 'b1', account: 'B', market: 'M2', one: false, tick: 400, size: usd(48), tif: 'IOC' }),
      ),
      ...fillsOf(
        rig.place({ id: 'b2', account: 'B', market: 'M2', one: true, tick: 400, size: usd(48), tif: 'IOC' }),
      ),
    ];
    expect(legs.map((f) => f.refunds.length > 0)).toEqual([false, true, true]);
    await rig.chain.failNextSettlementItems('escrow', 3);
    const before = rig.chain.headNumber();

    // Reversed one by one, the first would take back into escrow refunds of the other two (96) that B's
    // wallet (94) never got; together they move nothing.
    expect(await rig.settle()).toBe(true);
    const reversed = rig.journal.flatMap((e) => e.events.filter((x) => x.type === 'fillReversed'));
    expect(reversed.map((e) => e.matchId)).toEqual(legs.map((f) => f.matchId));
    // The failed window's block alone: its reversals have nothing to move.
    expect(rig.chain.headNumber() - before).toBe(1);
    expect(rig.h.engine.balance('B')).toEqual({ available: usd(94), escrowed: 0n });
    await expectExact(rig, ['B', 'E', 'F']);
  });
});

describe('settlement driver: an adjustment after a fill that fails with it', () => {
  it('goes with that fill’s reversal instead of being retried ahead of it for ever', async () => {
    const rig = await DriverRig.start();
    rig.credit('A', usd(110));
    rig.credit('E', usd(10_000_000));
    rig.credit('F', usd(1_000_000));
    for (const market of ['M', 'M2', 'M3'])
      for (const one of [true, false])
        rig.place({ id: `e-${market}-${one}`, account: 'E', market, one, tick: 400, size: usd(300_000) });
    rig.place({ id: 'f', account: 'F', market: 'M3', tick: 400, size: usd(100_000), tif: 'IOC' });
    expect(await rig.settle()).toBe(true);
    // A backs 100 on M (its escrow fails), hedges it in lots paid by their refunds, then backs 105 on M2.
    await rig.chain.failNextSettlementItems('escrow', 1);
    rig.place({ id: 'a1', account: 'A', market: 'M', tick: 400, size: usd(100), tif: 'IOC' });
    rig.place({ id: 'a2', account: 'A', market: 'M', one: false, tick: 400, size: usd(100), tif: 'IOC' });
    rig.place({ id: 'a3', account: 'A', market: 'M2', tick: 400, size: usd(105), tif: 'IOC' });
    await rig.turns();
    // While that transaction is under way, A lays 5 on M2: its refund (10) puts 5 more in A's wallet.
    const [lay] = fillsOf(
      rig.place({ id: 'a4', account: 'A', market: 'M2', one: false, tick: 400, size: usd(5), tif: 'IOC' }),
    );
    await rig.block();
    // a1's reversal takes back the hedge's refunds: 110 from A's wallet, A owing the rest. It goes in the next
    // transaction after the lay, whose escrow fails: the wallet holds 105.
    expect(rig.h.engine.owed('A')).toBe(usd(90));
    const reversed = rig.journal.findLast((e) => e.input.kind === 'settlement')!.seq;
    await rig.chain.failNextSettlementItems('escrow', 1);
    await rig.block();
    const last = rig.journal.findLast((e) => e.input.kind === 'settlement')!;
    const notLanded = last.input.kind === 'settlement' ? last.input.txs[0]!.notLanded : [];
    expect(notLanded.map((i) => [i.id.split(':')[0], i.id.split(':')[1], i.error])).toEqual([
      ['fill', lay!.matchId, 'INJECTED_FAULT'],
      ['reversals', String(reversed), 'INSUFFICIENT_BALANCE'],
    ]);
    // Netted with the lay's reversal (5 back into the wallet): 105 from A's wallet, once.
    expect(await rig.settle()).toBe(true);
    expect(rig.db.prepare('SELECT id FROM settlement_outstanding').pluck().all()).toEqual([]);
    expect(rig.h.engine.owed('A')).toBe(usd(95));
    await expectExact(rig, ['A', 'E', 'F']);
    await rig.restartDriver();
    expect(await rig.settle()).toBe(true);
    await expectExact(rig, ['A', 'E', 'F']);
  });
});

describe('settlement driver: a payout after refunds that counted on a failed fill', () => {
  it('goes with that fill’s reversal, and its trade is paid once that lands', async () => {
    const rig = await DriverRig.start();
    for (const [account, amount] of [
      ['B', 94],
      ['C', 10],
      ['D', 100],
      ['E', 1_000],
      ['F', 40],
    ] as const)
      rig.credit(account, usd(amount));
    // C's bet against D on M3, resolved below; F's against D on M: the escrow pool holds 100.
    rig.place({ id: 'd3', account: 'D', market: 'M3', one: false, tick: 400, size: usd(10) });
    rig.place({ id: 'c3', account: 'C', market: 'M3', tick: 400, size: usd(10), tif: 'IOC' });
    rig.place({ id: 'd1', account: 'D', market: 'M', one: false, tick: 400, size: usd(40) });
    rig.place({ id: 'f1', account: 'F', market: 'M', tick: 400, size: usd(40), tif: 'IOC' });
    rig.run({ type: 'closeMarket', marketHash: 'M3' });
    expect(await rig.settle()).toBe(true);
    // B and E bet against each other on M2, then each hedges: the second fill's refunds (92 to each, for 92
    // escrowed) count on the first fill's stakes, whose escrow fails. C's payout comes after them.
    await rig.chain.failNextSettlementItems('escrow', 1);
    rig.place({ id: 'e1', account: 'E', market: 'M2', tick: 400, size: usd(48) });
    rig.place({ id: 'b1', account: 'B', market: 'M2', one: false, tick: 400, size: usd(48), tif: 'IOC' });
    rig.place({ id: 'e2', account: 'E', market: 'M2', one: false, tick: 400, size: usd(46) });
    rig.place({ id: 'b2', account: 'B', market: 'M2', tick: 400, size: usd(46), tif: 'IOC' });
    rig.run({ type: 'resolveMarket', marketHash: 'M3', outcome: 1 });
    await rig.block();
    const receipt = rig.journal.findLast((e) => e.input.kind === 'settlement')!;
    const notLanded = receipt.input.kind === 'settlement' ? receipt.input.txs[0]!.notLanded : [];
    expect(notLanded.map((i) => [i.kind, i.status, i.error])).toEqual([
      ['fill', 'failed', 'INJECTED_FAULT'],
      ['payout', 'failed', 'INSUFFICIENT_ESCROW'],
    ]);
    const paid = () =>
      rig.db.prepare("SELECT paid_at IS NOT NULL FROM settlement_payouts WHERE account = 'C'").pluck().get();
    expect(paid()).toBe(0);
    // Not submitted again alone (the pool lacks what the reversal takes back into it): in C's net item, also
    // after a start.
    await rig.restartDriver();
    expect(await rig.settle()).toBe(true);
    expect(await submissionsOf(rig, 'payout:M3:C')).toBe(1);
    expect(paid()).toBe(1);
    expect(rig.db.prepare('SELECT id FROM settlement_outstanding').pluck().all()).toEqual([]);
    expect(rig.h.engine.balance('C').available).toBe(usd(20));
    await expectExact(rig, ['B', 'C', 'D', 'E', 'F']);
    await rig.restartDriver();
    expect(await rig.settle()).toBe(true);
    await expectExact(rig, ['B', 'C', 'D', 'E', 'F']);
  });
});

describe('settlement driver: receipts', () => {
  it('goes on when the block of its transaction is never announced and nothing else is mined', async () => {
    const rig = await DriverRig.start();
    await rig.chain.dropNextBlockAnnouncement();
    rig.credit('A', usd(110));
    await rig.block();
    // The block landed the deposit; no listener heard of it, and no other block follows on its own.
    expect(await rig.chain.balanceOf(rig.walletOf('A'))).toBe(usd(110));
    expect(rig.journal.some((e) => e.input.kind === 'settlement')).toBe(true);
    expect(rig.driver.backlog()).toMatchObject({ inFlight: 0, queuedItems: 0, outstandingItems: 0 });
    expect(rig.driver.isSettled(rig.h.seq - 1)).toBe(true);

    rig.credit('B', usd(5));
    expect(await rig.settle()).toBe(true);
    await expectExact(rig, ['A', 'B']);
  });
});

describe('settlement driver: receipts the sequencer refuses', () => {
  it('journals them with the next committed batch, those of every block since', async () => {
    const rig = await DriverRig.start();
    rig.credit('A', usd(10));
    await rig.block();
    // The receipts of the block with the driver's next transaction are refused (a full queue: 503), and again
    // when a block of someone else's (a proxy deployment) makes the driver read them back.
    rig.refuseSubmissions = 2;
    rig.credit('B', usd(20));
    await rig.block();
    await rig.chain.deployProxy(rig.walletOf('D'));
    await rig.block();
    expect(rig.errors).toHaveLength(2);
    expect(rig.driver.backlog().inFlight).toBe(1);
    // Nothing more is mined while the driver waits for that receipt; the next committed batch hands it on.
    rig.credit('C', usd(30));
    expect(await rig.settle()).toBe(true);
    const settles = await rig.chain.receiptsBetween(0, rig.chain.headNumber(), 'settle');
    const journaled = rig.journal.flatMap((e) => (e.input.kind === 'settlement' ? e.input.txs : []));
    expect(journaled.map((tx) => [tx.firstSeq, tx.lastSeq])).toEqual(
      settles.map((r) => [(r.tx as SettleTx).firstSeq, (r.tx as SettleTx).lastSeq]),
    );
    rig.errors.length = 0;
    await expectExact(rig, ['A', 'B', 'C']);
  });
});

describe('settlement driver: receipts journaled whose answer was lost (a chain node’s memo)', () => {
  it('are not journaled again when read back, nor with the blocks mined since', async () => {
    const rig = await DriverRig.start();
    rig.memo = true;
    rig.credit('A', usd(10));
    await rig.block();
    // The block with the driver's next transaction: its receipts are journaled, the answer never comes.
    rig.loseAnswers = 1;
    rig.credit('B', usd(20));
    await rig.block();
    expect(rig.errors).toHaveLength(1);
    // A block of someone else's (a proxy deployment) makes the driver read back both blocks: the journal
    // holds the first one's receipts already, so nothing of them is journaled again.
    await rig.chain.deployProxy(rig.walletOf('D'));
    await rig.block();
    rig.credit('C', usd(30));
    expect(await rig.settle()).toBe(true);
    await expectReceiptsJournaledOnce(rig);
    rig.errors.length = 0;
    await expectExact(rig, ['A', 'B', 'C']);
  });
});

describe('settlement driver: debts', () => {
  it('a reversal that takes back a refund already spent leaves a debt, repaid from the next credit', async () => {
    const rig = await DriverRig.start();
    for (const a of ['A', 'B', 'C', 'D']) rig.credit(a, usd(1_000));
    // A backs one outcome against B (f1), hedges it against C (f2: its refund), and spends everything on M2.
    rig.place({ id: 'b', account: 'B', one: false, tick: 400, size: usd(100) });
    rig.place({ id: 'a1', account: 'A', tick: 400, size: usd(100), tif: 'IOC' });
    rig.place({ id: 'c', account: 'C', tick: 400, size: usd(100) });
    rig.place({ id: 'a2', account: 'A', one: false, tick: 400, size: usd(100), tif: 'IOC' });
    rig.place({ id: 'd', account: 'D', market: 'M2', one: false, tick: 400, size: usd(1_000) });
    rig.place({ id: 'a3', account: 'A', market: 'M2', tick: 400, size: usd(1_000), tif: 'IOC' });
    // f1's escrow fails: its reversal takes back f2's refund, which A spent on M2.
    await rig.chain.failNextSettlementItems('escrow', 1);
    expect(await rig.settle()).toBe(true);
    expect(rig.h.engine.owed('A')).toBe(usd(100));
    const owedRow = () => rig.db.prepare("SELECT owed FROM balances WHERE account = 'A'").pluck().get();
    expect(owedRow()).toBe(usd(100).toString());
    await expectExact(rig, ['A', 'B', 'C', 'D']);

    rig.credit('A', usd(150));
    expect(await rig.settle()).toBe(true);
    expect(rig.h.engine.owed('A')).toBe(0n);
    expect(rig.h.engine.balance('A').available).toBe(usd(50));
    expect(owedRow()).toBe('0');
    await expectExact(rig, ['A', 'B', 'C', 'D']);
    // A start reads the debts back from the projections.
    await rig.restartDriver();
    await expectExact(rig, ['A', 'B', 'C', 'D']);
  });
});

describe('settlement driver: checkpoints', () => {
  it("a checkpoint's empty transaction moves the cursor and journals nothing, so the journal still ends at the checkpoint", async () => {
    const rig = await DriverRig.start();
    rig.credit('A', usd(50));
    rig.credit('B', usd(50));
    rig.place({ id: 'b', account: 'B', one: false, tick: 400, size: usd(50) });
    expect(await rig.settle()).toBe(true);
    // Entries with no money moves after the last settlement transaction: a checkpoint at the journal's end.
    rig.run({ type: 'openMarket', marketHash: 'M4', eventId: 'G' });
    rig.run({ type: 'openMarket', marketHash: 'M5', eventId: 'G' });
    await rig.turns();
    const checkpointSeq = rig.h.seq;
    const before = rig.chain.headNumber();
    rig.driver.submittedThrough(checkpointSeq);
    expect(await rig.settle()).toBe(true);
    const [empty] = await rig.chain.receiptsBetween(before, rig.chain.headNumber(), 'settle');
    expect(empty?.tx).toMatchObject({ lastSeq: checkpointSeq, retries: [], items: [] });
    expect(rig.journal.at(-1)?.seq).toBe(checkpointSeq);
    expect(rig.driver.outboxSeq()).toBe(checkpointSeq);
    expect(rig.driver.isSettled(checkpointSeq)).toBe(true);

    // A start from the checkpoint hands nothing on again, and the chain still agrees with the engine.
    await rig.restartDriver({ chain: true });
    expect(rig.driver.outboxSeq()).toBe(checkpointSeq);
    expect(await rig.settle()).toBe(true);
    expect(rig.journal.at(-1)?.seq).toBe(checkpointSeq);
    await expectExact(rig, ['A', 'B']);
  });

  it('a checkpoint past the entries handed on moves no cursor over them: a start after a crash submits their items once', async () => {
    const rig = await DriverRig.start();
    rig.credit('A', usd(50));
    rig.credit('B', usd(50));
    expect(await rig.settle()).toBe(true);
    rig.place({ id: 'b', account: 'B', one: false, tick: 400, size: usd(50) });
    const [fill] = fillsOf(rig.place({ id: 'a', account: 'A', tick: 400, size: usd(50), tif: 'IOC' }));
    // Committed, not yet handed on (the pipeline projects first): a checkpoint at the journal's end.
    const checkpointSeq = rig.h.seq;
    rig.driver.submittedThrough(checkpointSeq);
    expect(rig.driver.outboxSeq()).toBeLessThan(checkpointSeq);
    await rig.crashAfterBlock({ chain: true });
    expect(await rig.settle()).toBe(true);
    expect(await submissionsOf(rig, `fill:${fill!.matchId}`)).toBe(1);
    await expectReceiptsJournaledOnce(rig);
    await expectExact(rig, ['A', 'B']);
  });

  it('a checkpoint while a transaction is under way: the cursor reaches it at the next quiet moment', async () => {
    const rig = await DriverRig.start();
    rig.credit('A', usd(50));
    rig.credit('B', usd(50));
    await rig.turns();
    rig.run({ type: 'openMarket', marketHash: 'M4', eventId: 'G' });
    await rig.turns();
    const checkpointSeq = rig.h.seq;
    rig.driver.submittedThrough(checkpointSeq);
    // The deposits' transaction is under way: no other goes before its receipt.
    expect(rig.driver.outboxSeq()).toBeLessThan(checkpointSeq);
    expect(await rig.settle()).toBe(true);
    expect(rig.driver.outboxSeq()).toBe(checkpointSeq);
    await rig.restartDriver({ chain: true });
    expect(rig.driver.outboxSeq()).toBe(checkpointSeq);
    expect(await rig.settle()).toBe(true);
    // Journaled after the checkpoint: the deposits' receipt, not the empty transaction's.
    expect(rig.journal.at(-1)?.seq).toBe(checkpointSeq + 1);
    await expectExact(rig, ['A', 'B']);
  });
});
