import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { GATE_CHECKPOINTER, GATE_FREE, setWriteGate, writeGate } from '../sqlite/write-gate.js';
import { MultisigCoordinator } from './multisig.js';
import { CHAIN_SCHEMA_VERSION, migrateChainSchema, SqliteChainStore } from './sqlite-chain-store.js';
import { SqliteMultisigStore } from './sqlite-multisig-store.js';
import { A, createTestChain, tempSqlite } from './test-support.js';

/*
 * What only the SQLite store does: its own schema versions, blocks synced off the event loop, the write gate.
 * What every chain store does is in store/chain-store.conformance.test.ts and
 * store/embedded-chain.conformance.test.ts.
 */

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function files() {
  const f = tempSqlite();
  cleanups.push(f.cleanup);
  return f;
}

/** One "process": a database connection, a chain and a multisig coordinator on it. */
async function boot(f: ReturnType<typeof files>) {
  const db = f.open();
  const { chain, timer } = createTestChain(new SqliteChainStore(db));
  const multisig = new MultisigCoordinator({ chain, store: new SqliteMultisigStore(db) });
  await multisig.start();
  return {
    db,
    chain,
    timer,
    multisig,
    async close() {
      multisig.stop();
      await chain.stop();
      db.close();
    },
  };
}

describe('migrateChainSchema', () => {
  it('is idempotent and records its version', () => {
    const db = new BetterSqlite3(':memory:');
    migrateChainSchema(db);
    migrateChainSchema(db);
    const tables = (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'chain_%' ORDER BY name")
        .all() as {
        name: string;
      }[]
    ).map((r) => r.name);
    expect(tables).toEqual([
      'chain_balances',
      'chain_blocks',
      'chain_deployments',
      'chain_meta',
      'chain_multisig_confirmations',
      'chain_multisig_txs',
      'chain_receipts',
      'chain_safes',
      'chain_schema_version',
      'chain_settled_items',
      'chain_transactions',
    ]);
    expect(db.prepare('SELECT version FROM chain_schema_version').all()).toEqual([
      { version: CHAIN_SCHEMA_VERSION },
    ]);
    db.close();
  });

  it('brings a version 1 database to version 2: its receipts kept, settlement receipts and landed items added', async () => {
    const f = files();
    const first = await boot(f);
    const wa = first.chain.proxyAddressFor(A);
    const { txHash } = await first.chain.mint(wa, 10n);
    first.timer.tick();
    const receipt = await first.chain.getReceipt(txHash);
    await first.close();
    // Back to what version 1 had.
    const old = f.open();
    old.exec(`ALTER TABLE chain_receipts DROP COLUMN items; DROP TABLE chain_settled_items;
              UPDATE chain_schema_version SET version = 1`);
    old.close();

    const second = await boot(f);
    expect(second.db.prepare('SELECT version FROM chain_schema_version').pluck().get()).toBe(2);
    expect(await second.chain.getReceipt(txHash)).toEqual(receipt);
    expect(receipt).not.toHaveProperty('items');
    const settle = await second.chain.submitSettlement({
      firstSeq: 1,
      lastSeq: 1,
      retries: [],
      items: [{ id: 'fill:1', kind: 'fill', moves: [{ kind: 'escrow', from: wa, amount: 4n }] }],
    });
    second.timer.tick();
    expect((await second.chain.getReceipt(settle.txHash))?.items).toEqual([
      { id: 'fill:1', kind: 'fill', status: 'success', error: null },
    ]);
    await second.close();
  });
});

describe('blocks on a database whose commits are synced (synchronous = FULL, as the exchange opens it)', () => {
  it('applies a block at once and announces it once its WAL is on disk, one block at a time', async () => {
    const f = files();
    const db = f.open();
    db.pragma('synchronous = FULL');
    const { chain, timer } = createTestChain(new SqliteChainStore(db));
    const announced: number[] = [];
    chain.onBlock((block) => announced.push(block.number));
    const wa = chain.proxyAddressFor(A);
    await chain.deployProxy(A);
    const mint = await chain.mint(wa, 100n);
    let receipt = false;
    void chain.waitForReceipt(mint.txHash).then(() => {
      receipt = true;
    });

    const landing = timer.tick();
    expect(landing).toBeInstanceOf(Promise);
    // Written and applied (what the database holds), but nobody is told before the sync.
    expect(await chain.balanceOf(wa)).toBe(100n);
    expect(announced).toEqual([]);
    expect(receipt).toBe(false);
    // A tick meanwhile mines nothing: the next block follows this one.
    await chain.mint(wa, 5n);
    expect(timer.tick()).toBeUndefined();

    await landing;
    expect(announced).toEqual([1]);
    await Promise.resolve();
    expect(receipt).toBe(true);
    await timer.tick();
    expect(announced).toEqual([1, 2]);
    expect(await chain.balanceOf(wa)).toBe(105n);
    // stop() waits for a block being synced.
    await chain.mint(wa, 1n);
    void timer.tick();
    await chain.stop();
    expect(announced).toEqual([1, 2, 3]);
    db.close();
  });
});

describe("blocks behind the write gate (the WAL checkpointer's restart)", () => {
  it('waits off the event loop while the gate is held, then computes, writes and announces the block', async () => {
    const db = files().open();
    const store = new SqliteChainStore(db);
    const { chain, timer } = createTestChain(store);
    const announced: number[] = [];
    chain.onBlock((block) => announced.push(block.number));
    const wa = chain.proxyAddressFor(A);
    await chain.deployProxy(A);
    await timer.tick();
    const gate = new Int32Array(new SharedArrayBuffer(4));
    setWriteGate(db, writeGate(gate));
    await chain.mint(wa, 100n);
    Atomics.store(gate, 0, GATE_CHECKPOINTER);

    const landing = timer.tick();
    expect(landing).toBeInstanceOf(Promise);
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 5));
    // Nothing mined meanwhile: not in the database, not applied, not announced; another tick waits too.
    expect(store.getBlock(2)).toBeNull();
    expect(await chain.balanceOf(wa)).toBe(0n);
    expect(announced).toEqual([1]);
    expect(timer.tick()).toBeUndefined();

    Atomics.store(gate, 0, GATE_FREE);
    Atomics.notify(gate, 0);
    await landing;
    expect(announced).toEqual([1, 2]);
    expect(store.getBlock(2)?.transactions).toHaveLength(1);
    expect(await chain.balanceOf(wa)).toBe(100n);
    expect(Atomics.load(gate, 0)).toBe(GATE_FREE);
    setWriteGate(db, null);
    await chain.stop();
    db.close();
  });
});
