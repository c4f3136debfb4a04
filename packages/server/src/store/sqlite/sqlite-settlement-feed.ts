import type { Database, Statement } from 'better-sqlite3';
import type { SettlementItem } from '../../chain/settlement-types.js';
import type { EngineMoney } from '../../settlement/reconcile.js';
import type { SettlementFeed } from '../../settlement/settlement-feed.js';
import { parseStoredItem } from '../stored-settlement-item.js';

/** The settlement driver's start-up reads, from what the projector recorded of the journaled receipts. */
export class SqliteSettlementFeed implements SettlementFeed {
  private readonly items: Statement;
  private readonly block: Statement;
  private readonly money: Statement;

  constructor(db: Database) {
    this.items = db.prepare('SELECT item FROM settlement_outstanding ORDER BY rowid').pluck();
    this.block = db.prepare('SELECT block_number FROM escrow_cursor WHERE id = 1').pluck();
    this.money = db.prepare('SELECT account, available, escrowed, owed FROM balances');
  }

  async outstanding(): Promise<SettlementItem[]> {
    return (this.items.all() as string[]).map(parseStoredItem);
  }

  async projectedBlock(): Promise<number> {
    return this.block.get() as number;
  }

  async balances(): Promise<Map<string, EngineMoney>> {
    const rows = this.money.all() as { account: string; available: string; escrowed: string; owed: string }[];
    return new Map(
      rows.map((r) => [
        r.account,
        { available: BigInt(r.available), escrowed: BigInt(r.escrowed), owed: BigInt(r.owed) },
      ]),
    );
  }
}
