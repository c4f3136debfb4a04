import type { Database, Statement } from 'better-sqlite3';
import { type WalSync, walSync } from '../sqlite/wal-sync.js';
import { withWriteGate } from '../sqlite/write-gate.js';
import { writeTransaction } from '../sqlite/write-transaction.js';
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
} from './chain-rows.js';
import type { BlockWrite, ChainSnapshot, ChainStore, StateChanges } from './chain-store.js';
import type { Address, ChainBlock, ChainReceipt, ChainTx, ChainTxKind, Hash } from './chain-types.js';

export const CHAIN_SCHEMA_VERSION = 2;

/**
 * Changes to the tables of version 1 (created as they were then), by the version they lead to; each runs once,
 * in the transaction that records its version.
 */
const CHAIN_MIGRATIONS: readonly { version: number; run(db: Database): void }[] = [
  {
    // Settlement transactions: their receipts' item results, and the index of the items that landed, by
    // which an item id is applied once for ever.
    version: 2,
    run(db) {
      const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('chain_receipts');
      if (!columns.includes('items')) db.exec('ALTER TABLE chain_receipts ADD COLUMN items TEXT');
      db.exec(`
        CREATE TABLE IF NOT EXISTS chain_settled_items (
          id TEXT PRIMARY KEY,
          tx_hash TEXT NOT NULL
        ) WITHOUT ROWID;
      `);
    },
  },
];

/**
 * Creates the embedded chain's tables (prefix `chain_`, multisig bookkeeping included) and brings them to
 * `CHAIN_SCHEMA_VERSION`. Idempotent: safe to call at every start, from the server's migration runner or on
 * its own.
 */
export function migrateChainSchema(db: Database): void {
  writeTransaction(db, () => {
    db.exec(`
      CREATE TABLE IF NOT EXISTS chain_schema_version (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS chain_blocks (
        number INTEGER PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,
        parent_hash TEXT NOT NULL,
        timestamp INTEGER NOT NULL,
        tx_hashes TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS chain_transactions (
        hash TEXT PRIMARY KEY,
        seq INTEGER NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        submitted_at INTEGER NOT NULL,
        block_number INTEGER
      );
      CREATE INDEX IF NOT EXISTS chain_transactions_mempool ON chain_transactions (seq) WHERE block_number IS NULL;
      CREATE TABLE IF NOT EXISTS chain_receipts (
        tx_hash TEXT PRIMARY KEY REFERENCES chain_transactions (hash),
        block_number INTEGER NOT NULL REFERENCES chain_blocks (number),
        block_hash TEXT NOT NULL,
        tx_index INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('success', 'failed')),
        error TEXT
      );
      CREATE TABLE IF NOT EXISTS chain_balances (
        address TEXT PRIMARY KEY,
        amount TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS chain_safes (
        address TEXT PRIMARY KEY,
        owners TEXT NOT NULL,
        threshold INTEGER NOT NULL,
        nonce INTEGER NOT NULL,
        deployed_block INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS chain_deployments (
        safe TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        salt_nonce TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'deployed', 'failed')),
        tx_hash TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS chain_meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS chain_multisig_txs (
        safe_tx_hash TEXT PRIMARY KEY,
        safe TEXT NOT NULL,
        nonce INTEGER NOT NULL,
        threshold INTEGER NOT NULL,
        tx TEXT NOT NULL,
        status TEXT NOT NULL,
        submission_tx_hash TEXT,
        execution_tx_hash TEXT,
        failure TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS chain_multisig_txs_safe_nonce ON chain_multisig_txs (safe, nonce);
      CREATE INDEX IF NOT EXISTS chain_multisig_txs_status ON chain_multisig_txs (status);
      CREATE TABLE IF NOT EXISTS chain_multisig_confirmations (
        safe_tx_hash TEXT NOT NULL REFERENCES chain_multisig_txs (safe_tx_hash),
        owner TEXT NOT NULL,
        signature TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (safe_tx_hash, owner)
      );
    `);
    // The tables above are version 1's: a new database starts there and migrates like an old one.
    db.prepare('INSERT OR IGNORE INTO chain_schema_version (id, version) VALUES (1, 1)').run();
    const current = db
      .prepare('SELECT version FROM chain_schema_version WHERE id = 1')
      .pluck()
      .get() as number;
    for (const migration of CHAIN_MIGRATIONS) {
      if (migration.version <= current) continue;
      migration.run(db);
      db.prepare('UPDATE chain_schema_version SET version = ? WHERE id = 1').run(migration.version);
    }
  })();
}

/** ChainStore on better-sqlite3. The database is owned by the caller; `migrateChainSchema` must have run. */
export class SqliteChainStore implements ChainStore {
  private readonly s: Record<string, Statement>;
  private readonly applyChanges: (changes: StateChanges) => void;
  private readonly addPendingTx: (txs: readonly ChainTx[], changes: StateChanges) => void;
  private readonly appendBlockTx: (
    block: ChainBlock,
    receipts: readonly ChainReceipt[],
    changes: StateChanges,
  ) => void;
  private readonly wal: WalSync | null;

  constructor(private readonly db: Database) {
    migrateChainSchema(db);
    this.wal = walSync(db);
    this.s = {
      head: db.prepare('SELECT * FROM chain_blocks ORDER BY number DESC LIMIT 1'),
      block: db.prepare('SELECT * FROM chain_blocks WHERE number = ?'),
      balances: db.prepare('SELECT address, amount FROM chain_balances'),
      safes: db.prepare('SELECT * FROM chain_safes'),
      deployments: db.prepare('SELECT * FROM chain_deployments'),
      mempool: db.prepare(
        'SELECT hash, seq, payload, submitted_at FROM chain_transactions WHERE block_number IS NULL ORDER BY seq',
      ),
      meta: db.prepare('SELECT key, value FROM chain_meta'),
      maxSeq: db.prepare('SELECT max(seq) FROM chain_transactions').pluck(),
      tx: db.prepare('SELECT hash, seq, payload, submitted_at FROM chain_transactions WHERE hash = ?'),
      receipt: db.prepare(
        `SELECT t.hash, t.seq, t.payload, t.submitted_at, r.block_number, r.block_hash, r.tx_index, r.status, r.error, r.items
         FROM chain_receipts r JOIN chain_transactions t ON t.hash = r.tx_hash WHERE r.tx_hash = ?`,
      ),
      // Through the blocks' own lists of hashes (by primary keys): chain_receipts has no index on blocks.
      receiptsBetween: db.prepare(
        `SELECT t.hash, t.seq, t.payload, t.submitted_at, r.block_number, r.block_hash, r.tx_index, r.status, r.error, r.items
           FROM chain_blocks b, json_each(b.tx_hashes) h
           JOIN chain_receipts r ON r.tx_hash = h.value
           JOIN chain_transactions t ON t.hash = r.tx_hash
          WHERE b.number > ? AND b.number <= ? AND t.kind = ?
          ORDER BY b.number, r.tx_index`,
      ),
      insertTx: db.prepare(
        'INSERT INTO chain_transactions (hash, seq, kind, payload, submitted_at) VALUES (?, ?, ?, ?, ?)',
      ),
      insertBlock: db.prepare(
        'INSERT INTO chain_blocks (number, hash, parent_hash, timestamp, tx_hashes) VALUES (?, ?, ?, ?, ?)',
      ),
      insertReceipt: db.prepare(
        'INSERT INTO chain_receipts (tx_hash, block_number, block_hash, tx_index, status, error, items) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      insertLanded: db.prepare('INSERT INTO chain_settled_items (id, tx_hash) VALUES (?, ?)'),
      // One statement for a transaction's ids: per id, a third of the cost of one look-up each.
      landed: db
        .prepare('SELECT id FROM chain_settled_items WHERE id IN (SELECT value FROM json_each(?))')
        .pluck(),
      markMined: db.prepare('UPDATE chain_transactions SET block_number = ? WHERE hash = ?'),
      putBalance: db.prepare(
        'INSERT INTO chain_balances (address, amount) VALUES (?, ?) ON CONFLICT (address) DO UPDATE SET amount = excluded.amount',
      ),
      putSafe: db.prepare(
        `INSERT INTO chain_safes (address, owners, threshold, nonce, deployed_block) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (address) DO UPDATE SET owners = excluded.owners, threshold = excluded.threshold,
           nonce = excluded.nonce, deployed_block = excluded.deployed_block`,
      ),
      putDeployment: db.prepare(
        `INSERT INTO chain_deployments (safe, owner, salt_nonce, state, tx_hash) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (safe) DO UPDATE SET owner = excluded.owner, salt_nonce = excluded.salt_nonce,
           state = excluded.state, tx_hash = excluded.tx_hash`,
      ),
      putMeta: db.prepare(
        'INSERT INTO chain_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ),
    };
    this.applyChanges = (changes) => {
      for (const [address, amount] of changes.balances ?? [])
        this.s.putBalance!.run(address, amount.toString());
      for (const safe of changes.safes ?? []) this.s.putSafe!.run(...safeColumns(safe));
      for (const d of changes.deployments ?? []) this.s.putDeployment!.run(...deploymentColumns(d));
      for (const [key, value] of changes.meta ?? []) this.s.putMeta!.run(key, value);
      for (const item of changes.landedItems ?? []) this.s.insertLanded!.run(item.id, item.txHash);
    };
    // One savepoint (or transaction) for all of them and their side effects.
    this.addPendingTx = writeTransaction(db, (txs: readonly ChainTx[], changes: StateChanges) => {
      const insertTx = this.s.insertTx!;
      for (const tx of txs) insertTx.run(...txColumns(tx));
      this.applyChanges(changes);
    });
    this.appendBlockTx = writeTransaction(
      db,
      (block: ChainBlock, receipts: readonly ChainReceipt[], changes: StateChanges) => {
        this.s.insertBlock!.run(
          block.number,
          block.hash,
          block.parentHash,
          block.timestamp,
          JSON.stringify(block.transactions),
        );
        for (const r of receipts) {
          this.s.markMined!.run(block.number, r.transactionHash);
          this.s.insertReceipt!.run(...receiptColumns(r));
        }
        this.applyChanges(changes);
      },
    );
  }

  load(): ChainSnapshot {
    const head = this.s.head!.get() as BlockRow | undefined;
    const maxSeq = this.s.maxSeq!.get() as number | null;
    return {
      head: head ? blockFromRow(head) : null,
      nextSeq: maxSeq === null ? 0 : maxSeq + 1,
      pending: (this.s.mempool!.all() as TxRow[]).map(txFromRow),
      balances: new Map(
        (this.s.balances!.all() as { address: Address; amount: string }[]).map((r) => [
          r.address,
          BigInt(r.amount),
        ]),
      ),
      safes: (this.s.safes!.all() as SafeRow[]).map(safeFromRow),
      deployments: (this.s.deployments!.all() as DeploymentRow[]).map(deploymentFromRow),
      meta: new Map((this.s.meta!.all() as { key: string; value: string }[]).map((r) => [r.key, r.value])),
    };
  }

  addPending(txs: readonly ChainTx[], changes: StateChanges): void {
    this.addPendingTx(txs, changes);
  }

  appendBlock(
    block: ChainBlock,
    receipts: readonly ChainReceipt[],
    changes: StateChanges,
  ): Exclude<BlockWrite, Promise<void>> {
    if (!this.wal) {
      this.appendBlockTx(block, receipts, changes);
      return undefined;
    }
    // Its fsync off the event loop, like a sequencer batch's: twice a second, it took 3-30 ms there.
    this.wal.unsynced(() => this.appendBlockTx(block, receipts, changes));
    return { synced: this.wal.sync() };
  }

  whenWritable<T>(write: () => T): T | Promise<T> {
    return withWriteGate(this.db, write);
  }

  close(): void {
    this.wal?.close();
  }

  putMeta(changes: ReadonlyMap<string, string>): void {
    writeTransaction(this.db, () => this.applyChanges({ meta: changes }))();
  }

  landedItems(ids: readonly string[]): Set<string> {
    if (ids.length === 0) return new Set();
    return new Set(this.s.landed!.all(JSON.stringify(ids)) as string[]);
  }

  getBlock(number: number): ChainBlock | null {
    const row = this.s.block!.get(number) as BlockRow | undefined;
    return row ? blockFromRow(row) : null;
  }

  getTransaction(hash: Hash): ChainTx | null {
    const row = this.s.tx!.get(hash) as TxRow | undefined;
    return row ? txFromRow(row) : null;
  }

  getReceipt(hash: Hash): ChainReceipt | null {
    const row = this.s.receipt!.get(hash) as ReceiptRow | undefined;
    return row ? receiptFromRow(row) : null;
  }

  receiptsBetween(after: number, through: number, kind: ChainTxKind): ChainReceipt[] {
    return (this.s.receiptsBetween!.all(after, through, kind) as ReceiptRow[]).map(receiptFromRow);
  }
}
