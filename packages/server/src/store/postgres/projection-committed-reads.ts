import type { FillRecord } from '../../records/records.js';
import type { EscrowFills } from '../../sequencer/inputs.js';
import type { ProjectedOrder, SequencedTrade } from '../batch-projection.js';
import {
  type CommittedState,
  type EscrowCoverage,
  type OutstandingItem,
  type ProjectionReads,
  positionKey,
} from '../projection-store.js';
import type { PositionRow } from '../state-mirror.js';
import { toFill, toOrder, toTrade } from '../trading-rows.js';

export type Row = Record<string, unknown>;
/** Runs one statement and gives its rows (the projection store's connection, in pipeline mode). */
export type Query = (text: string, values?: unknown[]) => Promise<Row[]>;

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

/**
 * The committed rows a batch's projection reads (projection-reads.ts), each kind in one array query, all sent
 * at once; then the trades of the fills read for reversals and escrows.
 */
export async function readCommitted(query: Query, reads: ProjectionReads): Promise<CommittedState> {
  const none = Promise.resolve([] as Row[]);
  const [orders, trades, positions, refunded, outstanding, windows, matchFills, escrows] = await Promise.all([
    reads.orders.length ? query('SELECT * FROM orders WHERE id = ANY($1::text[])', [reads.orders]) : none,
    reads.trades.length ? query('SELECT * FROM trades WHERE id = ANY($1::text[])', [reads.trades]) : none,
    reads.positions.length
      ? query(
          `SELECT p.* FROM positions p JOIN unnest($1::text[], $2::text[]) AS k(market_hash, account)
            ON p.market_hash = k.market_hash AND p.account = k.account`,
          [reads.positions.map((p) => p.marketHash), reads.positions.map((p) => p.account)],
        )
      : none,
    reads.refundMarkets.length
      ? query('SELECT DISTINCT market_hash FROM ce_refunds WHERE market_hash = ANY($1::text[])', [
          reads.refundMarkets,
        ])
      : none,
    reads.outstanding ? query('SELECT id, item FROM settlement_outstanding ORDER BY pos') : none,
    Promise.all(
      reads.windows.map(async ({ firstSeq, lastSeq }) => {
        const [accounts, unpaid] = await Promise.all([
          query('SELECT DISTINCT account FROM fills WHERE seq BETWEEN $1 AND $2 ORDER BY account', [
            firstSeq,
            lastSeq,
          ]),
          query(
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
        query('SELECT * FROM fills WHERE seq = $1 AND match_id = $2 ORDER BY id', [seq, matchId]),
      ),
    ),
    Promise.all(reads.escrows.map((escrow) => escrowFills(query, escrow))),
  ]);
  const matches = matchFills.map((rows) => rows.map(toFill));
  const tradesOfFills = await tradesOf(query, [...matches, ...escrows.map((e) => e.fills)]);
  return {
    orders: new Map(orders.map((r) => [r.id as string, toProjectedOrder(r)])),
    trades: new Map(trades.map((r) => [r.id as string, toSequencedTrade(r)])),
    positions: new Map(
      positions.map((r) => [positionKey(r.market_hash as string, r.account as string), toPositionRow(r)]),
    ),
    refundedMarkets: new Set(refunded.map((r) => r.market_hash as string)),
    outstanding: outstanding as OutstandingItem[],
    windows,
    matches: matches.map((fills) => ({ fills, trades: tradesOfFills(fills) })),
    escrows: escrows.map((escrow): EscrowCoverage => ({ ...escrow, trades: tradesOfFills(escrow.fills) })),
  };
}

/** The trades of some fills, read at once: per list of fills, its trades in the order of their first fill. */
async function tradesOf(
  query: Query,
  lists: readonly FillRecord[][],
): Promise<(fills: FillRecord[]) => SequencedTrade[]> {
  const ids = [...new Set(lists.flatMap((fills) => fills.map((f) => f.tradeId)))];
  const rows = ids.length ? await query('SELECT * FROM trades WHERE id = ANY($1::text[])', [ids]) : [];
  const byId = new Map(rows.map((r) => [r.id as string, toSequencedTrade(r)]));
  return (fills) =>
    [...new Set(fills.map((f) => f.tradeId))].flatMap((id) => {
      const trade = byId.get(id);
      return trade ? [trade] : [];
    });
}

/** The fills an escrow receipt covers, with its account's chain watermark and which of their markets are resolved. */
async function escrowFills(query: Query, escrow: EscrowFills): Promise<Omit<EscrowCoverage, 'trades'>> {
  const fills = (
    'fillId' in escrow
      ? await query('SELECT * FROM fills WHERE seq = $1 AND id = $2', [
          Number.parseInt(escrow.fillId, 10),
          escrow.fillId,
        ])
      : // An escrow covers one account's fills of a flush: by the account's index, bounded by the times of
        // its first and last seq (a fill's created_at is its entry's time).
        await query(
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
      : query('SELECT through_seq FROM escrow_locks WHERE account = $1', [account]),
    markets.length
      ? query('SELECT market_hash FROM market_settlements WHERE market_hash = ANY($1::text[])', [markets])
      : Promise.resolve([] as Row[]),
  ]);
  const isResolved = new Set(resolved.map((r) => r.market_hash as string));
  return {
    fills,
    lockThroughSeq: (lock[0]?.through_seq as number | undefined) ?? null,
    resolvedMarkets: markets.filter((m) => isResolved.has(m)),
  };
}
