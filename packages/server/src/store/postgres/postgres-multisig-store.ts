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
import { FenceGuard, type LeaseFence } from './lease-fence.js';
import { inTransaction } from './transaction.js';

const OPEN = "status IN ('pending', 'submitted')";

type Queryable = Pick<pg.PoolClient, 'query'>;

/**
 * The add-signer bookkeeping on PostgreSQL (`chain_multisig_*`, migration 2), on the pool. A chain node
 * writes under its lease (`fence`): each write is a transaction that begins with the fence (lease-fence.ts).
 */
export class PostgresMultisigStore implements MultisigStore {
  private readonly guard: FenceGuard | null;

  constructor(
    private readonly pool: pg.Pool,
    options: { fence?: LeaseFence } = {},
  ) {
    this.guard = options.fence ? new FenceGuard(options.fence) : null;
  }

  /** `work` in one transaction, behind the fence when there is one; a plain write on the pool otherwise. */
  private async write<T>(work: (client: Queryable) => Promise<T>, transaction = false): Promise<T> {
    const guard = this.guard;
    if (!guard) return transaction ? inTransaction(this.pool, work) : work(this.pool);
    guard.refuseIfDeposed();
    try {
      return await inTransaction(this.pool, async (client) => {
        await client.query(guard.statement.text, guard.statement.values);
        return work(client);
      });
    } catch (error) {
      throw guard.failed(error);
    }
  }

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
    await this.write(async (client) => {
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
    }, true);
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
    await this.write((client) =>
      client.query(
        `UPDATE chain_multisig_txs SET ${sets.join(', ')} WHERE safe_tx_hash = $${values.length}`,
        values,
      ),
    );
  }

  async addConfirmation(c: MultisigConfirmation): Promise<boolean> {
    const { rowCount } = await this.write((client) =>
      client.query(
        `INSERT INTO chain_multisig_confirmations (safe_tx_hash, owner, signature, created_at) VALUES ($1, $2, $3, $4)
          ON CONFLICT (safe_tx_hash, owner) DO NOTHING`,
        [c.safeTxHash, c.owner, c.signature, c.createdAt],
      ),
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
