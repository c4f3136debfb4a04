import type pg from 'pg';
import type { EngineSnapshot, MarketSnapshot, OrderSnapshot } from '../../engine/index.js';
import type { FillRecord } from '../../records/records.js';
import type { EscrowFills } from '../../sequencer/inputs.js';
import type { ProjectedOrder, SequencedTrade } from '../batch-projection.js';
import {
  type CommittedState,
  type EscrowCoverage,
  type OutstandingItem,
  type ProjectionReads,
  type ProjectionStore,
  type ProjectionWrites,
  positionKey,
} from '../projection-store.js';
import type { PositionRow } from '../state-mirror.js';
import { toFill, toOrder, toTrade } from '../trading-rows.js';
import type { PostgresDatabase } from './postgres-database.js';

type Row = Record<string, unknown>;
type Statement = { text: string; values: unknown[] };

const toProjectedOrder = (r: Row): ProjectedOrder => ({
  ...toOrder(r),
  fillPot: r.fill_pot as string,
  placedSeq: (r.placed_seq as number | null) ?? null,
  activateAt: (r.activate_at as number | null) ?? null,
  commandId: r.command_id as string,
});

const toSequencedTrade = (r: Row): SequencedTrade => ({
  row: toTrade(r),
  lastFillSeq: r.last_fill_seq as number,
});

const toPositionRow = (r: Row): PositionRow => ({
  stakeOne: BigInt(r.stake_one as string),
  stakeTwo: BigInt(r.stake_two as string),
  potOne: BigInt(r.pot_one as string),
  potTwo: BigInt(r.pot_two as string),
  refunded: BigInt(r.refunded as string),
});

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** `INSERT INTO table (columns) SELECT * FROM unnest(arrays)`: one statement for any number of rows. */
function insertRows(
  table: string,
  columns: readonly [name: string, type: string][],
  rows: unknown[][],
  tail = '',
) {
  return {
    text: `INSERT INTO ${table} (${columns.map(([name]) => name).join(', ')})
      SELECT * FROM unnest(${columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}) ${tail}`,
    values: columns.map((_, i) => rows.map((row) => row[i])),
  };
}

/** `UPDATE table SET ... FROM unnest(arrays) AS u(...) WHERE keys match`: one statement for any number of rows. */
function updateRows(
  table: string,
  keys: readonly [name: string, type: string][],
  columns: readonly [name: string, type: string, set?: string][],
  rows: unknown[][],
  where = '',
) {
  const all = [...keys, ...columns];
  return {
    text: `UPDATE ${table} AS r SET ${columns.map(([name, , set]) => `${name} = ${set ?? `u.${name}`}`).join(', ')}
      FROM unnest(${all.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}) AS u(${all.map(([name]) => name).join(', ')})
      WHERE ${keys.map(([name]) => `r.${name} = u.${name}`).join(' AND ')} ${where}`,
    values: all.map((_, i) => rows.map((row) => row[i])),
  };
}

/**
 * The trading projections on PostgreSQL, on a connection of their own in pipeline mode: a batch's reads are
 * a handful of array queries sent at once, and its writes one transaction of one statement per kind of row
 * (`unnest` of arrays), the cursor included, sent at once and committed together. The projector is the
 * only writer of these tables, so its reads between batches see every row it wrote.
 */
export class PostgresProjectionStore implements ProjectionStore {
  private constructor(private readonly client: pg.Client) {}

  static async open(database: PostgresDatabase): Promise<PostgresProjectionStore> {
    return new PostgresProjectionStore(await database.connect({ pipeline: true }));
  }

  private async rows(text: string, values: unknown[] = []): Promise<Row[]> {
    return (await this.client.query(text, values)).rows;
  }

  async cursor(): Promise<number> {
    return (await this.rows('SELECT seq FROM projector_cursor WHERE id = 1'))[0]!.seq as number;
  }

  async read(reads: ProjectionReads): Promise<CommittedState> {
    const none = Promise.resolve([] as Row[]);
    const [orders, trades, positions, refunded, outstanding, windows, matchFills, escrows] =
      await Promise.all([
        reads.orders.length
          ? this.rows('SELECT * FROM orders WHERE id = ANY($1::text[])', [reads.orders])
          : none,
        reads.trades.length
          ? this.rows('SELECT * FROM trades WHERE id = ANY($1::text[])', [reads.trades])
          : none,
        reads.positions.length
          ? this.rows(
              `SELECT p.* FROM positions p JOIN unnest($1::text[], $2::text[]) AS k(market_hash, account)
              ON p.market_hash = k.market_hash AND p.account = k.account`,
              [reads.positions.map((p) => p.marketHash), reads.positions.map((p) => p.account)],
            )
          : none,
        reads.refundMarkets.length
          ? this.rows('SELECT DISTINCT market_hash FROM ce_refunds WHERE market_hash = ANY($1::text[])', [
              reads.refundMarkets,
            ])
          : none,
        reads.outstanding ? this.rows('SELECT id, item FROM settlement_outstanding ORDER BY pos') : none,
        Promise.all(
          reads.windows.map(async ({ firstSeq, lastSeq }) => {
            const [accounts, unpaid] = await Promise.all([
              this.rows('SELECT DISTINCT account FROM fills WHERE seq BETWEEN $1 AND $2 ORDER BY account', [
                firstSeq,
                lastSeq,
              ]),
              this.rows(
                `SELECT market_hash, account FROM settlement_payouts
                WHERE seq BETWEEN $1 AND $2 AND paid_at IS NULL ORDER BY seq, market_hash, account`,
                [firstSeq, lastSeq],
              ),
            ]);
            return {
              accounts: accounts.map((r) => r.account as string),
              unpaid: unpaid.map((r) => ({
                marketHash: r.market_hash as string,
                account: r.account as string,
              })),
            };
          }),
        ),
        Promise.all(
          reads.matches.map(({ seq, matchId }) =>
            this.rows('SELECT * FROM fills WHERE seq = $1 AND match_id = $2 ORDER BY id', [seq, matchId]),
          ),
        ),
        Promise.all(reads.escrows.map((escrow) => this.escrowFills(escrow))),
      ]);
    const matches = matchFills.map((rows) => rows.map(toFill));
    const tradesOf = await this.tradesOf([...matches, ...escrows.map((e) => e.fills)]);
    return {
      orders: new Map(orders.map((r) => [r.id as string, toProjectedOrder(r)])),
      trades: new Map(trades.map((r) => [r.id as string, toSequencedTrade(r)])),
      positions: new Map(
        positions.map((r) => [positionKey(r.market_hash as string, r.account as string), toPositionRow(r)]),
      ),
      refundedMarkets: new Set(refunded.map((r) => r.market_hash as string)),
      outstanding: outstanding as OutstandingItem[],
      windows,
      matches: matches.map((fills) => ({ fills, trades: tradesOf(fills) })),
      escrows: escrows.map((escrow): EscrowCoverage => ({ ...escrow, trades: tradesOf(escrow.fills) })),
    };
  }

  /** The trades of some fills, read at once: per list of fills, its trades in the order of their first fill. */
  private async tradesOf(lists: readonly FillRecord[][]): Promise<(fills: FillRecord[]) => SequencedTrade[]> {
    const ids = [...new Set(lists.flatMap((fills) => fills.map((f) => f.tradeId)))];
    const rows = ids.length ? await this.rows('SELECT * FROM trades WHERE id = ANY($1::text[])', [ids]) : [];
    const byId = new Map(rows.map((r) => [r.id as string, toSequencedTrade(r)]));
    return (fills) =>
      [...new Set(fills.map((f) => f.tradeId))].flatMap((id) => {
        const trade = byId.get(id);
        return trade ? [trade] : [];
      });
  }

  private async escrowFills(escrow: EscrowFills): Promise<Omit<EscrowCoverage, 'trades'>> {
    const fills = (
      'fillId' in escrow
        ? await this.rows('SELECT * FROM fills WHERE seq = $1 AND id = $2', [
            Number.parseInt(escrow.fillId, 10),
            escrow.fillId,
          ])
        : // An escrow covers one account's fills of a flush: by the account's index, bounded by the times of
          // its first and last seq (a fill's created_at is its entry's time).
          await this.rows(
            `SELECT * FROM fills WHERE account = $1
              AND created_at BETWEEN (SELECT created_at FROM fills WHERE seq = $2 LIMIT 1)
                AND (SELECT created_at FROM fills WHERE seq = $3 LIMIT 1)
              AND seq BETWEEN $2 AND $3 ORDER BY seq, id`,
            [escrow.account, escrow.firstSeq, escrow.lastSeq],
          )
    ).map(toFill);
    const account = 'account' in escrow ? escrow.account : fills[0]?.account;
    const markets = [...new Set(fills.map((f) => f.marketHash))];
    const [lock, resolved] = await Promise.all([
      account === undefined
        ? Promise.resolve([] as Row[])
        : this.rows('SELECT through_seq FROM escrow_locks WHERE account = $1', [account]),
      markets.length
        ? this.rows('SELECT market_hash FROM market_settlements WHERE market_hash = ANY($1::text[])', [
            markets,
          ])
        : Promise.resolve([] as Row[]),
    ]);
    const isResolved = new Set(resolved.map((r) => r.market_hash as string));
    return {
      fills,
      lockThroughSeq: (lock[0]?.through_seq as number | undefined) ?? null,
      resolvedMarkets: markets.filter((m) => isResolved.has(m)),
    };
  }

  /** The batch's statements in one transaction, sent at once; the first failure (if any) rolls it back. */
  async write(writes: ProjectionWrites): Promise<void> {
    const statements = [
      { text: 'BEGIN', values: [] },
      ...this.statements(writes),
      { text: 'COMMIT', values: [] },
    ];
    const sent = statements.map((s) => this.client.query(s.text, s.values));
    const settled = await Promise.allSettled(sent);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      // A statement failed: the transaction was aborted and its COMMIT rolled it back (unless the COMMIT
      // itself is what failed); nothing of the batch is written.
      if (this.client.getTransactionStatus?.() === 'E') await this.client.query('ROLLBACK').catch(() => {});
      throw failed.reason;
    }
  }

  private statements(w: ProjectionWrites): Statement[] {
    const out: Statement[] = [];
    const inserted = w.orders.filter((o) => o.meta);
    if (inserted.length)
      out.push(
        insertRows(
          'orders',
          [
            ['id', 'text'],
            ['account', 'text'],
            ['market_hash', 'text'],
            ['event_id', 'text'],
            ['is_outcome_one', 'boolean'],
            ['percentage_odds', 'numeric'],
            ['total_bet_size', 'numeric'],
            ['remaining_size', 'numeric'],
            ['filled_size', 'numeric'],
            ['fill_pot', 'numeric'],
            ['expiry', 'bigint'],
            ['time_in_force', 'text'],
            ['status', 'text'],
            ['inactive_reason', 'text'],
            ['client_order_id', 'text'],
            ['salt', 'text'],
            ['base_token', 'text'],
            ['signature', 'text'],
            ['command_id', 'text'],
            ['placed_seq', 'bigint'],
            ['activate_at', 'bigint'],
            ['created_at', 'bigint'],
            ['updated_at', 'bigint'],
          ],
          inserted.map(({ row: o, meta }) => [
            o.id,
            o.account,
            o.marketHash,
            o.eventId,
            o.isBettingOutcomeOne,
            o.percentageOdds,
            o.totalBetSize,
            o.remainingSize,
            o.filledSize,
            o.fillPot,
            o.expiry,
            o.timeInForce,
            o.status,
            o.inactiveReason,
            o.clientOrderId,
            meta!.salt,
            meta!.baseToken,
            meta!.signature,
            o.commandId,
            o.placedSeq,
            o.activateAt,
            o.createdAt,
            o.updatedAt,
          ]),
        ),
      );
    const updated = w.orders.filter((o) => !o.meta);
    if (updated.length)
      out.push(
        updateRows(
          'orders',
          [['id', 'text']],
          [
            ['remaining_size', 'numeric'],
            ['filled_size', 'numeric'],
            ['fill_pot', 'numeric'],
            ['status', 'text'],
            ['inactive_reason', 'text'],
            ['placed_seq', 'bigint'],
            ['activate_at', 'bigint'],
            ['updated_at', 'bigint'],
          ],
          updated.map(({ row: o }) => [
            o.id,
            o.remainingSize,
            o.filledSize,
            o.fillPot,
            o.status,
            o.inactiveReason,
            o.placedSeq,
            o.activateAt,
            o.updatedAt,
          ]),
        ),
      );
    if (w.fills.length)
      out.push(
        insertRows(
          'fills',
          [
            ['id', 'text'],
            ['match_id', 'text'],
            ['order_id', 'text'],
            ['trade_id', 'text'],
            ['account', 'text'],
            ['market_hash', 'text'],
            ['is_outcome_one', 'boolean'],
            ['is_maker', 'boolean'],
            ['fill_amount', 'numeric'],
            ['pot', 'numeric'],
            ['fill_odds', 'numeric'],
            ['status', 'text'],
            ['seq', 'bigint'],
            ['created_at', 'bigint'],
            ['updated_at', 'bigint'],
            ['ce_refund_amount', 'numeric'],
            ['quarter_line_parent', 'text'],
          ],
          w.fills.map((f) => [
            f.id,
            f.matchId,
            f.orderId,
            f.tradeId,
            f.account,
            f.marketHash,
            f.isBettingOutcomeOne,
            f.isMaker,
            f.fillAmount,
            f.pot,
            f.fillOdds,
            f.status,
            f.seq,
            f.createdAt,
            f.createdAt,
            f.ceRefundAmount,
            f.quarterLineParentMarketHash,
          ]),
        ),
      );
    if (w.failedFills.length) {
      // One row per fill, the last time it failed (as statements run one after the other would leave it).
      const failed = new Map(w.failedFills.map((f) => [`${f.seq}|${f.id}`, f]));
      out.push(
        updateRows(
          'fills',
          [
            ['seq', 'bigint'],
            ['id', 'text'],
          ],
          [
            ['status', 'text'],
            ['updated_at', 'bigint'],
          ],
          [...failed.values()].map((f) => [f.seq, f.id, 'FAILED', f.at]),
        ),
      );
    }
    if (w.refunds.length)
      out.push(
        insertRows(
          'ce_refunds',
          [
            ['seq', 'bigint'],
            ['account', 'text'],
            ['market_hash', 'text'],
            ['fill_id', 'text'],
            ['is_maker', 'boolean'],
            ['amount', 'numeric'],
            ['refunded_total', 'numeric'],
            ['created_at', 'bigint'],
          ],
          w.refunds.map((r) => [
            r.seq,
            r.account,
            r.marketHash,
            r.fillId,
            r.isMaker,
            r.amount,
            r.refundedTotal,
            r.createdAt,
          ]),
        ),
      );
    const newTrades = w.trades.filter((t) => t.isNew);
    if (newTrades.length)
      out.push(
        insertRows(
          'trades',
          [
            ['id', 'text'],
            ['order_id', 'text'],
            ['account', 'text'],
            ['market_hash', 'text'],
            ['event_id', 'text'],
            ['is_outcome_one', 'boolean'],
            ['is_maker', 'boolean'],
            ['stake', 'numeric'],
            ['pot', 'numeric'],
            ['status', 'text'],
            ['last_fill_seq', 'bigint'],
            ['created_at', 'bigint'],
            ['updated_at', 'bigint'],
            ['quarter_line_parent', 'text'],
          ],
          newTrades.map(({ row: t, lastFillSeq }) => [
            t.id,
            t.orderId,
            t.account,
            t.marketHash,
            t.eventId,
            t.isBettingOutcomeOne,
            t.isMaker,
            t.stake,
            t.pot,
            t.status,
            lastFillSeq,
            t.createdAt,
            t.updatedAt,
            t.quarterLineParentMarketHash,
          ]),
        ),
      );
    const changedTrades = w.trades.filter((t) => !t.isNew);
    if (changedTrades.length)
      out.push(
        updateRows(
          'trades',
          [['id', 'text']],
          [
            ['stake', 'numeric'],
            ['pot', 'numeric'],
            ['status', 'text'],
            ['last_fill_seq', 'bigint'],
            ['updated_at', 'bigint'],
          ],
          changedTrades.map(({ row: t, lastFillSeq }) => [
            t.id,
            t.stake,
            t.pot,
            t.status,
            lastFillSeq,
            t.updatedAt,
          ]),
        ),
      );
    if (w.resolutions.length)
      out.push(
        insertRows(
          'market_settlements',
          [
            ['market_hash', 'text'],
            ['outcome', 'smallint'],
            ['settled_at', 'bigint'],
          ],
          w.resolutions.map((r) => [r.marketHash, r.outcome, r.at]),
        ),
      );
    if (w.payouts.length)
      out.push(
        insertRows(
          'settlement_payouts',
          [
            ['market_hash', 'text'],
            ['account', 'text'],
            ['seq', 'bigint'],
          ],
          w.payouts.map((p) => [p.marketHash, p.account, p.seq]),
          'ON CONFLICT (market_hash, account) DO NOTHING',
        ),
      );
    if (w.paid.length) {
      // Paid once: the first time it lands.
      const paid = new Map<string, (typeof w.paid)[number]>();
      for (const p of w.paid)
        if (!paid.has(positionKey(p.marketHash, p.account)))
          paid.set(positionKey(p.marketHash, p.account), p);
      out.push(
        updateRows(
          'settlement_payouts',
          [
            ['market_hash', 'text'],
            ['account', 'text'],
          ],
          [['paid_at', 'bigint']],
          [...paid.values()].map((p) => [p.marketHash, p.account, p.at]),
          'AND r.paid_at IS NULL',
        ),
      );
    }
    if (w.locks.length) {
      // A watermark only moves forward: per account, the first of the highest.
      const locks = new Map<string, (typeof w.locks)[number]>();
      for (const l of w.locks) {
        const kept = locks.get(l.account);
        if (!kept || l.throughSeq > kept.throughSeq) locks.set(l.account, l);
      }
      out.push(
        insertRows(
          'escrow_locks',
          [
            ['account', 'text'],
            ['through_seq', 'bigint'],
            ['locked_at', 'bigint'],
          ],
          [...locks.values()].map((l) => [l.account, l.throughSeq, l.at]),
          `ON CONFLICT (account) DO UPDATE SET through_seq = excluded.through_seq, locked_at = excluded.locked_at
            WHERE excluded.through_seq > escrow_locks.through_seq`,
        ),
      );
    }
    out.push(...outstandingStatements(w.outstanding));
    if (w.block !== null)
      out.push({
        text: 'UPDATE escrow_cursor SET block_number = $1 WHERE id = 1 AND block_number < $1',
        values: [w.block],
      });
    if (w.balances.size)
      out.push(
        insertRows(
          'balances',
          [
            ['account', 'text'],
            ['available', 'numeric'],
            ['escrowed', 'numeric'],
            ['updated_at', 'bigint'],
          ],
          [...w.balances].map(([account, b]) => [
            account,
            b.available.toString(),
            b.escrowed.toString(),
            w.at,
          ]),
          `ON CONFLICT (account) DO UPDATE SET available = excluded.available, escrowed = excluded.escrowed,
            updated_at = excluded.updated_at`,
        ),
      );
    if (w.owed.size)
      out.push(
        insertRows(
          'balances',
          [
            ['account', 'text'],
            ['available', 'numeric'],
            ['escrowed', 'numeric'],
            ['owed', 'numeric'],
            ['updated_at', 'bigint'],
          ],
          [...w.owed].map(([account, owed]) => [account, '0', '0', owed.toString(), w.at]),
          'ON CONFLICT (account) DO UPDATE SET owed = excluded.owed, updated_at = excluded.updated_at',
        ),
      );
    const ended = w.positions.filter((p) => !p.row);
    if (ended.length)
      out.push({
        text: `DELETE FROM positions p USING unnest($1::text[], $2::text[]) AS k(market_hash, account)
          WHERE p.market_hash = k.market_hash AND p.account = k.account`,
        values: [ended.map((p) => p.marketHash), ended.map((p) => p.account)],
      });
    const held = w.positions.filter((p) => p.row);
    if (held.length)
      out.push(
        insertRows(
          'positions',
          [
            ['market_hash', 'text'],
            ['account', 'text'],
            ['stake_one', 'numeric'],
            ['stake_two', 'numeric'],
            ['pot_one', 'numeric'],
            ['pot_two', 'numeric'],
            ['refunded', 'numeric'],
          ],
          held.map(({ marketHash, account, row }) => [
            marketHash,
            account,
            row!.stakeOne.toString(),
            row!.stakeTwo.toString(),
            row!.potOne.toString(),
            row!.potTwo.toString(),
            row!.refunded.toString(),
          ]),
          `ON CONFLICT (market_hash, account) DO UPDATE SET stake_one = excluded.stake_one,
            stake_two = excluded.stake_two, pot_one = excluded.pot_one, pot_two = excluded.pot_two,
            refunded = excluded.refunded`,
        ),
      );
    const markets = [...w.markets];
    const opened = markets.filter(([, m]) => m.openSeq !== undefined);
    if (opened.length)
      out.push(
        insertRows(
          'engine_markets',
          [
            ['market_hash', 'text'],
            ['event_id', 'text'],
            ['open_seq', 'bigint'],
            ['status', 'text'],
            ['version', 'bigint'],
            ['whole_leg', 'text'],
            ['half_leg', 'text'],
          ],
          opened.map(([marketHash, m]) => [
            marketHash,
            m.eventId,
            m.openSeq,
            m.status,
            m.version,
            m.legs?.[0] ?? null,
            m.legs?.[1] ?? null,
          ]),
        ),
      );
    const changed = markets.filter(([, m]) => m.openSeq === undefined);
    if (changed.length)
      out.push(
        updateRows(
          'engine_markets',
          [['market_hash', 'text']],
          [
            ['status', 'text', 'coalesce(u.status, r.status)'],
            ['version', 'bigint', 'coalesce(u.version, r.version)'],
          ],
          changed.map(([marketHash, m]) => [marketHash, m.status ?? null, m.version ?? null]),
        ),
      );
    out.push({ text: 'UPDATE projector_cursor SET seq = $1 WHERE id = 1', values: [w.cursor] });
    return out;
  }

  /** The engine state as the projections hold it, in the engine's canonical snapshot form. */
  async engineSnapshot(ladderSize: number, engineLastSeq: number): Promise<EngineSnapshot> {
    const [balanceRows, positionRows, marketRows, orderRows] = await Promise.all([
      this.rows(
        'SELECT account, available, escrowed, owed FROM balances WHERE available <> 0 OR escrowed <> 0 OR owed <> 0',
      ),
      this.rows('SELECT * FROM positions'),
      this.rows('SELECT * FROM engine_markets ORDER BY open_seq'),
      this.rows(`SELECT id, account, market_hash, is_outcome_one, percentage_odds, total_bet_size, remaining_size,
          expiry, placed_seq FROM orders WHERE status = 'ACTIVE' ORDER BY placed_seq`),
    ]);
    const balances = balanceRows as { account: string; available: string; escrowed: string; owed: string }[];
    balances.sort((a, b) => compare(a.account, b.account));
    const netDeposits = balances.reduce(
      (sum, b) => sum + BigInt(b.available) + BigInt(b.escrowed) - BigInt(b.owed),
      0n,
    );
    const positions = new Map<string, [string, string, string, string, string, string][]>();
    for (const row of positionRows as Record<string, string>[]) {
      const list = positions.get(row.market_hash!) ?? [];
      list.push([row.account!, row.stake_one!, row.stake_two!, row.pot_one!, row.pot_two!, row.refunded!]);
      positions.set(row.market_hash!, list);
    }
    const markets: MarketSnapshot[] = marketRows.map((m) => ({
      marketHash: m.market_hash as string,
      eventId: m.event_id as string,
      status: m.status as MarketSnapshot['status'],
      version: m.version as number,
      positions: (positions.get(m.market_hash as string) ?? []).sort((a, b) => compare(a[0], b[0])),
      ...(m.whole_leg !== null && m.half_leg !== null
        ? { legs: [m.whole_leg as string, m.half_leg as string] as const }
        : {}),
    }));
    const scale = 10n ** 20n;
    const orders: OrderSnapshot[] = orderRows.map((o) => [
      o.id as string,
      o.account as string,
      o.market_hash as string,
      o.is_outcome_one as boolean,
      Number((BigInt(o.percentage_odds as string) * BigInt(ladderSize)) / scale),
      o.total_bet_size as string,
      o.remaining_size as string,
      o.expiry as number,
      o.placed_seq as number,
    ]);
    return {
      format: 2,
      ladderSize,
      lastSeq: engineLastSeq,
      netDeposits: netDeposits.toString(),
      accounts: balances.map((b) =>
        b.owed === '0'
          ? ([b.account, b.available, b.escrowed] as const)
          : ([b.account, b.available, b.escrowed, b.owed] as const),
      ),
      markets,
      orders,
    };
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/** Items kept and landed, in order: each run of adds one INSERT (in its order), each run of removes one DELETE. */
function outstandingStatements(ops: ProjectionWrites['outstanding']): Statement[] {
  const out: Statement[] = [];
  for (let i = 0; i < ops.length; ) {
    const adding = 'add' in ops[i]!;
    let j = i;
    while (j < ops.length && 'add' in ops[j]! === adding) j++;
    const run = ops.slice(i, j);
    if (adding) {
      const items = run.map((op) => (op as { add: OutstandingItem }).add);
      out.push({
        text: `INSERT INTO settlement_outstanding (id, item)
          SELECT id, item FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(id, item, n) ORDER BY n
          ON CONFLICT (id) DO NOTHING`,
        values: [items.map((a) => a.id), items.map((a) => a.item)],
      });
    } else {
      out.push({
        text: 'DELETE FROM settlement_outstanding WHERE id = ANY($1::text[])',
        values: [run.map((op) => (op as { remove: string }).remove)],
      });
    }
    i = j;
  }
  return out;
}
