import type { Database, Statement } from 'better-sqlite3';
import { writeTransaction } from '../sqlite/write-transaction.js';
import {
  type ConfirmationRow,
  confirmationFromRow,
  MULTISIG_PATCH_COLUMNS,
  type MultisigRow,
  multisigColumns,
  multisigFromRow,
} from './chain-rows.js';
import type { Address, Hash } from './chain-types.js';
import type { MultisigConfirmation, MultisigRecord, MultisigStore } from './multisig-store.js';
import { migrateChainSchema } from './sqlite-chain-store.js';

/** MultisigStore on the `chain_multisig_*` tables (created by `migrateChainSchema`). */
export class SqliteMultisigStore implements MultisigStore {
  private readonly s: Record<string, Statement>;
  private readonly putTx: (record: MultisigRecord) => void;

  constructor(private readonly db: Database) {
    migrateChainSchema(db);
    this.s = {
      get: db.prepare('SELECT * FROM chain_multisig_txs WHERE safe_tx_hash = ?'),
      open: db.prepare(
        "SELECT * FROM chain_multisig_txs WHERE status IN ('pending', 'submitted') ORDER BY created_at, safe_tx_hash",
      ),
      openOf: db.prepare(
        "SELECT * FROM chain_multisig_txs WHERE safe = ? AND status IN ('pending', 'submitted') ORDER BY created_at, safe_tx_hash",
      ),
      replace: db.prepare(
        `UPDATE chain_multisig_txs SET status = 'replaced', updated_at = ?
         WHERE safe = ? AND nonce = ? AND status = 'pending' AND safe_tx_hash <> ?`,
      ),
      upsert: db.prepare(
        `INSERT INTO chain_multisig_txs (safe_tx_hash, safe, nonce, threshold, tx, status, submission_tx_hash,
           execution_tx_hash, failure, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (safe_tx_hash) DO UPDATE SET status = excluded.status, submission_tx_hash = excluded.submission_tx_hash,
           execution_tx_hash = excluded.execution_tx_hash, failure = excluded.failure, updated_at = excluded.updated_at`,
      ),
      confirm: db.prepare(
        `INSERT INTO chain_multisig_confirmations (safe_tx_hash, owner, signature, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (safe_tx_hash, owner) DO NOTHING`,
      ),
      confirmations: db.prepare(
        'SELECT * FROM chain_multisig_confirmations WHERE safe_tx_hash = ? ORDER BY rowid',
      ),
    };
    this.putTx = writeTransaction(db, (r: MultisigRecord) => {
      this.s.replace!.run(r.updatedAt, r.safe, r.nonce, r.safeTxHash);
      this.s.upsert!.run(...multisigColumns(r));
    });
  }

  get(safeTxHash: Hash): MultisigRecord | null {
    const row = this.s.get!.get(safeTxHash) as MultisigRow | undefined;
    return row ? multisigFromRow(row) : null;
  }

  listOpen(safe?: Address): MultisigRecord[] {
    const rows = (safe ? this.s.openOf!.all(safe) : this.s.open!.all()) as MultisigRow[];
    return rows.map(multisigFromRow);
  }

  putReplacingAtNonce(record: MultisigRecord): void {
    this.putTx(record);
  }

  update(safeTxHash: Hash, patch: Partial<MultisigRecord>): void {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [key, column] of Object.entries(MULTISIG_PATCH_COLUMNS)) {
      if (key in patch) {
        sets.push(`${column} = ?`);
        values.push((patch as Record<string, unknown>)[key] ?? null);
      }
    }
    if (sets.length === 0) return;
    this.db
      .prepare(`UPDATE chain_multisig_txs SET ${sets.join(', ')} WHERE safe_tx_hash = ?`)
      .run(...values, safeTxHash);
  }

  addConfirmation(c: MultisigConfirmation): boolean {
    return this.s.confirm!.run(c.safeTxHash, c.owner, c.signature, c.createdAt).changes === 1;
  }

  confirmations(safeTxHash: Hash): MultisigConfirmation[] {
    return (this.s.confirmations!.all(safeTxHash) as ConfirmationRow[]).map(confirmationFromRow);
  }
}
