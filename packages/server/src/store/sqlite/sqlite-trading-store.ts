import { createHash } from 'node:crypto';
import { close, fdatasync, openSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import type { Database, Statement } from 'better-sqlite3';
import {
  type DoneReason,
  type Engine,
  type EngineEvent,
  type EngineSnapshot,
  type MarketSnapshot,
  type OrderMatchedEvent,
  type OrderSnapshot,
  RejectCode,
} from '../../engine/index.js';
import type { AppliedEntry, OrderMeta, PlaceOrderInput } from '../../sequencer/inputs.js';
import { encodeInput } from '../../sequencer/journal-codec.js';

/** Trade ids are derived from the order id: one trade per bet (an order's fills together). */
export function tradeIdOf(orderId: string): string {
  return `0x${createHash('sha256').update(`trade:${orderId}`).digest('hex')}`;
}

/** Fill ids name the match and the side: one fill per order per match. */
export const fillIdOf = (matchId: string, side: 'maker' | 'taker') =>
  `${matchId}-${side === 'maker' ? 'M' : 'T'}`;

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

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The SQLite side of the sequencer: one transaction per batch writes the journal and every projection
 * (orders, fills, trades, balances, positions, markets). History (fills, trades, order rows) follows the
 * events; engine-state mirrors (balances, positions, market status) are read from the engine at the end
 * of the batch, so they equal the engine state as of the batch's last seq by construction.
 */
export class SqliteTradingStore {
  private readonly s: Record<string, Statement>;
  private readonly commitTx: (entries: readonly AppliedEntry[], engine: Engine) => void;
  private readonly inTransaction: ((entries: readonly AppliedEntry[]) => void)[] = [];
  /**
   * Set when the database is a WAL file opened with synchronous=FULL (or EXTRA). A batch then commits with
   * synchronous=NORMAL and its WAL frames are flushed with fdatasync on libuv's thread pool before the
   * batch is acknowledged: the same guarantee as FULL (the WAL is on disk before anyone is told), but the
   * event loop keeps parsing and verifying the next requests during the flush instead of blocking in it.
   */
  private readonly walSync: { path: string; normal: Statement; restore: Statement } | null;

  constructor(private readonly db: Database) {
    db.function('big_add', { deterministic: true }, (a: unknown, b: unknown) =>
      (BigInt(a as string) + BigInt(b as string)).toString(),
    );
    db.function('big_sub', { deterministic: true }, (a: unknown, b: unknown) =>
      (BigInt(a as string) - BigInt(b as string)).toString(),
    );
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      journal: p('INSERT INTO journal (seq, ts, kind, payload) VALUES (?, ?, ?, ?)'),
      state: p('UPDATE sequencer_state SET last_seq = ?, engine_last_seq = ? WHERE id = 1'),
      insertOrder: p(`INSERT INTO orders (id, account, market_hash, event_id, is_outcome_one, percentage_odds,
          total_bet_size, remaining_size, filled_size, fill_pot, expiry, time_in_force, status, inactive_reason,
          client_order_id, salt, base_token, signature, command_id, placed_seq, activate_at, created_at, updated_at)
        VALUES (@id, @account, @marketHash, @eventId, @isOne, @odds, @total, @total, '0', '0', @expiry, @tif,
          @status, @reason, @clientOrderId, @salt, @baseToken, @signature, @commandId, @placedSeq, @activateAt,
          @ts, @ts)
        ON CONFLICT (id) DO UPDATE SET status = excluded.status, inactive_reason = excluded.inactive_reason,
          placed_seq = excluded.placed_seq, activate_at = NULL, updated_at = excluded.updated_at`),
      orderRested: p(`UPDATE orders SET status = 'ACTIVE', remaining_size = ?, filled_size = ?, updated_at = ?
        WHERE id = ?`),
      orderFilled: p(`UPDATE orders SET remaining_size = ?, filled_size = big_sub(total_bet_size, ?),
          fill_pot = big_add(fill_pot, ?), updated_at = ? WHERE id = ?`),
      orderDone:
        p(`UPDATE orders SET status = 'INACTIVE', inactive_reason = ?, remaining_size = ?, filled_size = ?,
          activate_at = NULL, updated_at = ? WHERE id = ?`),
      withdraw:
        p(`UPDATE orders SET status = 'INACTIVE', inactive_reason = ?, activate_at = NULL, updated_at = ?
        WHERE id = ? AND status = 'PENDING'`),
      insertFill:
        p(`INSERT INTO fills (id, match_id, order_id, trade_id, account, market_hash, is_outcome_one,
          is_maker, fill_amount, pot, fill_odds, status, seq, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'MATCHED', ?, ?, ?)`),
      upsertTrade:
        p(`INSERT INTO trades (id, order_id, account, market_hash, event_id, is_outcome_one, is_maker,
          stake, pot, status, created_at, updated_at)
        VALUES (@id, @orderId, @account, @marketHash, @eventId, @isOne, @isMaker, @stake, @pot, 'MATCHED', @ts, @ts)
        ON CONFLICT (id) DO UPDATE SET stake = big_add(stake, excluded.stake), pot = big_add(pot, excluded.pot),
          status = CASE WHEN status = 'LOCKED' THEN 'MATCHED' ELSE status END, updated_at = excluded.updated_at`),
      settleTrades: p(`UPDATE trades SET status = 'SETTLED', outcome = @outcome,
          payout = CASE WHEN @outcome = 0 THEN stake WHEN is_outcome_one = (@outcome = 1) THEN pot ELSE '0' END,
          updated_at = @ts
        WHERE market_hash = @marketHash AND status IN ('MATCHED', 'LOCKED')`),
      settleFills: p(`UPDATE fills SET status = 'SETTLED', updated_at = ?
        WHERE market_hash = ? AND status IN ('MATCHED', 'LOCKED')`),
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
    this.commitTx = db.transaction((entries: readonly AppliedEntry[], engine: Engine) =>
      this.writeBatch(entries, engine),
    );
    const synchronous = Number(db.pragma('synchronous', { simple: true }));
    const wal = !db.memory && db.pragma('journal_mode', { simple: true }) === 'wal';
    this.walSync =
      wal && synchronous >= 2
        ? {
            // Absolute now, as SQLite made it at open: a later chdir must not point us at another file.
            path: resolvePath(`${db.name}-wal`),
            normal: db.prepare('PRAGMA synchronous = NORMAL'),
            restore: db.prepare(`PRAGMA synchronous = ${synchronous}`),
          }
        : null;
  }

  /** Runs `write` inside every batch's transaction, after the projections: its writes commit with them. */
  onCommitTransaction(write: (entries: readonly AppliedEntry[]) => void): void {
    this.inTransaction.push(write);
  }

  /** Writes the batch in one transaction; resolves once it is durable. */
  async commitBatch(entries: readonly AppliedEntry[], engine: Engine): Promise<void> {
    const walSync = this.walSync;
    if (!walSync) {
      this.commitTx(entries, engine);
      return;
    }
    // NORMAL only skips the sync at commit; checkpoints still sync the WAL before and the database after.
    walSync.normal.run();
    try {
      this.commitTx(entries, engine);
    } finally {
      walSync.restore.run();
    }
    // Any descriptor of the file will do: fdatasync flushes the inode's dirty pages, ours included.
    const fd = openSync(walSync.path, 'r');
    await new Promise<void>((resolve, reject) =>
      fdatasync(fd, (error) => {
        close(fd, () => {});
        if (error) reject(error);
        else resolve();
      }),
    );
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

    for (const entry of entries) {
      const { seq, ts, input } = entry;
      this.s.journal!.run(
        seq,
        ts,
        input.kind === 'engine' ? input.command.type : input.kind,
        encodeInput(input),
      );
      if (input.kind === 'admit') {
        this.insertOrder(input.order, input.meta, {
          ts,
          status: 'PENDING',
          placedSeq: null,
          activateAt: input.activateAt,
        });
        continue;
      }
      if (input.kind === 'withdraw') {
        for (const id of input.orderIds) this.s.withdraw!.run(input.reason, ts, id);
        continue;
      }
      const place = input.command.type === 'place' ? input.command : null;
      for (const event of entry.events) {
        this.project(event, {
          seq,
          ts,
          place,
          meta: input.meta,
          touchPosition,
          touchedAccounts,
          touchedMarkets,
        });
      }
    }

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
    this.s.state!.run(entries[entries.length - 1]!.seq, engine.lastAppliedSeq);
    for (const write of this.inTransaction) write(entries);
  }

  private project(
    event: EngineEvent,
    c: {
      seq: number;
      ts: number;
      place: PlaceOrderInput | null;
      meta: OrderMeta | undefined;
      touchPosition: (marketHash: string, account: string) => void;
      touchedAccounts: Set<string>;
      touchedMarkets: Map<string, number>;
    },
  ): void {
    switch (event.type) {
      case 'orderAccepted':
        this.insertOrder(c.place!, c.meta!, {
          ts: c.ts,
          status: 'PENDING',
          placedSeq: c.seq,
          activateAt: null,
        });
        break;
      case 'orderRejected':
        // A replayed order id must never overwrite the original order's row.
        if (event.code !== RejectCode.DUPLICATE_ORDER_ID && c.place && c.meta) {
          this.insertOrder(c.place, c.meta, {
            ts: c.ts,
            status: 'INACTIVE',
            reason: reasonOfReject(event.code),
            placedSeq: null,
            activateAt: null,
          });
        }
        break;
      case 'orderRested':
        this.s.orderRested!.run(
          event.remainingSize.toString(),
          event.filledSize.toString(),
          c.ts,
          event.orderId,
        );
        break;
      case 'orderMatched':
        this.projectMatch(event, c.seq, c.ts);
        c.touchPosition(event.marketHash, event.makerAccount);
        c.touchPosition(event.marketHash, event.takerAccount);
        break;
      case 'orderDone':
        this.s.orderDone!.run(
          event.reason,
          event.remainingSize.toString(),
          event.filledSize.toString(),
          c.ts,
          event.orderId,
        );
        break;
      case 'balanceChanged':
        c.touchedAccounts.add(event.account);
        break;
      case 'levelChanged':
        if (!c.touchedMarkets.has(event.marketHash)) c.touchedMarkets.set(event.marketHash, 0);
        break;
      case 'marketOpened':
        c.touchedMarkets.set(event.marketHash, c.seq);
        break;
      case 'marketClosed':
        if (!c.touchedMarkets.has(event.marketHash)) c.touchedMarkets.set(event.marketHash, 0);
        break;
      case 'marketResolved':
        if (!c.touchedMarkets.has(event.marketHash)) c.touchedMarkets.set(event.marketHash, 0);
        this.s.settleTrades!.run({ outcome: event.outcome, ts: c.ts, marketHash: event.marketHash });
        this.s.settleFills!.run(c.ts, event.marketHash);
        break;
      case 'payout':
        c.touchPosition(event.marketHash, event.account);
        break;
      default:
        break;
    }
  }

  private projectMatch(e: OrderMatchedEvent, seq: number, ts: number): void {
    const pot = (e.makerStake + e.takerStake).toString();
    const sides = [
      {
        side: 'maker' as const,
        orderId: e.makerOrderId,
        account: e.makerAccount,
        isOne: e.makerIsBettingOutcomeOne,
        stake: e.makerStake,
        remaining: e.makerRemainingSize,
        odds: e.makerOdds,
      },
      {
        side: 'taker' as const,
        orderId: e.takerOrderId,
        account: e.takerAccount,
        isOne: !e.makerIsBettingOutcomeOne,
        stake: e.takerStake,
        remaining: e.takerRemainingSize,
        odds: e.takerOdds,
      },
    ];
    for (const s of sides) {
      const stake = s.stake.toString();
      const remaining = s.remaining.toString();
      this.s.orderFilled!.run(remaining, remaining, pot, ts, s.orderId);
      const tradeId = tradeIdOf(s.orderId);
      this.s.insertFill!.run(
        fillIdOf(e.matchId, s.side),
        e.matchId,
        s.orderId,
        tradeId,
        s.account,
        e.marketHash,
        s.isOne ? 1 : 0,
        s.side === 'maker' ? 1 : 0,
        stake,
        pot,
        s.odds.toString(),
        seq,
        ts,
        ts,
      );
      this.s.upsertTrade!.run({
        id: tradeId,
        orderId: s.orderId,
        account: s.account,
        marketHash: e.marketHash,
        eventId: e.eventId,
        isOne: s.isOne ? 1 : 0,
        isMaker: s.side === 'maker' ? 1 : 0,
        stake,
        pot,
        ts,
      });
    }
  }

  private insertOrder(
    order: PlaceOrderInput,
    meta: OrderMeta,
    at: { ts: number; status: string; reason?: string; placedSeq: number | null; activateAt: number | null },
  ): void {
    this.s.insertOrder!.run({
      id: order.orderId,
      account: order.account,
      marketHash: order.marketHash,
      eventId: meta.eventId,
      isOne: order.isBettingOutcomeOne ? 1 : 0,
      odds: order.percentageOdds.toString(),
      total: order.totalBetSize.toString(),
      expiry: order.expiry,
      tif: order.timeInForce,
      status: at.status,
      reason: at.reason ?? null,
      clientOrderId: meta.clientOrderId,
      salt: meta.salt,
      baseToken: meta.baseToken,
      signature: meta.signature,
      commandId: meta.commandId,
      placedSeq: at.placedSeq,
      activateAt: at.activateAt,
      ts: at.ts,
    });
  }

  // ------------------------------------------------------------------ recovery reads

  /** Seq of the last journaled input and of the last engine command. */
  sequencerState(): { lastSeq: number; engineLastSeq: number; lastTs: number } {
    const row = this.db
      .prepare('SELECT last_seq, engine_last_seq FROM sequencer_state WHERE id = 1')
      .get() as {
      last_seq: number;
      engine_last_seq: number;
    };
    const lastTs =
      (this.db.prepare('SELECT ts FROM journal ORDER BY seq DESC LIMIT 1').pluck().get() as number) ?? 0;
    return { lastSeq: row.last_seq, engineLastSeq: row.engine_last_seq, lastTs };
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
        .prepare(`SELECT id, account, market_hash, is_outcome_one, percentage_odds, total_bet_size, remaining_size,
            expiry, placed_seq FROM orders WHERE status = 'ACTIVE' ORDER BY placed_seq`)
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

  latestCheckpoint(): { seq: number; stateHash: string; snapshot: EngineSnapshot } | null {
    const row = this.db
      .prepare('SELECT seq, state_hash, snapshot FROM engine_checkpoints ORDER BY seq DESC LIMIT 1')
      .get() as { seq: number; state_hash: string; snapshot: string } | undefined;
    return row ? { seq: row.seq, stateHash: row.state_hash, snapshot: JSON.parse(row.snapshot) } : null;
  }

  /** Stores an engine snapshot taken at journal seq `seq`; keeps the two newest. */
  saveCheckpoint(seq: number, stateHash: string, snapshot: EngineSnapshot, now: number): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          'INSERT OR REPLACE INTO engine_checkpoints (seq, state_hash, snapshot, created_at) VALUES (?, ?, ?, ?)',
        )
        .run(seq, stateHash, JSON.stringify(snapshot), now);
      this.db
        .prepare(
          'DELETE FROM engine_checkpoints WHERE seq NOT IN (SELECT seq FROM engine_checkpoints ORDER BY seq DESC LIMIT 2)',
        )
        .run();
    })();
  }
}
