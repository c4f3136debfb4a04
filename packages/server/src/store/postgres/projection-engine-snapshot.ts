import type { EngineSnapshot } from '../../engine/index.js';
import { engineSnapshotFromRows } from '../engine-snapshot-rows.js';
import type { Query } from './projection-committed-reads.js';

/** The engine state as the projections hold it, in the engine's canonical snapshot form. */
export async function engineSnapshotOf(
  query: Query,
  ladderSize: number,
  engineLastSeq: number,
): Promise<EngineSnapshot> {
  const [balanceRows, positionRows, marketRows, orderRows, resolutionRows] = await Promise.all([
    query(
      'SELECT account, available, escrowed, owed FROM balances WHERE available <> 0 OR escrowed <> 0 OR owed <> 0',
    ),
    query('SELECT * FROM positions'),
    query('SELECT * FROM engine_markets ORDER BY open_seq'),
    query(`SELECT id, account, market_hash, is_outcome_one, percentage_odds, total_bet_size, remaining_size,
        expiry, placed_seq FROM orders WHERE status = 'ACTIVE' ORDER BY placed_seq`),
    query('SELECT market_hash, outcome FROM market_settlements'),
  ]);
  return engineSnapshotFromRows(
    {
      balances: balanceRows,
      positions: positionRows,
      markets: marketRows,
      orders: orderRows,
      resolutions: resolutionRows,
    },
    ladderSize,
    engineLastSeq,
  );
}
