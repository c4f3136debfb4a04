import type pg from 'pg';
import {
  type ConfirmationRow,
  confirmationFromRow,
  MULTISIG_PATCH_COLUMNS,
  type MultisigRow,
  multisigColumns,
  multisigFromRow,
} from '../../chain/chain-rows.js';
import type { Address, Hash } from '../../chain/chain-types.js';
import type { MultisigConfirmation, MultisigRecord, MultisigStore } from '../../chain/multisig-store.js';
import { inTransaction } from './transaction.js';

const OPEN = "status IN ('pending', 'submitted')";

/** The add-signer bookkeeping on PostgreSQL (`chain_multisig_*`, migration 2), on the pool. */
export class PostgresMultisigStore implements MultisigStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(safeTxHash: Hash): Promise<MultisigRecord | null> {
    const { rows } = await this.pool.query<MultisigRow>(
      'SELECT * FROM chain_multisig_txs WHERE safe_tx_hash = $1',
      [safeTxHash],
    );
    return rows[0] ? multisigFromRow(rows[0]) : null;
  }

  async listOpen(safe?: Address): Promise<MultisigRecord[]> {
    const { rows } = safe
      ? await this.pool.query<MultisigRow>(
          `SELECT * FROM chain_multisig_txs WHERE safe = $1 AND ${OPEN} ORDER BY created_at, safe_tx_hash`,
          [safe],
        )
      : await this.pool.query<MultisigRow>(
          `SELECT * FROM chain_multisig_txs WHERE ${OPEN} ORDER BY created_at, safe_tx_hash`,
        );
    return rows.map(multisigFromRow);
  }

  async putReplacingAtNonce(r: MultisigRecord): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query(
        `UPDATE chain_multisig_txs SET status = 'replaced', updated_at = $1
          WHERE safe = $2 AND nonce = $3 AND status = 'pending' AND safe_tx_hash <> $4`,
        [r.updatedAt, r.safe, r.nonce, r.safeTxHash],
      );
      await client.query(
        `INSERT INTO chain_multisig_txs (safe_tx_hash, safe, nonce, threshold, tx, status, submission_tx_hash,
           execution_tx_hash, failure, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (safe_tx_hash) DO UPDATE SET status = excluded.status,
           submission_tx_hash = excluded.submission_tx_hash, execution_tx_hash = excluded.execution_tx_hash,
           failure = excluded.failure, updated_at = excluded.updated_at`,
        multisigColumns(r),
      );
    });
  }

  async update(safeTxHash: Hash, patch: Partial<MultisigRecord>): Promise<void> {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [key, column] of Object.entries(MULTISIG_PATCH_COLUMNS)) {
      if (key in patch) {
        values.push((patch as Record<string, unknown>)[key] ?? null);
        sets.push(`${column} = $${values.length}`);
      }
    }
    if (sets.length === 0) return;
    values.push(safeTxHash);
    await this.pool.query(
      `UPDATE chain_multisig_txs SET ${sets.join(', ')} WHERE safe_tx_hash = $${values.length}`,
      values,
    );
  }

  async addConfirmation(c: MultisigConfirmation): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO chain_multisig_confirmations (safe_tx_hash, owner, signature, created_at) VALUES ($1, $2, $3, $4)
        ON CONFLICT (safe_tx_hash, owner) DO NOTHING`,
      [c.safeTxHash, c.owner, c.signature, c.createdAt],
    );
    return rowCount === 1;
  }

  async confirmations(safeTxHash: Hash): Promise<MultisigConfirmation[]> {
    const { rows } = await this.pool.query<ConfirmationRow>(
      'SELECT safe_tx_hash, owner, signature, created_at FROM chain_multisig_confirmations WHERE safe_tx_hash = $1 ORDER BY pos',
      [safeTxHash],
    );
    return rows.map(confirmationFromRow);
  }
}
