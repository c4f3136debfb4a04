import type pg from 'pg';
import type { SettlementItem } from '../../chain/settlement-types.js';
import type { EngineMoney } from '../../settlement/reconcile.js';
import type { SettlementFeed } from '../../settlement/settlement-feed.js';
import { parseStoredItem } from '../stored-settlement-item.js';

/** The settlement driver's start-up reads, from what the projector recorded of the journaled receipts. */
export class PostgresSettlementFeed implements SettlementFeed {
  constructor(private readonly pool: pg.Pool) {}

  async outstanding(): Promise<SettlementItem[]> {
    const { rows } = await this.pool.query<{ item: string }>(
      'SELECT item FROM settlement_outstanding ORDER BY pos',
    );
    return rows.map((row) => parseStoredItem(row.item));
  }

  async projectedBlock(): Promise<number> {
    const { rows } = await this.pool.query<{ block_number: number }>(
      'SELECT block_number FROM escrow_cursor WHERE id = 1',
    );
    return rows[0]!.block_number;
  }

  async balances(): Promise<Map<string, EngineMoney>> {
    const { rows } = await this.pool.query<{
      account: string;
      available: string;
      escrowed: string;
      owed: string;
    }>('SELECT account, available, escrowed, owed FROM balances');
    return new Map(
      rows.map((r) => [
        r.account,
        { available: BigInt(r.available), escrowed: BigInt(r.escrowed), owed: BigInt(r.owed) },
      ]),
    );
  }
}
