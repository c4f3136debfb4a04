import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { type ChainStore, MemoryChainStore } from '../../chain/chain-store.js';
import { MemoryMultisigStore, type MultisigStore } from '../../chain/multisig-store.js';
import { SqliteChainStore } from '../../chain/sqlite-chain-store.js';
import { SqliteMultisigStore } from '../../chain/sqlite-multisig-store.js';
import { PostgresChainStore } from '../postgres/postgres-chain-store.js';
import { openPostgres } from '../postgres/postgres-database.js';
import { PostgresMultisigStore } from '../postgres/postgres-multisig-store.js';
import { openDatabase } from '../sqlite/open-database.js';
import { createTestDatabase, requirePostgres } from './postgres-test-database.js';

/** The embedded chain's stores on one set of data. */
export type ChainStoresUnderTest = {
  readonly chain: ChainStore;
  readonly multisig: MultisigStore;
  /** Closes the stores and opens the same data again (a restart). */
  reopen(): Promise<ChainStoresUnderTest>;
  /** Idempotent: a chain's `stop` may have closed its store already. */
  close(): Promise<void>;
};

export type ChainStoreUnderTest = {
  readonly name: 'memory' | 'SQLite' | 'PostgreSQL';
  open(): Promise<ChainStoresUnderTest>;
};

/**
 * The stores a chain conformance suite runs its one body against: in memory (a restart keeps the same
 * objects), SQLite (the exchange's database in a data dir of its own: WAL, synced commits) and PostgreSQL (a
 * database made for the test file and dropped after it, a fresh schema for each `open`). PostgreSQL
 * unreachable fails the file with the reason.
 */
export async function chainStoresUnderTest(): Promise<ChainStoreUnderTest[]> {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  await requirePostgres();
  const database = await createTestDatabase();
  afterAll(() => database.drop());
  return [
    { name: 'memory', open: async () => memoryStores(new MemoryChainStore(), new MemoryMultisigStore()) },
    {
      name: 'SQLite',
      async open() {
        const dir = mkdtempSync(join(tmpdir(), 'oddsbook-chain-conformance-'));
        dirs.push(dir);
        return sqliteStores(dir);
      },
    },
    { name: 'PostgreSQL', open: async () => postgresStores(await database.schema()) },
  ];
}

function memoryStores(chain: MemoryChainStore, multisig: MemoryMultisigStore): ChainStoresUnderTest {
  return {
    chain,
    multisig,
    reopen: async () => memoryStores(chain, multisig),
    async close() {},
  };
}

function sqliteStores(dir: string): ChainStoresUnderTest {
  const db = openDatabase(dir);
  const chain = new SqliteChainStore(db);
  const close = async () => {
    chain.close();
    if (db.open) db.close();
  };
  return {
    chain,
    multisig: new SqliteMultisigStore(db),
    async reopen() {
      await close();
      return sqliteStores(dir);
    },
    close,
  };
}

async function postgresStores(url: string): Promise<ChainStoresUnderTest> {
  const database = await openPostgres({ url, poolSize: 4 });
  const chain = await PostgresChainStore.open(database);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await chain.close();
    await database.close();
  };
  return {
    chain,
    multisig: new PostgresMultisigStore(database.pool),
    async reopen() {
      await close();
      return postgresStores(url);
    },
    close,
  };
}
