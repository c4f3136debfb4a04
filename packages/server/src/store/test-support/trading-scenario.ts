import { ladderSize, tickToOdds } from '@oddsbook/protocol';
import { Engine } from '../../engine/index.js';
import { fillIdOf } from '../../records/records.js';
import type { AppliedEntry, NotLandedItem, OrderMeta, SequencerInput } from '../../sequencer/inputs.js';
import { exchangeEngineOptions } from '../../sequencer/recovery.js';
import { fillToReverse, settlementItems } from '../../settlement/settlement-items.js';
import { Projector } from '../projector.js';
import {
  consolidatedTradeListing,
  fillListing,
  orderListing,
  type Page,
  type SortKey,
  tradeListing,
} from '../trading-reads.js';
import type { PortsUnderTest } from './stores-under-test.js';

export const LADDER = ladderSize();
export const USDC = 1_000_000n;
export const A = '0x00000000000000000000000000000000000000Aa';
export const B = '0x00000000000000000000000000000000000000bB';
export const C = '0x00000000000000000000000000000000000000cc';
export const ACCOUNTS = [A, B, C] as const;
/** M is resolved (outcome one) in the scenario; M2 stays open, with a hedge's capital-efficiency refund. */
export const M = `0x${'ab'.repeat(32)}`;
export const M2 = `0x${'cd'.repeat(32)}`;
const T0 = 1_700_000_000_000;
const walletOf = (account: string) => `0x${account.slice(-4).padStart(40, '0')}` as const;

/**
 * A day of trading through the real engine, journaled and projected on one store: orders resting, filling
 * and refused, a hedge refunded, delayed orders admitted and withdrawn, a cancel, settlement receipts (a
 * window landed, a deposit and a fill failed, the fill reversed), a resolution, and its payout failing and
 * then landing; legacy escrow receipts. Every step is what the sequencer would hand the journal and the projector.
 */
export class TradingScenario {
  readonly engine: Engine;
  readonly entries: AppliedEntry[] = [];
  /** The seqs of each batch, by name. */
  readonly batches = new Map<string, { first: number; last: number; ts: number }>();
  private seq = 0;
  private orders = 0;

  private constructor(
    readonly ports: PortsUnderTest,
    readonly projector: Projector,
  ) {
    this.engine = new Engine({ ...exchangeEngineOptions(ports.journal), ladderSize: LADDER });
  }

  static async run(ports: PortsUnderTest): Promise<TradingScenario> {
    const scenario = new TradingScenario(ports, await Projector.open(ports.projections));
    await scenario.play();
    return scenario;
  }

  private async commit(name: string, inputs: SequencerInput[]): Promise<AppliedEntry[]> {
    const ts = T0 + this.batches.size * 60_000;
    const entries = inputs.map((input): AppliedEntry => {
      this.seq += 1;
      const events =
        input.kind === 'engine' ? this.engine.apply({ ...input.command, seq: this.seq, ts }) : [];
      return { seq: this.seq, ts, input, events };
    });
    await this.ports.journal.append(entries);
    await this.projector.project(entries);
    this.entries.push(...entries);
    this.batches.set(name, { first: entries[0]!.seq, last: entries.at(-1)!.seq, ts });
    return entries;
  }

  private order(
    account: string,
    market: string,
    options: { one?: boolean; tick?: number; size: bigint; tif?: 'GTC' | 'IOC'; tag?: string },
  ) {
    this.orders += 1;
    const orderId = `0x${this.orders.toString(16).padStart(64, '0')}`;
    const meta: OrderMeta = {
      commandId: `cmd-${this.orders}`,
      eventId: market === M ? 'L1000001' : 'L1000002',
      clientOrderId: options.tag ?? null,
      salt: `0x${this.orders}`,
      baseToken: '0xd1f05A1F2d3F5ef80e000ABD9c6Da3a9495Da054',
      signature: '0xsig',
    };
    const order = {
      type: 'place' as const,
      orderId,
      account,
      marketHash: market,
      isBettingOutcomeOne: options.one ?? true,
      percentageOdds: tickToOdds(options.tick ?? 400),
      totalBetSize: options.size * USDC,
      expiry: 2_000_000_000,
      timeInForce: options.tif ?? 'GTC',
    };
    return { order, meta, place: { kind: 'engine', command: order, meta } as SequencerInput };
  }

  private notLanded(entries: readonly AppliedEntry[], id: (id: string) => boolean): NotLandedItem {
    const item = entries.flatMap((e) => settlementItems(e, walletOf)).find((i) => id(i.id))!;
    return { ...item, status: 'failed', error: 'INJECTED_FAULT' };
  }

  private async play(): Promise<void> {
    const opened = await this.commit('open', [
      { kind: 'engine', command: { type: 'openMarket', marketHash: M, eventId: 'L1000001' } },
      { kind: 'engine', command: { type: 'openMarket', marketHash: M2, eventId: 'L1000002' } },
      ...ACCOUNTS.map(
        (account): SequencerInput => ({
          kind: 'engine',
          command: { type: 'credit', account, amount: 1_000n * USDC },
        }),
      ),
    ]);
    // C rests 15 on M and A 50 behind it; B takes 10 (of C's) and then 20 (C's last 5, then A's); an order
    // beyond its funds is refused.
    const matched = await this.commit('match', [
      this.order(C, M, { size: 15n }).place,
      this.order(A, M, { size: 50n, tag: 'tag-1' }).place,
      this.order(B, M, { one: false, size: 10n, tif: 'IOC' }).place,
      this.order(B, M, { one: false, size: 20n, tif: 'IOC' }).place,
      this.order(B, M, { size: 5_000n }).place,
    ]);
    // A hedge on M2: A backs both outcomes for 100 at 50 %, and 200 is refunded at once.
    const hedged = await this.commit('hedge', [
      this.order(B, M2, { one: false, size: 100n }).place,
      this.order(A, M2, { size: 100n, tif: 'IOC' }).place,
      this.order(C, M2, { size: 100n }).place,
      this.order(A, M2, { one: false, size: 100n, tif: 'IOC' }).place,
    ]);
    const delayed = this.order(A, M, { size: 20n, tag: 'tag-2' });
    const withdrawn = this.order(B, M, { one: false, size: 20n });
    const cancelled = this.order(A, M2, { size: 30n, tick: 300 });
    await this.commit('delay', [
      { kind: 'admit', order: delayed.order, meta: delayed.meta, activateAt: T0 + 3_600_000 },
      { kind: 'admit', order: withdrawn.order, meta: withdrawn.meta, activateAt: T0 + 3_600_000 },
      { kind: 'withdraw', orderIds: [withdrawn.order.orderId], reason: 'USER_REQUESTED' },
      cancelled.place,
      {
        kind: 'engine',
        command: {
          type: 'cancel',
          orderIds: [cancelled.order.orderId],
          account: A,
          reason: 'USER_REQUESTED',
        },
      },
    ]);
    // Block 1: the opening's deposit to C failed (outstanding); B's first fill (with C) failed and is
    // reversed; the hedge landed.
    const failedFill = this.notLanded([matched[2]!], (id) => id.startsWith('fill:'));
    await this.commit('block 1', [
      {
        kind: 'settlement',
        block: 1,
        txs: [
          {
            firstSeq: opened[0]!.seq,
            lastSeq: opened.at(-1)!.seq,
            notLanded: [this.notLanded(opened.slice(-1), (id) => id.startsWith('deposit:'))],
            landed: [],
          },
          { firstSeq: matched[0]!.seq, lastSeq: matched.at(-1)!.seq, notLanded: [failedFill], landed: [] },
          { firstSeq: hedged[0]!.seq, lastSeq: hedged.at(-1)!.seq, notLanded: [], landed: [] },
        ],
      },
      { kind: 'engine', command: { type: 'reverseFill', fill: fillToReverse(failedFill.fill!) } },
    ]);
    const resolved = await this.commit('resolve', [
      { kind: 'engine', command: { type: 'resolveMarket', marketHash: M, outcome: 1 } },
    ]);
    // Block 2: A's payout failed (C's landed); block 3: A's landed on a retry.
    const payout = this.notLanded(resolved, (id) => id === `payout:${M}:${A}`);
    await this.commit('block 2', [
      {
        kind: 'settlement',
        block: 2,
        txs: [{ firstSeq: resolved[0]!.seq, lastSeq: resolved[0]!.seq, notLanded: [payout], landed: [] }],
      },
    ]);
    await this.commit('block 3', [
      {
        kind: 'settlement',
        block: 3,
        txs: [{ firstSeq: 1, lastSeq: 0, notLanded: [], landed: [{ id: payout.id, kind: 'payout' }] }],
      },
    ]);
    // Receipts of escrows, as data dirs from before settlement transactions journal them: A's fills of the
    // match, and one of C's hedge fills by its own id.
    const cMatch = hedged
      .flatMap((e) => e.events)
      .find((e) => e.type === 'orderMatched' && e.makerAccount === C);
    await this.commit('escrows', [
      {
        kind: 'escrows',
        block: 4,
        escrows: [
          { account: A, firstSeq: matched[0]!.seq, lastSeq: matched.at(-1)!.seq, ok: true },
          { fillId: fillIdOf((cMatch as { matchId: string }).matchId, 'maker'), ok: true },
        ],
      },
    ]);
  }
}

/** Every page of a keyset listing, read `limit` rows at a time. */
async function allPages<T>(read: (page: Page) => Promise<T[]>, keyOf: (row: T) => SortKey, limit = 2) {
  const rows: T[] = [];
  for (let after: SortKey | null = null; ; ) {
    const page = await read({ limit, after });
    rows.push(...page);
    if (page.length < limit) return rows;
    after = keyOf(page[page.length - 1]!);
  }
}

/**
 * What the trading reads and the settlement feed answer about a scenario, read every way the routes and the
 * publishers read them (each listing in both directions, a page of two at a time): two stores agree when
 * these agree. Lists whose order no caller relies on are sorted.
 */
export async function everyRead(ports: PortsUnderTest, scenario: TradingScenario) {
  const { reads, feed } = ports;
  const batch = (name: string) => scenario.batches.get(name)!;
  const perAccount = async (account: string) => {
    const listings = [];
    for (const asc of [true, false]) {
      for (const sortBy of ['createdAt', 'event', 'totalBetSize'] as const) {
        const listing = orderListing(sortBy, asc);
        listings.push(await allPages((p) => reads.orders(account, {}, listing, p), listing.keyOf));
      }
      const ended = orderListing('createdAt', asc, 'ended');
      listings.push(await allPages((p) => reads.orders(account, {}, ended, p), ended.keyOf));
      listings.push(await allPages((p) => reads.orders(account, { marketHash: M2 }, ended, p), ended.keyOf));
      listings.push(
        await allPages((p) => reads.orders(account, { eventId: 'L1000001' }, ended, p), ended.keyOf, 1),
      );
      const fills = fillListing(asc);
      listings.push(await allPages((p) => reads.fills(account, {}, fills, p), fills.keyOf));
      listings.push(
        await allPages((p) => reads.fills(account, { startDate: batch('hedge').ts }, fills, p), fills.keyOf),
      );
      const trades = tradeListing(asc);
      listings.push(await allPages((p) => reads.trades(account, {}, trades, p), trades.keyOf));
      listings.push(
        await allPages(
          (p) => reads.trades(account, { status: ['SETTLED', 'FAILED'] }, trades, p),
          trades.keyOf,
        ),
      );
      listings.push(
        await allPages((p) => reads.trades(account, { marketHash: M2 }, trades, p), trades.keyOf),
      );
      const consolidated = consolidatedTradeListing(asc);
      listings.push(
        await allPages((p) => reads.consolidatedTrades(account, {}, consolidated, p), consolidated.keyOf),
      );
      const refunds = { sortAsc: asc, offset: 0, limit: 5, eventsOffset: 0, eventsLimit: 5 };
      listings.push(await reads.refunds(account, {}, refunds));
      listings.push(await reads.refunds(account, {}, { ...refunds, offset: 1, limit: 1, eventsOffset: 1 }));
      listings.push(await reads.refunds(account, { marketHash: M2, maker: false }, refunds));
    }
    listings.push(
      await allPages(
        (p) => reads.positions(account, {}, p),
        (r) => [r.marketHash],
        1,
      ),
    );
    return listings;
  };
  const tape = tradeListing(false, 'public');
  const orderIds = scenario.entries.flatMap((e) =>
    e.input.kind === 'engine' && e.input.command.type === 'place'
      ? [[e.input.command.account, e.input.command.orderId] as const]
      : e.input.kind === 'admit'
        ? [[e.input.order.account, e.input.order.orderId] as const]
        : [],
  );
  const windows = ['open', 'match', 'hedge', 'resolve'].map(batch);
  return {
    accounts: await Promise.all(ACCOUNTS.map(perAccount)),
    orders: await Promise.all(orderIds.map(([account, id]) => reads.getOrder(account, id))),
    tags: await Promise.all(['tag-1', 'tag-2', 'none'].map((tag) => reads.getOrderByClientId(A, tag))),
    tape: await allPages((p) => reads.publicTrades({}, tape, p), tape.keyOf),
    tapeOfM2: await allPages((p) => reads.publicTrades({ marketHash: M2 }, tape, p), tape.keyOf),
    settledOfM: await reads.settledOf(M, [...ACCOUNTS]),
    settlements: (await reads.settlements()).sort((x, y) => x.marketHash.localeCompare(y.marketHash)),
    windows: await Promise.all(
      windows.map(async (w) => ({
        accounts: (await reads.accountsWithFills(w.first, w.last)).sort(),
        locked: await reads.lockedRows(w.first, w.last, [...ACCOUNTS]),
        paid: await reads.paidPayouts(w.first, w.last, batch('block 3').ts),
        escrows: await Promise.all(
          ACCOUNTS.flatMap((account) =>
            [true, false].map((ok) => reads.escrowRows({ account, firstSeq: w.first, lastSeq: w.last, ok })),
          ),
        ),
      })),
    ),
    outstanding: await feed.outstanding(),
    block: await feed.projectedBlock(),
    balances: [...(await feed.balances())].sort(([x], [y]) => x.localeCompare(y)),
  };
}
