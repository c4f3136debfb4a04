/**
 * Fills and trades with what decides how they show (`records/shown.ts`): their account's chain watermark,
 * their market's resolution and the account's payout in it; a trade also with whether its market has had a
 * refund. Used as a table (`AS x`): the planner pulls the conditions into the row table's indexes.
 */
const withSettlement = (table: 'fills' | 'trades', x: 'f' | 't', extra = '') =>
  `(SELECT ${x}.*, l.through_seq AS lock_seq, l.locked_at AS locked_at, s.outcome AS resolved_outcome,
      s.settled_at AS resolved_at, p.market_hash IS NOT NULL AS has_payout, p.paid_at AS paid_at${extra}
    FROM ${table} ${x} LEFT JOIN escrow_locks l ON l.account = ${x}.account
      LEFT JOIN market_settlements s ON s.market_hash = ${x}.market_hash
      LEFT JOIN settlement_payouts p ON p.market_hash = ${x}.market_hash AND p.account = ${x}.account) AS ${x}s`;
export const FILLS = withSettlement('fills', 'f');
export const TRADES = withSettlement(
  'trades',
  't',
  ', EXISTS (SELECT 1 FROM ce_refunds r WHERE r.market_hash = t.market_hash) AS market_has_refunds',
);
