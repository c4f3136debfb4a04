import type pg from 'pg';
import {
  type BlockRow,
  blockFromRow,
  type DeploymentRow,
  deploymentColumns,
  deploymentFromRow,
  type ReceiptRow,
  receiptColumns,
  receiptFromRow,
  type SafeRow,
  safeColumns,
  safeFromRow,
  type TxRow,
  txColumns,
  txFromRow,
} from '../../chain/chain-rows.js';
import type { ChainSnapshot, ChainStore, StateChanges } from '../../chain/chain-store.js';
import type {
  Address,
  ChainBlock,
  ChainReceipt,
  ChainTx,
  ChainTxKind,
  Hash,
} from '../../chain/chain-types.js';
import { SerialQueue } from '../../lib/maybe-promise.js';
import { FenceGuard, type LeaseFence } from './lease-fence.js';
import type { PostgresDatabase } from './postgres-database.js';

type Statement = { text: string; values: unknown[] };

/** The columns of `rows` as arrays, one per column: the values of an `unnest`. */
function columns(rows: readonly (readonly unknown[])[], width: number): unknown[][] {
  const out = Array.from({ length: width }, () => [] as unknown[]);
  for (const row of rows) for (let i = 0; i < width; i++) out[i]!.push(row[i]);
  return out;
}

/** `INSERT … SELECT * FROM unnest(…)` of `rows`, one array per column of the given types; `then` after it. */
function insertRows(
  table: string,
  names: readonly string[],
  types: readonly string[],
  rows: readonly (readonly unknown[])[],
  then = '',
): Statement {
  return {
    text: `INSERT INTO ${table} (${names.join(', ')})
      SELECT * FROM unnest(${types.map((type, i) => `$${i + 1}::${type}[]`).join(', ')}) ${then}`,
    values: columns(rows, names.length),
  };
}

/** An upsert of `rows` by `key`: every other column takes the new value. */
function upsertRows(
  table: string,
  key: string,
  names: readonly string[],
  types: readonly string[],
  rows: readonly (readonly unknown[])[],
): Statement {
  const set = names
    .filter((name) => name !== key)
    .map((name) => `${name} = excluded.${name}`)
    .join(', ');
  return insertRows(table, names, types, rows, `ON CONFLICT (${key}) DO UPDATE SET ${set}`);
}

const TX_COLUMNS = ['hash', 'seq', 'kind', 'payload', 'submitted_at'];
const TX_TYPES = ['text', 'bigint', 'text', 'text', 'bigint'];
const RECEIPT_SELECT = `SELECT t.hash, t.seq, t.payload, t.submitted_at, r.block_number, r.block_hash, r.tx_index,
    r.status, r.error, r.items
  FROM chain_receipts r JOIN chain_transactions t ON t.hash = r.tx_hash`;

/** The statements that write a block's or a submission's state changes. */
function changeStatements(changes: StateChanges): Statement[] {
  const out: Statement[] = [];
  if (changes.balances?.size) {
    out.push(
      upsertRows(
        'chain_balances',
        'address',
        ['address', 'amount'],
        ['text', 'numeric'],
        [...changes.balances].map(([address, amount]) => [address, amount.toString()]),
      ),
    );
  }
  if (changes.safes?.length) {
    out.push(
      upsertRows(
        'chain_safes',
        'address',
        ['address', 'owners', 'threshold', 'nonce', 'deployed_block'],
        ['text', 'text', 'integer', 'bigint', 'bigint'],
        changes.safes.map(safeColumns),
      ),
    );
  }
  if (changes.deployments?.length) {
    out.push(
      upsertRows(
        'chain_deployments',
        'safe',
        ['safe', 'owner', 'salt_nonce', 'state', 'tx_hash'],
        ['text', 'text', 'numeric', 'text', 'text'],
        changes.deployments.map(deploymentColumns),
      ),
    );
  }
  if (changes.meta?.size) {
    out.push(upsertRows('chain_meta', 'key', ['key', 'value'], ['text', 'text'], [...changes.meta]));
  }
  if (changes.landedItems?.length) {
    out.push(
      insertRows(
        'chain_settled_items',
        ['id', 'tx_hash'],
        ['text', 'text'],
        changes.landedItems.map((item) => [item.id, item.txHash]),
      ),
    );
  }
  return out;
}

/**
 * The embedded chain's store on PostgreSQL (the `chain_*` tables of migration 2). Each write is one
 * transaction whose statements (one per kind of row, `unnest` of arrays: a block of thousands of receipts is
 * a handful of statements) are sent at once on a connection of the store's own in pipeline mode, one write
 * after the other; reads go through the pool. A write resolves once committed, so durable (PostgreSQL's
 * fsync): the chain tells nobody of a block before. A chain node writes under its lease (`fence`): each
 * transaction begins with the fence (lease-fence.ts), so once a successor holds the lease this node mines,
 * submits and records nothing more (`LeaseFenced`).
 */
export class PostgresChainStore implements ChainStore {
  private readonly writes = new SerialQueue();
  private closed = false;
  private readonly guard: FenceGuard | null;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly writer: pg.Client,
    fence: LeaseFence | undefined,
  ) {
    this.guard = fence ? new FenceGuard(fence) : null;
  }

  static async open(
    database: PostgresDatabase,
    options: { fence?: LeaseFence } = {},
  ): Promise<PostgresChainStore> {
    return new PostgresChainStore(database.pool, await database.connect({ pipeline: true }), options.fence);
  }

  private async rows<R>(text: string, values: unknown[] = []): Promise<R[]> {
    return (await this.pool.query(text, values)).rows as R[];
  }

  async load(): Promise<ChainSnapshot> {
    const [head, maxSeq, pending, balances, safes, deployments, meta] = await Promise.all([
      this.rows<BlockRow>('SELECT * FROM chain_blocks ORDER BY number DESC LIMIT 1'),
      this.rows<{ max: number | null }>('SELECT max(seq) AS max FROM chain_transactions'),
      this.rows<TxRow>(
        'SELECT hash, seq, payload, submitted_at FROM chain_transactions WHERE block_number IS NULL ORDER BY seq',
      ),
      this.rows<{ address: Address; amount: string }>('SELECT address, amount FROM chain_balances'),
      this.rows<SafeRow>('SELECT * FROM chain_safes'),
      this.rows<DeploymentRow>('SELECT * FROM chain_deployments'),
      this.rows<{ key: string; value: string }>('SELECT key, value FROM chain_meta'),
    ]);
    const max = maxSeq[0]?.max ?? null;
    return {
      head: head[0] ? blockFromRow(head[0]) : null,
      nextSeq: max === null ? 0 : max + 1,
      pending: pending.map(txFromRow),
      balances: new Map(balances.map((r) => [r.address, BigInt(r.amount)])),
      safes: safes.map(safeFromRow),
      deployments: deployments.map(deploymentFromRow),
      meta: new Map(meta.map((r) => [r.key, r.value])),
    };
  }

  addPending(txs: readonly ChainTx[], changes: StateChanges): Promise<void> {
    return this.write([
      insertRows('chain_transactions', TX_COLUMNS, TX_TYPES, txs.map(txColumns)),
      ...changeStatements(changes),
    ]);
  }

  appendBlock(block: ChainBlock, receipts: readonly ChainReceipt[], changes: StateChanges): Promise<void> {
    return this.write([
      {
        text: 'INSERT INTO chain_blocks (number, hash, parent_hash, timestamp, tx_hashes) VALUES ($1, $2, $3, $4, $5)',
        values: [
          block.number,
          block.hash,
          block.parentHash,
          block.timestamp,
          JSON.stringify(block.transactions),
        ],
      },
      {
        text: 'UPDATE chain_transactions SET block_number = $1 WHERE hash = ANY($2::text[])',
        values: [block.number, receipts.map((r) => r.transactionHash)],
      },
      insertRows(
        'chain_receipts',
        ['tx_hash', 'block_number', 'block_hash', 'tx_index', 'status', 'error', 'items'],
        ['text', 'bigint', 'text', 'integer', 'text', 'text', 'text'],
        receipts.map(receiptColumns),
      ),
      ...changeStatements(changes),
    ]);
  }

  putMeta(changes: ReadonlyMap<string, string>): Promise<void> {
    return this.write(changeStatements({ meta: changes }));
  }

  async landedItems(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.rows<{ id: string }>(
      'SELECT id FROM chain_settled_items WHERE id = ANY($1::text[])',
      [ids],
    );
    return new Set(rows.map((r) => r.id));
  }

  async getBlock(number: number): Promise<ChainBlock | null> {
    const [row] = await this.rows<BlockRow>('SELECT * FROM chain_blocks WHERE number = $1', [number]);
    return row ? blockFromRow(row) : null;
  }

  async getTransaction(hash: Hash): Promise<ChainTx | null> {
    const [row] = await this.rows<TxRow>(
      'SELECT hash, seq, payload, submitted_at FROM chain_transactions WHERE hash = $1',
      [hash],
    );
    return row ? txFromRow(row) : null;
  }

  async getReceipt(hash: Hash): Promise<ChainReceipt | null> {
    const [row] = await this.rows<ReceiptRow>(`${RECEIPT_SELECT} WHERE r.tx_hash = $1`, [hash]);
    return row ? receiptFromRow(row) : null;
  }

  async receiptsBetween(after: number, through: number, kind: ChainTxKind): Promise<ChainReceipt[]> {
    const rows = await this.rows<ReceiptRow>(
      `${RECEIPT_SELECT} WHERE r.block_number > $1 AND r.block_number <= $2 AND t.kind = $3
        ORDER BY r.block_number, r.tx_index`,
      [after, through, kind],
    );
    return rows.map(receiptFromRow);
  }

  /** Closes the store's own connection once its writes are done; the pool stays with the database's owner. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes.idle();
    await this.writer.end();
  }

  /** One transaction of `statements`, sent at once, after the writes before it. */
  private write(statements: readonly Statement[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the chain store is closed'));
    return Promise.resolve(this.writes.run(() => this.transaction(statements)));
  }

  private async transaction(statements: readonly Statement[]): Promise<void> {
    if (statements.length === 0) return;
    this.guard?.refuseIfDeposed();
    const all = [
      { text: 'BEGIN', values: [] },
      ...(this.guard ? [this.guard.statement] : []),
      ...statements,
      { text: 'COMMIT', values: [] },
    ];
    const settled = await Promise.allSettled(all.map((s) => this.writer.query(s.text, s.values)));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      // A statement failed: the transaction was aborted and its COMMIT rolled it back (unless the COMMIT
      // itself is what failed); nothing of the write is kept.
      if (this.writer.getTransactionStatus?.() === 'E') await this.writer.query('ROLLBACK').catch(() => {});
      throw this.guard ? this.guard.failed(failed.reason) : failed.reason;
    }
  }
}
