import type { Database, Statement } from 'better-sqlite3';
import {
  type DoneReason,
  type Engine,
  type EngineEvent,
  type EngineSnapshot,
  type MarketSnapshot,
  type OrderSnapshot,
  RejectCode,
} from '../../engine/index.js';
import type { AppliedEntry, OrderMeta, PlaceOrderInput } from '../../sequencer/inputs.js';
import { encodeInput } from '../../sequencer/journal-codec.js';
import { BatchProjection, type EntryChanges, type ProjectedOrder } from '../batch-projection.js';
import { toOrder, toTrade } from './sqlite-trading-queries.js';
import { type WalSync, walSync } from './wal-sync.js';
import { withWriteGate } from './write-gate.js';
import { writeTransaction } from './write-transaction.js';

/** Why an order the engine refused ends up inactive. */
function reasonOfReject(code: string): DoneReason {
  switch (code) {
    case RejectCode.MARKET_CLOSED:
    case RejectCode.MARKET_RESOLVED:
    case RejectCode.MARKET_NOT_FOUND:
      return 'EVENT_LIFECYCLE';
    case RejectCode.ORDER_EXPIRED:
      return 'EXPIRED';
    case RejectCode.INSUFFICIENT_BALANCE:
      return 'INSUFFICIENT_BALANCE';
    default:
      return 'SYSTEM';
  }
}

/** Bounds the open-order row cache (about 600 bytes a row); the oldest entries go first. */
const OPEN_ORDER_CACHE_SIZE = 65_536;

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const toProjectedOrder = (r: Record<string, unknown>): ProjectedOrder => ({
  ...toOrder(r),
  fillPot: r.fill_pot as string,
  placedSeq: (r.placed_seq as number | null) ?? null,
  activateAt: (r.activate_at as number | null) ?? null,
  commandId: r.command_id as string,
});

/**
 * The SQLite side of the sequencer: one transaction per batch writes the journal and every projection
 * (orders, fills, trades, balances, positions, markets). History rows (orders, fills, trades) follow the
 * events: a BatchProjection computes them in memory and each touched row is written once per batch.
 * Engine-state mirrors (balances, positions, market status) are read from the engine at the end of the
 * batch, so they equal the engine state as of the batch's last seq by construction.
 */
export class SqliteTradingStore {
  private readonly s: Record<string, Statement>;
  private readonly commitTx: (entries: readonly AppliedEntry[], engine: Engine) => void;
  private readonly inTransaction: ((entries: readonly AppliedEntry[]) => void)[] = [];
  private readonly changesByEntry = new WeakMap<AppliedEntry, EntryChanges>();
  /** Set when commits are synced (WAL, synchronous=FULL): a batch is acknowledged once `sync` resolves. */
  private readonly walSync: WalSync | null;
  /**
   * Open (ACTIVE, PENDING) orders' rows as last committed, so that a maker's row is not read back for each
   * of its fills. Only this store writes order rows, so an entry is never stale; a miss reads the database.
   */
  private readonly openOrders = new Map<string, ProjectedOrder>();
  /** Order rows the batch being written wrote: they enter `openOrders` once it has committed. */
  private writtenOrders: ProjectedOrder[] = [];

  constructor(
    private readonly db: Database,
    /** How many open orders' rows are kept in memory (tests make it small to exercise evictions). */
    private readonly openOrderCacheSize = OPEN_ORDER_CACHE_SIZE,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      journal: p('INSERT INTO journal (seq, ts, kind, payload) VALUES (?, ?, ?, ?)'),
      order: p('SELECT * FROM orders WHERE id = ?'),
      trade: p('SELECT * FROM trades WHERE id = ?'),
      insertOrder: p(`INSERT INTO orders (id, account, market_hash, event_id, is_outcome_one, percentage_odds,
          total_bet_size, remaining_size, filled_size, fill_pot, expiry, time_in_force, status, inactive_reason,
          client_order_id, salt, base_token, signature, command_id, placed_seq, activate_at, created_at, updated_at)
        VALUES (@id, @account, @marketHash, @eventId, @isOne, @odds, @total, @remaining, @filled, @fillPot,
          @expiry, @tif, @status, @reason, @clientOrderId, @salt, @baseToken, @signature, @commandId, @placedSeq,
          @activateAt, @createdAt, @updatedAt)`),
      updateOrder: p(`UPDATE orders SET remaining_size = ?, filled_size = ?, fill_pot = ?, status = ?,
          inactive_reason = ?, placed_seq = ?, activate_at = ?, updated_at = ? WHERE id = ?`),
      insertFill:
        p(`INSERT INTO fills (id, match_id, order_id, trade_id, account, market_hash, is_outcome_one,
          is_maker, fill_amount, pot, fill_odds, status, seq, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'MATCHED', ?, ?, ?)`),
      insertTrade:
        p(`INSERT INTO trades (id, order_id, account, market_hash, event_id, is_outcome_one, is_maker,
          stake, pot, status, last_fill_seq, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      updateTrade: p(
        'UPDATE trades SET stake = ?, pot = ?, status = ?, last_fill_seq = ?, updated_at = ? WHERE id = ?',
      ),
      // The views show the market's MATCHED trades and fills SETTLED from this row (migration 12).
      settleMarket: p('INSERT INTO market_settlements (market_hash, outcome, settled_at) VALUES (?, ?, ?)'),
      balance: p(`INSERT INTO balances (account, available, escrowed, updated_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (account) DO UPDATE SET available = excluded.available, escrowed = excluded.escrowed,
          updated_at = excluded.updated_at`),
      position: p(`INSERT INTO positions (market_hash, account, stake_one, stake_two, pot_one, pot_two)
        VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (market_hash, account) DO UPDATE SET stake_one = excluded.stake_one,
          stake_two = excluded.stake_two, pot_one = excluded.pot_one, pot_two = excluded.pot_two`),
      deletePosition: p('DELETE FROM positions WHERE market_hash = ? AND account = ?'),
      market:
        p(`INSERT INTO engine_markets (market_hash, event_id, open_seq, status, version) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (market_hash) DO UPDATE SET status = excluded.status, version = excluded.version`),
    };
    this.commitTx = writeTransaction(db, (entries: readonly AppliedEntry[], engine: Engine) =>
      this.writeBatch(entries, engine),
    );
    this.walSync = walSync(db);
  }

  /** Runs `write` inside every batch's transaction, after the projections: its writes commit with them. */
  onCommitTransaction(write: (entries: readonly AppliedEntry[]) => void): void {
    this.inTransaction.push(write);
  }

  /** The rows a committed entry changed, as they stood after it (for realtime; kept while the entry lives). */
  changesOf(entry: AppliedEntry): EntryChanges | undefined {
    return this.changesByEntry.get(entry);
  }

  /**
   * Writes the batch in one transaction, at once unless the WAL checkpointer is restarting the WAL (then
   * as soon as it is done, the event loop free meanwhile); resolves once the batch is durable.
   */
  async commitBatch(entries: readonly AppliedEntry[], engine: Engine, onWritten?: () => void): Promise<void> {
    const walSync = this.walSync;
    if (!walSync) {
      this.commit(entries, engine);
      return;
    }
    // Unsynced only at commit; checkpoints still sync the WAL before and the database after.
    const written = withWriteGate(this.db, () => walSync.unsynced(() => this.commit(entries, engine)));
    if (written instanceof Promise) await written;
    onWritten?.();
    // Syncs the WAL as it stands now: this batch and every commit before it (an earlier batch whose own
    // sync is still running is durable once both are: the sequencer answers in order).
    await walSync.sync();
  }

  private commit(entries: readonly AppliedEntry[], engine: Engine): void {
    this.writtenOrders = [];
    this.commitTx(entries, engine);
    for (const row of this.writtenOrders) this.rememberCommitted(row);
  }

  /** Keeps an open order's committed row, the oldest one leaving when full; forgets a closed order's. */
  private rememberCommitted(row: ProjectedOrder): void {
    this.openOrders.delete(row.id);
    if (row.status !== 'ACTIVE' && row.status !== 'PENDING') return;
    if (this.openOrders.size >= this.openOrderCacheSize) {
      const oldest = this.openOrders.keys().next();
      if (oldest.done) return;
      this.openOrders.delete(oldest.value);
    }
    this.openOrders.set(row.id, row);
  }

  /** Releases the WAL descriptor (the database itself is closed by its owner). */
  close(): void {
    this.walSync?.close();
  }

  private writeBatch(entries: readonly AppliedEntry[], engine: Engine): void {
    const touchedAccounts = new Set<string>();
    const touchedPositions = new Map<string, Set<string>>();
    const touchedMarkets = new Map<string, number>();
    const touchPosition = (marketHash: string, account: string) => {
      const accounts = touchedPositions.get(marketHash) ?? new Set<string>();
      touchedPositions.set(marketHash, accounts);
      accounts.add(account);
    };
    const rows = new BatchProjection({
      order: (orderId) => {
        // A copy: the projection changes the rows it is given.
        const open = this.openOrders.get(orderId);
        if (open) return { ...open };
        const row = this.s.order!.get(orderId) as Record<string, unknown> | undefined;
        return row ? toProjectedOrder(row) : null;
      },
      trade: (tradeId) => {
        const row = this.s.trade!.get(tradeId) as Record<string, unknown> | undefined;
        return row ? { row: toTrade(row), lastFillSeq: row.last_fill_seq as number } : null;
      },
    });

    for (const entry of entries) {
      const { seq, ts, input } = entry;
      this.s.journal!.run(
        seq,
        ts,
        input.kind === 'engine' ? input.command.type : input.kind,
        encodeInput(input),
      );
      rows.beginEntry(seq, ts);
      if (input.kind === 'admit') rows.admit(input.order, input.meta, input.activateAt);
      else if (input.kind === 'withdraw') rows.withdraw(input.orderIds, input.reason);
      else {
        const place = input.command.type === 'place' ? input.command : null;
        for (const event of entry.events) {
          this.project(event, {
            seq,
            rows,
            place,
            meta: input.meta,
            touchPosition,
            touchedAccounts,
            touchedMarkets,
            ts,
          });
        }
      }
      const changes = rows.endEntry();
      this.changesByEntry.set(entry, changes);
    }
    this.writeRows(rows);

    const ts = entries[entries.length - 1]!.ts;
    for (const account of touchedAccounts) {
      const { available, escrowed } = engine.balance(account);
      this.s.balance!.run(account, available.toString(), escrowed.toString(), ts);
    }
    for (const [marketHash, accounts] of touchedPositions) {
      for (const account of accounts) {
        const position = engine.position(marketHash, account);
        if (!position) this.s.deletePosition!.run(marketHash, account);
        else
          this.s.position!.run(
            marketHash,
            account,
            position.stakeOnOutcomeOne.toString(),
            position.stakeOnOutcomeTwo.toString(),
            position.payoutIfOutcomeOne.toString(),
            position.payoutIfOutcomeTwo.toString(),
          );
      }
    }
    for (const [marketHash, openSeq] of touchedMarkets) {
      const market = engine.market(marketHash);
      if (market) this.s.market!.run(marketHash, market.eventId, openSeq, market.status, market.version);
    }
    for (const write of this.inTransaction) write(entries);
  }

  /** Writes the rows the projection has changed so far, each once. */
  private writeRows(rows: BatchProjection): void {
    const { orders, trades, fills } = rows.takeDirty();
    for (const { row: o, meta } of orders) {
      // Until the batch commits, a later read of the row (after a settlement's mid-batch write) must see
      // this write: from the database, not the cache.
      this.openOrders.delete(o.id);
      // Not copied: the projection hands its rows over here and never changes them again.
      this.writtenOrders.push(o);
      if (meta) {
        this.s.insertOrder!.run({
          id: o.id,
          account: o.account,
          marketHash: o.marketHash,
          eventId: o.eventId,
          isOne: o.isBettingOutcomeOne ? 1 : 0,
          odds: o.percentageOdds,
          total: o.totalBetSize,
          remaining: o.remainingSize,
          filled: o.filledSize,
          fillPot: o.fillPot,
          expiry: o.expiry,
          tif: o.timeInForce,
          status: o.status,
          reason: o.inactiveReason,
          clientOrderId: o.clientOrderId,
          salt: meta.salt,
          baseToken: meta.baseToken,
          signature: meta.signature,
          commandId: o.commandId,
          placedSeq: o.placedSeq,
          activateAt: o.activateAt,
          createdAt: o.createdAt,
          updatedAt: o.updatedAt,
        });
      } else {
        this.s.updateOrder!.run(
          o.remainingSize,
          o.filledSize,
          o.fillPot,
          o.status,
          o.inactiveReason,
          o.placedSeq,
          o.activateAt,
          o.updatedAt,
          o.id,
        );
      }
    }
    for (const f of fills) {
      this.s.insertFill!.run(
        f.id,
        f.matchId,
        f.orderId,
        f.tradeId,
        f.account,
        f.marketHash,
        f.isBettingOutcomeOne ? 1 : 0,
        f.isMaker ? 1 : 0,
        f.fillAmount,
        f.pot,
        f.fillOdds,
        f.seq,
        f.createdAt,
        f.createdAt,
      );
    }
    for (const { row: t, lastFillSeq, isNew } of trades) {
      if (isNew) {
        this.s.insertTrade!.run(
          t.id,
          t.orderId,
          t.account,
          t.marketHash,
          t.eventId,
          t.isBettingOutcomeOne ? 1 : 0,
          t.isMaker ? 1 : 0,
          t.stake,
          t.pot,
          t.status,
          lastFillSeq,
          t.createdAt,
          t.updatedAt,
        );
      } else this.s.updateTrade!.run(t.stake, t.pot, t.status, lastFillSeq, t.updatedAt, t.id);
    }
  }

  private project(
    event: EngineEvent,
    c: {
      seq: number;
      rows: BatchProjection;
      place: PlaceOrderInput | null;
      meta: OrderMeta | undefined;
      touchPosition: (marketHash: string, account: string) => void;
      touchedAccounts: Set<string>;
      touchedMarkets: Map<string, number>;
      ts: number;
    },
  ): void {
    switch (event.type) {
      case 'orderAccepted':
        c.rows.accepted(c.place!, c.meta!);
        break;
      case 'orderRejected':
        // A replayed order id must never overwrite the original order's row.
        if (event.code !== RejectCode.DUPLICATE_ORDER_ID && c.place && c.meta) {
          c.rows.rejected(c.place, c.meta, reasonOfReject(event.code));
        }
        break;
      case 'orderRested':
        c.rows.rested(event.orderId, event.remainingSize, event.filledSize);
        break;
      case 'orderMatched':
        c.rows.matched(event);
        c.touchPosition(event.marketHash, event.makerAccount);
        c.touchPosition(event.marketHash, event.takerAccount);
        break;
      case 'orderDone':
        c.rows.done(event.orderId, event.reason, event.remainingSize, event.filledSize);
        break;
      case 'balanceChanged':
        c.touchedAccounts.add(event.account);
        break;
      case 'levelChanged':
      case 'marketClosed':
        if (!c.touchedMarkets.has(event.marketHash)) c.touchedMarkets.set(event.marketHash, 0);
        break;
      case 'marketOpened':
        c.touchedMarkets.set(event.marketHash, c.seq);
        break;
      case 'marketResolved':
        if (!c.touchedMarkets.has(event.marketHash)) c.touchedMarkets.set(event.marketHash, 0);
        this.s.settleMarket!.run(event.marketHash, event.outcome, c.ts);
        break;
      case 'payout':
        c.touchPosition(event.marketHash, event.account);
        break;
      default:
        break;
    }
  }

  // ------------------------------------------------------------------ recovery reads

  /** Seq and time of the last journaled input, and seq of the last engine command (-1: none yet). */
  sequencerState(): { lastSeq: number; engineLastSeq: number; lastTs: number } {
    const last = this.db.prepare('SELECT seq, ts FROM journal ORDER BY seq DESC LIMIT 1').get() as
      | { seq: number; ts: number }
      | undefined;
    // Read backwards from the end, past the inputs that never reach the engine (admitted in-play orders
    // waiting out their delay, withdrawals): at most a betting delay's worth.
    const engineLastSeq = this.db
      .prepare(
        "SELECT seq FROM journal WHERE json_extract(payload, '$.kind') = 'engine' ORDER BY seq DESC LIMIT 1",
      )
      .pluck()
      .get() as number | undefined;
    return { lastSeq: last?.seq ?? 0, engineLastSeq: engineLastSeq ?? -1, lastTs: last?.ts ?? 0 };
  }

  /** The engine state as the projections hold it, in the engine's canonical snapshot form. */
  engineSnapshotFromProjections(ladderSize: number): EngineSnapshot {
    const { engineLastSeq } = this.sequencerState();
    const balances = this.db
      .prepare("SELECT account, available, escrowed FROM balances WHERE available <> '0' OR escrowed <> '0'")
      .all() as { account: string; available: string; escrowed: string }[];
    balances.sort((a, b) => compare(a.account, b.account));
    const netDeposits = balances.reduce((sum, b) => sum + BigInt(b.available) + BigInt(b.escrowed), 0n);
    const positions = new Map<string, [string, string, string, string, string][]>();
    for (const row of this.db.prepare('SELECT * FROM positions').all() as Record<string, string>[]) {
      const list = positions.get(row.market_hash!) ?? [];
      list.push([row.account!, row.stake_one!, row.stake_two!, row.pot_one!, row.pot_two!]);
      positions.set(row.market_hash!, list);
    }
    const markets: MarketSnapshot[] = (
      this.db.prepare('SELECT * FROM engine_markets ORDER BY open_seq').all() as {
        market_hash: string;
        event_id: string;
        status: MarketSnapshot['status'];
        version: number;
      }[]
    ).map((m) => ({
      marketHash: m.market_hash,
      eventId: m.event_id,
      status: m.status,
      version: m.version,
      positions: (positions.get(m.market_hash) ?? []).sort((a, b) => compare(a[0], b[0])),
    }));
    const scale = 10n ** 20n;
    const orders: OrderSnapshot[] = (
      this.db
        // Through the open orders' partial index (its condition, repeated, lets the planner use it), then sorted.
        .prepare(`SELECT id, account, market_hash, is_outcome_one, percentage_odds, total_bet_size, remaining_size,
            expiry, placed_seq FROM orders WHERE status <> 'INACTIVE' AND status = 'ACTIVE' ORDER BY placed_seq`)
        .all() as Record<string, string | number>[]
    ).map((o) => [
      o.id as string,
      o.account as string,
      o.market_hash as string,
      o.is_outcome_one === 1,
      Number((BigInt(o.percentage_odds as string) * BigInt(ladderSize)) / scale),
      o.total_bet_size as string,
      o.remaining_size as string,
      o.expiry as number,
      o.placed_seq as number,
    ]);
    return {
      format: 1,
      ladderSize,
      lastSeq: engineLastSeq,
      netDeposits: netDeposits.toString(),
      accounts: balances.map((b) => [b.account, b.available, b.escrowed] as const),
      markets,
      orders,
    };
  }

  /** Journal rows after `seq`, in order. */
  *journalAfter(seq: number): IterableIterator<{ seq: number; ts: number; payload: string }> {
    yield* this.db
      .prepare('SELECT seq, ts, payload FROM journal WHERE seq > ? ORDER BY seq')
      .iterate(seq) as IterableIterator<{ seq: number; ts: number; payload: string }>;
  }

  /** The newest checkpoint: the engine's bytes at journal seq `seq`, with the digest recorded with them. */
  latestCheckpoint(): { seq: number; digest: string; snapshot: Uint8Array } | null {
    const row = this.db
      .prepare('SELECT seq, digest, snapshot FROM engine_checkpoints ORDER BY seq DESC LIMIT 1')
      .get() as { seq: number; digest: string; snapshot: Buffer } | undefined;
    return row ? { seq: row.seq, digest: row.digest, snapshot: row.snapshot } : null;
  }

  /** Stores the engine's bytes taken at journal seq `seq` with their digest; keeps the two newest. */
  saveCheckpoint(seq: number, digest: string, snapshot: Uint8Array, now: number): void {
    writeTransaction(this.db, () => {
      this.db
        .prepare(
          'INSERT OR REPLACE INTO engine_checkpoints (seq, digest, snapshot, created_at) VALUES (?, ?, ?, ?)',
        )
        .run(seq, digest, snapshot, now);
      this.db
        .prepare(
          'DELETE FROM engine_checkpoints WHERE seq NOT IN (SELECT seq FROM engine_checkpoints ORDER BY seq DESC LIMIT 2)',
        )
        .run();
    })();
  }
}
