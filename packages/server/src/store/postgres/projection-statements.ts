import { type OutstandingItem, type ProjectionWrites, positionKey } from '../projection-store.js';
import { insertRows, type Statement, updateRows } from './unnest.js';

/**
 * A batch's writes as statements, one per kind of row (`unnest` of arrays: any number of rows each), in the
 * order they run in its transaction, the cursor last.
 */
export function projectionStatements(w: ProjectionWrites): Statement[] {
  return [
    ...tradingRows(w),
    ...settlementRows(w),
    ...engineStateRows(w),
    { text: 'UPDATE projector_cursor SET seq = $1 WHERE id = 1', values: [w.cursor] },
  ];
}

/** Orders, fills, refunds and trades: inserted when new, else updated. */
function tradingRows(w: ProjectionWrites): Statement[] {
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
  return out;
}

/** What settlement recorded: resolutions, payouts and what was paid, chain watermarks, items kept, the block. */
function settlementRows(w: ProjectionWrites): Statement[] {
  const out: Statement[] = [];
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
      if (!paid.has(positionKey(p.marketHash, p.account))) paid.set(positionKey(p.marketHash, p.account), p);
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
  return out;
}

/** The engine's state as the projections mirror it: balances, positions and markets. */
function engineStateRows(w: ProjectionWrites): Statement[] {
  const out: Statement[] = [];
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
        [...w.balances].map(([account, b]) => [account, b.available.toString(), b.escrowed.toString(), w.at]),
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
          ['parlay', 'text'],
        ],
        opened.map(([marketHash, m]) => [
          marketHash,
          m.eventId,
          m.openSeq,
          m.status,
          m.version,
          m.legs?.[0] ?? null,
          m.legs?.[1] ?? null,
          m.parlay ? JSON.stringify(m.parlay) : null,
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
  return out;
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
