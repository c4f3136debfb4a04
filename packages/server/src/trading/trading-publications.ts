import {
  ACCOUNT_FILLS_CHANNEL,
  type AccountOrderUpdate,
  type BestOddsUpdate,
  type CeRefundUpdate,
  GLOBAL_CHANNELS,
  type OrderOutcome,
  orderBookMarketChannel,
} from '@oddsbook/protocol';
import { type BookLevels, RejectCode } from '../engine/index.js';
import { bookToWire, levelToWire, versionToWire } from '../orders/book.js';
import { outcomeOf, withdrawnOutcome } from '../orders/outcome.js';
import { fillToWire, orderToWire, publicTradeToWire, refundToWire, tradeToWire } from '../orders/wire.js';
import { AccountChannels, eventBookChannel, type Publication } from '../realtime/publication.js';
import type { FillRecord, TradeRecord } from '../records/records.js';
import type { AppliedEntry, EscrowReceipt, SettledTx } from '../sequencer/inputs.js';
import type { EntryChanges } from '../store/batch-projection.js';
import type { TradingReads } from '../store/trading-reads.js';
import { BookView } from './book-view.js';
import { parlayRequestUpdate } from './parlay-publication.js';
import type { ProjectedBatch } from './pipeline.js';
import { consolidatedTrade, quarterLineBets, quarterLineParent, recentTrade } from './public-tape.js';

export type TradingPublisherContext = {
  /** The proxy wallet of an account (the order row's `wallet`). */
  walletOf(account: `0x${string}`): `0x${string}`;
  /** Every market's book as the last published batch left it, to start following the books from. */
  books: Iterable<BookLevels>;
  /** Sport and league of a market when known without I/O (optional fields of `best_odds:global`). */
  marketInfo(marketHash: string): { sportId: number; leagueId: number } | undefined;
  ladderSize: number;
  /** The exchange's base token (`ce_refunds` payloads name it). */
  baseToken: `0x${string}`;
  /**
   * What receipts and resolutions changed, read back from the projections for the accounts whose trades or
   * fills are followed (once the batch is projected): an escrow's rows (`escrowRows`), a settlement
   * transaction's (`accountsWithFills`, `lockedRows`, `paidPayouts`), a resolution's (`settledOf`).
   */
  reads: Pick<TradingReads, 'escrowRows' | 'accountsWithFills' | 'lockedRows' | 'paidPayouts' | 'settledOf'>;
  /** Whether a publication to the channel would go anywhere (`RealtimeHub.observed`); default: always. */
  observed?(channel: string, user?: string): boolean;
  /**
   * Shortest time between two publications of one market's book (and its best odds), ms. A market that
   * changes again within it is published once when it ends (`dueBooks`), as its book then stands. Default
   * 0: one per batch that changed it.
   */
  bookIntervalMs?: number;
  /** Milliseconds, for `bookIntervalMs`. Default performance.now. */
  now?(): number;
  /**
   * A market's quote window end (unix ms) when it is a parlay market, else undefined: asked only for the
   * books the publisher starts from (later parlays are learnt from their `marketOpened`).
   */
  quoteWindowEndsAt?(marketHash: string): number | undefined;
  /** Unix milliseconds (the exchange's clock), for quote windows. Default Date.now. */
  wallNow?(): number;
};

type CreateResult = { commandId: string; outcome?: OrderOutcome };

type Rows = { fills: FillRecord[]; trades: TradeRecord[] };

/**
 * The rows a batch's publications read back from the projections, read before it is published
 * (`TradingPublisher.rowsOf`): those of each followed escrow, of each settlement transaction, and of each
 * resolution's followed holders.
 */
export type BatchRows = {
  escrows: Map<EscrowReceipt, Rows>;
  settlements: Map<SettledTx, Rows[]>;
  resolutions: Map<string, Rows>;
};

/**
 * Maps committed journal entries to publications. Rows are the REST rows: each
 * entry's publications carry the rows as the projection left them after that entry, so a burst of
 * commands in one batch still shows each step.
 *
 * Per entry, in this order: order rows (account + active orders), fills, capital-efficiency refunds
 * (`ce_refunds:{bettor}`, one message per refund, in the engine's order), trades (each trade row, and
 * right after a taker's its `recent_trades` then `recent_trades_consolidated` message; after the second
 * leg of a taker quarter-line bet, its synthetic parent on `recent_trades_consolidated`, see
 * public-tape.ts), rows settled by a resolution. Per batch, at the end: the book of each changed market
 * (market and event channels) and best odds where they moved, unless the market's book was published
 * less than `bookIntervalMs` ago: then once that interval ends (`dueBooks`), as it then stands. Message
 * ids are `<seq>:<n>`, the n-th publication of the journal entry `seq`, except the rows of a resolution
 * and of escrow receipts (LOCKED, FAILED), named by row and status (`trade:<id>:<status>:<updatedAt>`,
 * `fill:<id>:<status>`), and books and best odds, named by market and book version
 * (`book:<marketHash>:<version>`, `best:<marketHash>:<version>`). A publication to a channel nobody
 * follows is not made (most accounts of a busy exchange are REST-only), but keeps its number, so an id
 * never depends on who listens. A parlay market's book (and best odds) is sealed during its quote window:
 * changed then, it is published once, whole, as the window closes (`dueBooks`), so neither the other makers
 * nor the requester see an offer before it closes (docs/parlays.md).
 */
export class TradingPublisher {
  readonly #ctx: TradingPublisherContext;
  readonly #names = new AccountChannels();
  /** Last published best level of each side, per market. */
  readonly #bestOdds = new Map<string, string>();
  readonly #books = new BookView();
  readonly #bookIntervalMs: number;
  readonly #now: () => number;
  /** When each market's book may next be published (its last publication plus the interval). */
  readonly #bookDue = new Map<string, number>();
  /** Markets changed since their last book publication, waiting for their interval to end. */
  readonly #pendingBooks = new Set<string>();
  /** The quote window end (unix ms) of each parlay market not yet known to be past it. */
  readonly #quoteWindows = new Map<string, number>();
  /** Parlay markets changed during their quote window: their book waits for its end (`dueBooks`). */
  readonly #sealedBooks = new Set<string>();
  readonly #wallNow: () => number;

  constructor(context: TradingPublisherContext) {
    this.#ctx = context;
    this.#bookIntervalMs = context.bookIntervalMs ?? 0;
    this.#now = context.now ?? (() => performance.now());
    this.#wallNow = context.wallNow ?? (() => Date.now());
    const wall = this.#wallNow();
    for (const levels of context.books) {
      this.#books.seed(levels);
      const end = context.quoteWindowEndsAt?.(levels.marketHash);
      if (end === undefined || end <= wall) continue;
      this.#quoteWindows.set(levels.marketHash, end);
      // Offers that rested before this publisher started are shown when the window closes.
      if (levels.outcomeOne.length + levels.outcomeTwo.length > 0) this.#sealedBooks.add(levels.marketHash);
    }
  }

  #observed(channel: string, user?: string): boolean {
    return this.#ctx.observed?.(channel, user) ?? true;
  }

  /**
   * Whether the account's trades or fills are followed: else neither its escrows' LOCKED or FAILED rows
   * nor a resolution's settled rows would be published, and nobody need read them back.
   */
  followsTradesOrFills(account: string): boolean {
    const names = this.#names.of(account);
    return this.#observed(ACCOUNT_FILLS_CHANNEL, names.user) || this.#observed(names.trades);
  }

  /**
   * Reads what the batch's receipts and resolutions changed, for followed accounts only; undefined, at
   * once, when it has none (most batches: they are then published at once). Its publications follow.
   */
  rowsOf(projected: ProjectedBatch): Promise<BatchRows | undefined> | undefined {
    const { batch, changes } = projected;
    const reads = batch.entries.some(
      (entry, i) =>
        changes[i] !== undefined &&
        (entry.input.kind === 'escrows' ||
          entry.input.kind === 'settlement' ||
          entry.events.some((e) => e.type === 'marketResolved')),
    );
    return reads ? this.#readRows(projected) : undefined;
  }

  async #readRows({ batch, changes }: ProjectedBatch): Promise<BatchRows | undefined> {
    let rows: BatchRows | undefined;
    const found = () => (rows ??= { escrows: new Map(), settlements: new Map(), resolutions: new Map() });
    const reads = this.#ctx.reads;
    for (const [i, entry] of batch.entries.entries()) {
      if (!changes[i]) continue;
      const { input, events, ts } = entry;
      if (input.kind === 'escrows') {
        for (const escrow of input.escrows) {
          if ('account' in escrow && !this.followsTradesOrFills(escrow.account)) continue;
          found().escrows.set(escrow, await reads.escrowRows(escrow));
        }
      } else if (input.kind === 'settlement') {
        for (const tx of input.txs) found().settlements.set(tx, await this.#settlementRows(tx, ts));
      }
      for (const event of events) {
        if (event.type !== 'marketResolved') continue;
        const followed = events.flatMap((e) =>
          e.type === 'payout' && e.marketHash === event.marketHash && this.followsTradesOrFills(e.account)
            ? [e.account]
            : [],
        );
        if (followed.length > 0)
          found().resolutions.set(event.marketHash, await reads.settledOf(event.marketHash, followed));
      }
    }
    return rows;
  }

  /** A batch's publications, with the rows `rowsOf` read for it. */
  batch({ batch, changes }: ProjectedBatch, rows?: BatchRows): Publication[] {
    const out = this.#publications();
    const changedMarkets = new Set<string>();
    const resolved: string[] = [];

    // The quote windows that are open: by this clock, and by the sequencer's (its last entry's time).
    const wall = Math.max(this.#wallNow(), batch.entries.at(-1)?.ts ?? 0);
    batch.entries.forEach((entry, i) => {
      out.startEntry(entry.seq);
      const entryChanges = changes[i];
      if (entryChanges) {
        if (entry.input.kind === 'escrows') this.#escrows(entry.input.escrows, entry.ts, rows, out);
        else if (entry.input.kind === 'settlement')
          for (const tx of entry.input.txs)
            for (const read of rows?.settlements.get(tx) ?? []) this.#pushRows(read, out);
        else this.#entry(entry, entryChanges, rows, out);
      }
      for (const e of entry.events) {
        this.#books.apply(e);
        if (e.type === 'levelChanged') changedMarkets.add(e.marketHash);
        else if (e.type === 'marketResolved') resolved.push(e.marketHash);
        else if (e.type === 'marketOpened' && e.parlay)
          this.#quoteWindows.set(e.marketHash, e.parlay.quoteWindowEndsAt);
      }
    });

    const now = this.#now();
    for (const marketHash of changedMarkets) {
      if (this.#sealed(marketHash, wall)) {
        this.#sealedBooks.add(marketHash);
        continue;
      }
      this.#sealedBooks.delete(marketHash);
      if ((this.#bookDue.get(marketHash) ?? Number.NEGATIVE_INFINITY) > now) {
        this.#pendingBooks.add(marketHash);
        continue;
      }
      this.#book(marketHash, out, now);
    }
    // A resolved market changes no more: its last book goes now, and it is forgotten.
    // (A parlay resolved in its quote window closed first: nothing rests, its empty book shows nothing.)
    for (const marketHash of resolved) {
      if (this.#pendingBooks.has(marketHash) || this.#sealedBooks.has(marketHash))
        this.#book(marketHash, out, now);
      this.#sealedBooks.delete(marketHash);
      this.#quoteWindows.delete(marketHash);
      this.#books.forget(marketHash);
      this.#bestOdds.delete(marketHash);
      this.#bookDue.delete(marketHash);
    }
    return out.list;
  }

  /**
   * The books whose interval has ended since they changed, as they now stand (the state the published
   * batches left), with their best odds where they moved.
   */
  dueBooks(): Publication[] {
    const out = this.#publications();
    const now = this.#now();
    const wall = this.#wallNow();
    // A parlay's offers, all at once, as its quote window closes.
    for (const marketHash of this.#sealedBooks) {
      if (!this.#sealed(marketHash, wall)) {
        this.#sealedBooks.delete(marketHash);
        this.#book(marketHash, out, now);
      }
    }
    for (const marketHash of this.#pendingBooks) {
      if ((this.#bookDue.get(marketHash) ?? 0) <= now) this.#book(marketHash, out, now);
    }
    return out.list;
  }

  /** Milliseconds until the next waiting book is due (0 if one is), undefined when none waits. */
  nextBookInMs(): number | undefined {
    if (this.#pendingBooks.size === 0 && this.#sealedBooks.size === 0) return undefined;
    let wait = Number.POSITIVE_INFINITY;
    const now = this.#now();
    for (const marketHash of this.#pendingBooks)
      wait = Math.min(wait, (this.#bookDue.get(marketHash) ?? 0) - now);
    const wall = this.#wallNow();
    for (const marketHash of this.#sealedBooks)
      wait = Math.min(wait, (this.#quoteWindows.get(marketHash) ?? 0) - wall);
    return Math.max(0, wait);
  }

  /**
   * Whether a market's book is sealed at `wall` (unix ms): a parlay market in its quote window. A window
   * found over is forgotten.
   */
  #sealed(marketHash: string, wall: number): boolean {
    const end = this.#quoteWindows.get(marketHash);
    if (end === undefined) return false;
    if (wall < end) return true;
    this.#quoteWindows.delete(marketHash);
    return false;
  }

  #publications(): Publications {
    return new Publications((channel, user) => this.#observed(channel, user));
  }

  /**
   * The chain's receipts of escrows: each escrow's fills that it locked (LOCKED) or failed (FAILED), then
   * the trades it changed with them (a trade shows LOCKED once its last fill is escrowed), read back only
   * for accounts whose trades or fills are followed. Escrows cover fills of earlier batches, whose MATCHED
   * rows were published then.
   */
  #escrows(
    escrows: readonly EscrowReceipt[],
    ts: number,
    read: BatchRows | undefined,
    out: Publications,
  ): void {
    for (const escrow of escrows) {
      const rows = read?.escrows.get(escrow);
      if (!rows) continue;
      const status = escrow.ok ? 'LOCKED' : 'FAILED';
      for (const fill of rows.fills) {
        if (fill.status !== status) continue;
        const user = this.#names.of(fill.account).user;
        if (this.#observed(ACCOUNT_FILLS_CHANNEL, user)) out.push(fillPublication(user, fill));
      }
      for (const trade of rows.trades) {
        // A trade an earlier failed escrow of its fills turned FAILED was published then.
        if (trade.status !== status || (!escrow.ok && trade.updatedAt !== ts)) continue;
        const channel = this.#names.of(trade.account).trades;
        if (this.#observed(channel)) out.push(tradePublication(channel, trade));
      }
    }
  }

  /**
   * A settlement transaction's receipt: the fills and trades it locked and the payouts it paid (their trades
   * and fills now SETTLED), of accounts whose trades or fills are followed. Its failed fills come with their
   * reversal, whose entry publishes them FAILED.
   */
  async #settlementRows(tx: SettledTx, ts: number): Promise<Rows[]> {
    const reads = this.#ctx.reads;
    const rows: Rows[] = [];
    const seqs = tx.landed.filter((l) => l.kind === 'fill').map((l) => Number.parseInt(l.id.slice(5), 10));
    const first = Math.min(tx.firstSeq, ...seqs);
    const last = Math.max(tx.lastSeq, ...seqs);
    if (first <= last) {
      const followed = (await reads.accountsWithFills(first, last)).filter((a) =>
        this.followsTradesOrFills(a),
      );
      if (followed.length > 0) rows.push(await reads.lockedRows(first, last, followed));
    }
    const paid = tx.firstSeq <= tx.lastSeq ? await reads.paidPayouts(tx.firstSeq, tx.lastSeq, ts) : [];
    for (const { id, kind } of tx.landed) {
      if (kind !== 'payout') continue;
      const [, marketHash, account] = id.split(':');
      paid.push({ marketHash: marketHash!, account: account! });
    }
    for (const { marketHash, account } of paid) {
      if (this.followsTradesOrFills(account)) rows.push(await reads.settledOf(marketHash, [account]));
    }
    return rows;
  }

  /** Rows read back after a receipt, to their accounts' channels when followed. */
  #pushRows(rows: Rows, out: Publications): void {
    this.#pushFills(rows.fills, out);
    this.#pushTrades(rows.trades, out);
  }

  #pushFills(fills: readonly FillRecord[], out: Publications): void {
    for (const fill of fills) {
      const user = this.#names.of(fill.account).user;
      if (this.#observed(ACCOUNT_FILLS_CHANNEL, user)) out.push(fillPublication(user, fill));
    }
  }

  #pushTrades(trades: readonly TradeRecord[], out: Publications): void {
    for (const trade of trades) {
      const channel = this.#names.of(trade.account).trades;
      if (this.#observed(channel)) out.push(tradePublication(channel, trade));
    }
  }

  #entry(entry: AppliedEntry, changes: EntryChanges, read: BatchRows | undefined, out: Publications): void {
    const { input, events, ts } = entry;
    // A parlay request: its market, for makers to quote on (no history: the channel is not recoverable).
    for (const event of events) {
      if (event.type === 'marketOpened' && event.parlay)
        out.add(GLOBAL_CHANNELS.parlay_markets, () => parlayRequestUpdate(event.marketHash, event.parlay!));
    }
    // The order this entry created (admit, place) and its result; a withdraw settles several at once.
    let createdId: string | undefined;
    let created: CreateResult | undefined;
    let withdrawals: Map<string, CreateResult> | undefined;
    if (input.kind === 'admit') {
      createdId = input.order.orderId;
      created = { commandId: input.meta.commandId };
    } else if (input.kind === 'withdraw') {
      withdrawals = new Map();
      for (const row of changes.orders) {
        // Only an order still waiting its delay is withdrawn; any other is left as it was.
        const withdrawn = row.status === 'INACTIVE' && row.inactiveReason === input.reason;
        withdrawals.set(row.id, {
          commandId: row.commandId,
          ...(withdrawn ? { outcome: withdrawnOutcome(BigInt(row.totalBetSize), input.reason) } : {}),
        });
      }
    } else if (input.kind === 'engine' && input.command.type === 'place' && input.meta) {
      const place = input.command;
      // A replayed order id is not an order of its own: the original row is untouched.
      if (!isReplay(events)) {
        const outcome = outcomeOf(place.orderId, place.totalBetSize, events);
        createdId = place.orderId;
        created = { commandId: input.meta.commandId, ...(outcome ? { outcome } : {}) };
      }
    }

    for (const row of changes.orders) {
      const names = this.#names.of(row.account);
      let wire: ReturnType<typeof orderToWire> | undefined;
      const wireOf = () => (wire ??= orderToWire(row, this.#ctx.walletOf(row.account)));
      out.add(names.orders, () => {
        const create = row.id === createdId ? created : withdrawals?.get(row.id);
        const update: Omit<AccountOrderUpdate, 'messageId'> = create ? { ...wireOf(), ...create } : wireOf();
        return update;
      });
      // An order placed and gone in the same command (an IOC, a refused order) was never open.
      const neverOpen = row.status === 'INACTIVE' && row.createdAt === ts && input.kind === 'engine';
      if (!neverOpen) out.add(names.active, wireOf);
    }
    for (const fill of changes.fills) {
      out.add(ACCOUNT_FILLS_CHANNEL, () => fillToWire(fill), this.#names.of(fill.account).user);
    }
    for (const refund of changes.refunds) {
      const names = this.#names.of(refund.account);
      out.add(names.refunds, () => {
        const update: CeRefundUpdate = [refundToWire(refund, names.user, this.#ctx.baseToken)];
        return update;
      });
    }
    const quarterLine = quarterLineBets(changes.trades);
    // A reversal's FAILED trades are the account's news only: the public tape told of the bet once.
    const reversal = input.kind === 'engine' && input.command.type === 'reverseFill';
    for (const trade of changes.trades) {
      out.add(this.#names.of(trade.account).trades, () => tradeToWire(trade));
      if (trade.isMaker || reversal) continue;
      let row: ReturnType<typeof publicTradeToWire> | undefined;
      const rowOf = () => (row ??= publicTradeToWire(trade));
      out.add(GLOBAL_CHANNELS.recent_trades, () => recentTrade(trade, rowOf()));
      out.add(GLOBAL_CHANNELS.recent_trades_consolidated, () => consolidatedTrade(trade, rowOf()));
      const legs = quarterLine.get(trade);
      if (legs) out.add(GLOBAL_CHANNELS.recent_trades_consolidated, () => quarterLineParent(legs));
    }
    // A resolution's trades and fills, read back only for the holders (each has a payout event) whose
    // trades or fills are followed: a market may hold many thousands. Their ids name the row and its
    // status, as lock updates do, so they never depend on who follows.
    for (const event of events) {
      const settled = event.type === 'marketResolved' ? read?.resolutions.get(event.marketHash) : undefined;
      if (!settled) continue;
      this.#pushTrades(settled.trades, out);
      this.#pushFills(settled.fills, out);
    }
  }

  /** Publishes a market's book now (and its best odds if they moved); the next waits for the interval. */
  #book(marketHash: string, out: Publications, now: number): void {
    this.#pendingBooks.delete(marketHash);
    if (this.#bookIntervalMs > 0) this.#bookDue.set(marketHash, now + this.#bookIntervalMs);
    const levels = this.#books.levels(marketHash);
    if (!levels) return;
    let book: ReturnType<typeof bookToWire> | undefined;
    const bookOf = () =>
      (book ??= bookToWire(levels, { takerPerspective: false, ladderSize: this.#ctx.ladderSize }));
    const version = versionToWire(levels.version);
    // The book is the market's whole state: a newer one supersedes it in the channel's history.
    const bookId = `book:${marketHash}:${version}`;
    out.named(orderBookMarketChannel(marketHash), bookId, bookOf, marketHash);
    const eventChannel = eventBookChannel(levels.eventId);
    if (eventChannel) out.named(eventChannel, bookId, bookOf, marketHash);

    const one = levels.outcomeOne[0];
    const two = levels.outcomeTwo[0];
    const key = `${one ? `${one.tick}:${one.size}` : '-'}|${two ? `${two.tick}:${two.size}` : '-'}`;
    if (this.#bestOdds.get(marketHash) !== key) {
      this.#bestOdds.set(marketHash, key);
      out.named(GLOBAL_CHANNELS.best_odds, `best:${marketHash}:${version}`, () => {
        const info = this.#ctx.marketInfo(marketHash);
        const best: Omit<BestOddsUpdate, 'messageId'> = {
          marketHash,
          eventId: levels.eventId,
          outcomeOne: one ? levelToWire(one) : null,
          outcomeTwo: two ? levelToWire(two) : null,
          ...(info ? { sportId: info.sportId, leagueId: info.leagueId } : {}),
        };
        return best;
      });
    }
  }
}

/**
 * A batch's publications, numbered `<seq>:<n>` as they are added: n counts from 0 in each entry. One to
 * a channel nobody follows keeps its number but is not made.
 */
class Publications {
  readonly list: Publication[] = [];
  readonly #observed: (channel: string, user?: string) => boolean;
  #seq = 0;
  #n = 0;

  constructor(observed: (channel: string, user?: string) => boolean) {
    this.#observed = observed;
  }

  startEntry(seq: number): void {
    this.#seq = seq;
    this.#n = 0;
  }

  add(channel: string, make: () => unknown, user?: string): void {
    const n = this.#n++;
    if (this.#observed(channel, user))
      this.list.push({ channel, data: make(), user, messageId: `${this.#seq}:${n}` });
  }

  /** A publication named outside the entries' numbering, made only if its channel is followed. */
  named(channel: string, messageId: string, make: () => unknown, key?: string): void {
    if (this.#observed(channel))
      this.list.push({ channel, data: make(), messageId, ...(key ? { key } : {}) });
  }

  /** A publication with an id of its own (outside the entry's numbering), to a channel known to be followed. */
  push(publication: Publication): void {
    this.list.push(publication);
  }
}

/** A trade row named by its id, status and time (escrow receipts, settlements): the same whoever follows. */
const tradePublication = (channel: string, trade: TradeRecord): Publication => ({
  channel,
  data: tradeToWire(trade),
  messageId: `trade:${trade.id}:${trade.status}:${trade.updatedAt}`,
});

/** A fill row to its user, named by its id and status. */
const fillPublication = (user: string, fill: FillRecord): Publication => ({
  channel: ACCOUNT_FILLS_CHANNEL,
  user,
  data: fillToWire(fill),
  messageId: `fill:${fill.id}:${fill.status}`,
});

/** Whether a place command's order id was a replay (refused as a duplicate). */
function isReplay(events: AppliedEntry['events']): boolean {
  for (const e of events)
    if (e.type === 'orderRejected' && e.code === RejectCode.DUPLICATE_ORDER_ID) return true;
  return false;
}
