import BetterSqlite3 from 'better-sqlite3';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { GATE_CHECKPOINTER, GATE_FREE, setWriteGate, writeGate } from '../sqlite/write-gate.js';
import { MemoryChainStore } from './chain-store.js';
import type { Address, Hash } from './chain-types.js';
import { MultisigCoordinator, type PreparedSafeTx } from './multisig.js';
import { openEmbeddedChain } from './open-embedded-chain.js';
import type { SettlementItem, SettlementItemKind, SettlementMove } from './settlement-types.js';
import { CHAIN_SCHEMA_VERSION, migrateChainSchema, SqliteChainStore } from './sqlite-chain-store.js';
import { SqliteMultisigStore } from './sqlite-multisig-store.js';
import { A, B, BASE_TOKEN, C, createTestChain, ESCROW, KEYS, SAFE_A, tempSqlite } from './test-support.js';

const sign = (key: Hash, prepared: PreparedSafeTx) =>
  privateKeyToAccount(key).signTypedData(
    prepared.typedData as unknown as Parameters<ReturnType<typeof privateKeyToAccount>['signTypedData']>[0],
  );

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

describe('SQLite persistence across restarts', () => {
  it('restores blocks, receipts, balances, safes and deployments', async () => {
    const f = files();
    const first = await boot(f);
    const wa = first.chain.proxyAddressFor(A);
    await first.chain.deployProxy(A);
    const mint = await first.chain.mint(wa, 1_000_000n);
    first.timer.tick();
    await first.chain.escrow(wa, 400_000n, 'trade-9');
    first.timer.tick();
    const receipt = await first.chain.getReceipt(mint.txHash);
    const block2 = await first.chain.getBlock(2);
    await first.close();

    const second = await boot(f);
    expect(await second.chain.blockNumber()).toBe(2);
    expect(await second.chain.getBlock(2)).toEqual(block2);
    expect(await second.chain.getReceipt(mint.txHash)).toEqual(receipt);
    expect(await second.chain.balanceOf(wa)).toBe(600_000n);
    expect(await second.chain.balanceOf(ESCROW)).toBe(400_000n);
    expect(await second.chain.getProxy(A)).toMatchObject({ state: 'deployed', deployed: true });
    expect(await second.chain.getSafe(SAFE_A)).toEqual({
      address: SAFE_A,
      owners: [A],
      threshold: 1,
      nonce: 0,
      deployedBlock: 1,
    });
    // The sequence continues: a new, identical transaction gets a new hash; blocks chain on.
    const again = await second.chain.mint(wa, 1_000_000n);
    expect(again.txHash).not.toBe(mint.txHash);
    second.timer.tick();
    expect((await second.chain.getBlock(3))?.parentHash).toBe(block2?.hash);
    await second.close();
  });

  it('submissions inside a caller transaction commit or roll back with it', async () => {
    const f = files();
    const node = await boot(f);
    const wa = node.chain.proxyAddressFor(A);
    let kept = '' as Hash;
    let dropped = '' as Hash;
    node.db.transaction(() => {
      void node.chain.mint(wa, 500n, 'deposit:1').then((r) => {
        kept = r.txHash;
      });
    })();
    expect(() =>
      node.db.transaction(() => {
        void node.chain.mint(wa, 700n, 'deposit:2').then((r) => {
          dropped = r.txHash;
        });
        throw new Error('batch failed');
      })(),
    ).toThrow('batch failed');
    await Promise.resolve();
    expect(node.chain.pendingTransactions().map((t) => t.hash)).toEqual([kept]);
    node.timer.tick();
    expect(await node.chain.getReceipt(kept)).toMatchObject({ status: 'success' });
    expect(await node.chain.getReceipt(dropped)).toBeNull();
    expect(await node.chain.getTransaction(dropped)).toBeNull();
    expect(await node.chain.balanceOf(wa)).toBe(500n);
    // The chain goes on normally afterwards.
    const next = await node.chain.mint(wa, 1n);
    node.timer.tick();
    expect(await node.chain.getReceipt(next.txHash)).toMatchObject({ status: 'success', blockNumber: 2 });
    await node.close();
  });

  it('submitMany inside a caller transaction: all or none with it, and the counter resumes after a restart', async () => {
    const f = files();
    const first = await boot(f);
    const wa = first.chain.proxyAddressFor(A);
    let hashes: Hash[] = [];
    first.db.transaction(() => {
      void first.chain
        .submitMany([
          { kind: 'mint', to: wa, amount: 90n, memo: 'deposit:1' },
          { kind: 'escrow', from: wa, amount: 50n, memo: 'escrow:0xA:2-3' },
        ])
        .then((r) => {
          hashes = r.map((x) => x.txHash);
        });
    })();
    // A rolled-back submitMany leaves nothing behind.
    expect(() =>
      first.db.transaction(() => {
        void first.chain.submitMany([{ kind: 'mint', to: wa, amount: 7n }]);
        throw new Error('batch failed');
      })(),
    ).toThrow('batch failed');
    await Promise.resolve();
    // No counter row: the stored transactions are the counter.
    expect(
      first.db.prepare("SELECT value FROM chain_meta WHERE key = 'nextSeq'").pluck().get(),
    ).toBeUndefined();
    await first.close();

    const second = await boot(f);
    expect(second.chain.pendingTransactions().map((t) => t.hash)).toEqual(hashes);
    second.timer.tick();
    for (const hash of hashes)
      expect(await second.chain.getReceipt(hash)).toMatchObject({ status: 'success' });
    expect(await second.chain.balanceOf(wa)).toBe(40n);
    expect(await second.chain.balanceOf(ESCROW)).toBe(50n);
    expect((await second.chain.getTransaction((await second.chain.mint(wa, 1n)).txHash))?.seq).toBe(2);
    await second.close();

    // A data dir from a version that stored the counter never goes below it.
    const db = f.open();
    db.prepare("INSERT INTO chain_meta (key, value) VALUES ('nextSeq', '10')").run();
    db.close();
    const third = await boot(f);
    expect((await third.chain.getTransaction((await third.chain.mint(wa, 1n)).txHash))?.seq).toBe(10);
    await third.close();
  });

  it('a pending deployment completes after a restart', async () => {
    const f = files();
    const first = await boot(f);
    const { txHash } = await first.chain.deployProxy(B);
    expect(await first.chain.getProxy(B)).toMatchObject({ state: 'pending', pending: true });
    await first.close();

    const second = await boot(f);
    expect(second.chain.pendingTransactions().map((t) => t.hash)).toEqual([txHash]);
    expect(await second.chain.getProxy(B)).toMatchObject({ state: 'pending', pending: true, txHash });
    // Deploying again while pending submits nothing new.
    expect(await second.chain.deployProxy(B)).toMatchObject({ txHash, submitted: false });
    second.timer.tick();
    expect(await second.chain.getReceipt(txHash!)).toMatchObject({ status: 'success', blockNumber: 1 });
    expect(await second.chain.getProxy(B)).toMatchObject({
      state: 'deployed',
      pending: false,
      deployed: true,
    });
    await second.close();
  });

  it('the fault switch survives a restart and a failed deployment can be retried', async () => {
    const f = files();
    const first = await boot(f);
    await first.chain.failNextDeployment();
    await first.close();

    const second = await boot(f);
    const failed = await second.chain.deployProxy(C);
    second.timer.tick();
    expect(await second.chain.getReceipt(failed.txHash!)).toMatchObject({
      status: 'failed',
      error: 'DEPLOYMENT_FAILED',
    });
    await second.close();

    const third = await boot(f);
    expect(await third.chain.getProxy(C)).toMatchObject({ state: 'failed', pending: false, deployed: false });
    const retry = await third.chain.deployProxy(C);
    third.timer.tick();
    expect(await third.chain.getReceipt(retry.txHash!)).toMatchObject({ status: 'success' });
    expect(await third.chain.getProxy(C)).toMatchObject({ state: 'deployed' });
    await third.close();
  });

  it('a pending multisig transaction completes after a restart (submitted, not yet mined)', async () => {
    const f = files();
    const first = await boot(f);
    await first.chain.deployProxy(A);
    first.timer.tick();
    const p = await first.multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B });
    const progress = await first.multisig.confirm({
      safeAddress: SAFE_A,
      safeTxHash: p.safeTxHash,
      safeTransactionData: p.safeTransactionData,
      signature: await sign(KEYS.A, p),
      signerAddress: A,
    });
    expect(progress).toMatchObject({ isReadyToExecute: true, isExecuted: false });
    expect(first.chain.pendingTransactions()).toHaveLength(1);
    await first.close();

    const second = await boot(f);
    expect(await second.multisig.progress(p.safeTxHash)).toMatchObject({ signedCount: 1, isExecuted: false });
    second.timer.tick();
    const done = await second.multisig.progress(p.safeTxHash);
    expect(done).toMatchObject({ confirmedBy: [A], isExecuted: true });
    expect(done?.executionTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await second.chain.getSafe(SAFE_A)).toMatchObject({ owners: [B, A], threshold: 1, nonce: 1 });
    await second.close();
  });

  it('a half-confirmed multisig transaction keeps its confirmations across a restart (threshold 2)', async () => {
    const f = files();
    const first = await boot(f);
    await first.chain.deployProxy(A);
    first.timer.tick();
    const p0 = await first.multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B, threshold: 2 });
    await first.multisig.confirm({
      safeAddress: SAFE_A,
      safeTxHash: p0.safeTxHash,
      safeTransactionData: p0.safeTransactionData,
      signature: await sign(KEYS.A, p0),
    });
    first.timer.tick();
    const p1 = await first.multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: C });
    await first.multisig.confirm({
      safeAddress: SAFE_A,
      safeTxHash: p1.safeTxHash,
      safeTransactionData: p1.safeTransactionData,
      signature: await sign(KEYS.B, p1),
    });
    await first.close();

    const second = await boot(f);
    expect(await second.multisig.progress(p1.safeTxHash)).toMatchObject({
      confirmedBy: [B],
      signedCount: 1,
      requiredThreshold: 2,
      isReadyToExecute: false,
    });
    const ready = await second.multisig.confirm({
      safeAddress: SAFE_A,
      safeTxHash: p1.safeTxHash,
      safeTransactionData: p1.safeTransactionData,
      signature: await sign(KEYS.A, p1),
      signerAddress: A,
    });
    expect(ready).toMatchObject({
      confirmedBy: [B, A],
      signedCount: 2,
      isReadyToExecute: true,
      isExecuted: false,
    });
    second.timer.tick();
    expect(await second.multisig.progress(p1.safeTxHash)).toMatchObject({ isExecuted: true });
    expect(await second.chain.getSafe(SAFE_A)).toMatchObject({ owners: [C, B, A], threshold: 2, nonce: 2 });
    await second.close();
  });

  it('a multisig transaction that was mined while the coordinator was away is reconciled at start', async () => {
    const f = files();
    const first = await boot(f);
    await first.chain.deployProxy(A);
    first.timer.tick();
    const p = await first.multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B });
    await first.multisig.confirm({
      safeAddress: SAFE_A,
      safeTxHash: p.safeTxHash,
      safeTransactionData: p.safeTransactionData,
      signature: await sign(KEYS.A, p),
    });
    first.multisig.stop();
    first.timer.tick(); // lands while nobody listens
    await first.close();

    const second = await boot(f);
    expect(await second.multisig.progress(p.safeTxHash)).toMatchObject({ isExecuted: true });
    await second.close();
  });
});

describe('receiptsBetween', () => {
  it('the receipts of one kind in blocks (after, through], in chain order, alike in either store', async () => {
    const run = async (chain: ReturnType<typeof createTestChain>['chain'], tick: () => void) => {
      const wa = chain.proxyAddressFor(A);
      const wb = chain.proxyAddressFor(B);
      await chain.mint(wa, 100n);
      tick();
      await chain.submitMany([
        { kind: 'escrow', from: wa, amount: 10n, memo: 'one' },
        { kind: 'mint', to: wb, amount: 5n },
        { kind: 'escrow', from: wb, amount: 50n, memo: 'too much' },
        { kind: 'escrow', from: wa, amount: 20n, memo: 'two' },
      ]);
      tick();
      await chain.escrow(wa, 30n);
      tick();
    };
    const memory = createTestChain(new MemoryChainStore());
    await run(memory.chain, () => memory.timer.tick());
    const f = files();
    const first = await boot(f);
    await run(first.chain, () => first.timer.tick());
    await first.close();
    const second = await boot(f);

    const found = second.chain.receiptsBetween(1, 3, 'escrow');
    expect(
      found.map((r) => [r.blockNumber, r.transactionIndex, r.status, r.tx.kind, 'memo' in r.tx && r.tx.memo]),
    ).toEqual([
      [2, 0, 'success', 'escrow', 'one'],
      [2, 2, 'failed', 'escrow', 'too much'],
      [2, 3, 'success', 'escrow', 'two'],
      [3, 0, 'success', 'escrow', null],
    ]);
    expect(found[0]).toEqual(await second.chain.getReceipt(found[0]!.transactionHash));
    expect(memory.chain.receiptsBetween(1, 3, 'escrow')).toEqual(found);
    expect(second.chain.receiptsBetween(2, 2, 'escrow')).toEqual([]);
    expect(second.chain.receiptsBetween(0, 1, 'mint').map((r) => r.blockNumber)).toEqual([1]);
    expect(second.chain.headNumber()).toBe(3);
    await second.close();
  });
});

describe('openEmbeddedChain', () => {
  it('wires chain and multisig on one database with real block timing, and resumes after reopening', async () => {
    const f = files();
    const options = { chainId: 79479957, baseToken: BASE_TOKEN, escrowAddress: ESCROW, blockTimeMs: 20 };
    const db = f.open();
    const first = await openEmbeddedChain({ ...options, db });
    const { txHash } = await first.chain.deployProxy(A);
    await first.stop();
    db.close();

    const db2 = f.open();
    const second = await openEmbeddedChain({ ...options, db: db2 });
    const receipt = await second.chain.waitForReceipt(txHash!, { timeoutMs: 2000 });
    expect(receipt.status).toBe('success');
    const safe = second.chain.proxyAddressFor(A);
    const p = await second.multisig.prepare({ safeAddress: safe, newSignerAddress: B });
    // Chain 79479957 domain: a different hash from the mainnet vector.
    expect(p.typedData.domain).toEqual({ chainId: 79479957, verifyingContract: safe });
    const progress = await second.multisig.confirm({
      safeAddress: safe,
      safeTxHash: p.safeTxHash,
      safeTransactionData: p.safeTransactionData,
      signature: await sign(KEYS.A, p),
    });
    expect(progress.isReadyToExecute).toBe(true);
    for (let i = 0; i < 100 && !(await second.multisig.progress(p.safeTxHash))?.isExecuted; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await second.multisig.progress(p.safeTxHash)).toMatchObject({ isExecuted: true });
    await second.stop();
    db2.close();
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

const item = (id: string, kind: SettlementItemKind, ...moves: SettlementMove[]): SettlementItem => ({
  id,
  kind,
  moves,
});
const escrow = (from: Address, amount: bigint): SettlementMove => ({ kind: 'escrow', from, amount });
const mint = (to: Address, amount: bigint): SettlementMove => ({ kind: 'mint', to, amount });

describe('settlement transactions across restarts', () => {
  it('the cursor is written with the submission: kept across a restart, rolled back with a caller transaction', async () => {
    const f = files();
    const first = await boot(f);
    const wa = first.chain.proxyAddressFor(A);
    let kept = '' as Hash;
    first.db.transaction(() => {
      void first.chain
        .submitSettlement({
          firstSeq: 1,
          lastSeq: 5,
          retries: [],
          items: [item('deposit:1', 'deposit', mint(wa, 9n))],
        })
        .then((r) => {
          kept = r.txHash;
        });
    })();
    expect(() =>
      first.db.transaction(() => {
        void first.chain.submitSettlement({
          firstSeq: 6,
          lastSeq: 8,
          retries: [],
          items: [item('deposit:6', 'deposit', mint(wa, 1n))],
        });
        expect(first.chain.settlementSubmittedThrough()).toBe(8);
        throw new Error('batch failed');
      })(),
    ).toThrow('batch failed');
    await Promise.resolve();
    expect(first.chain.settlementSubmittedThrough()).toBe(5);
    expect(first.chain.pendingSettlements().map((t) => t.hash)).toEqual([kept]);
    await first.close();

    // Pending across the restart, the cursor with it; then mined.
    const second = await boot(f);
    expect(second.chain.settlementSubmittedThrough()).toBe(5);
    expect(second.chain.pendingSettlements().map((t) => [t.hash, t.lastSeq, t.items])).toEqual([
      [kept, 5, [item('deposit:1', 'deposit', mint(wa, 9n))]],
    ]);
    // The rolled-back window may be submitted again.
    await second.chain.submitSettlement({ firstSeq: 6, lastSeq: 8, retries: [], items: [] });
    second.timer.tick();
    expect(await second.chain.balanceOf(wa)).toBe(9n);
    await second.close();

    const third = await boot(f);
    expect(third.chain.settlementSubmittedThrough()).toBe(8);
    expect(third.chain.pendingSettlements()).toEqual([]);
    await third.close();
  });

  it('landed ids stay landed and receipts keep their item results across a restart, alike in either store', async () => {
    const run = async (chain: ReturnType<typeof createTestChain>['chain'], tick: () => void) => {
      const wa = chain.proxyAddressFor(A);
      const wb = chain.proxyAddressFor(B);
      await chain.submitSettlement({
        firstSeq: 1,
        lastSeq: 2,
        retries: [],
        items: [item('deposit:1', 'deposit', mint(wa, 50n)), item('deposit:2', 'deposit', mint(wb, 5n))],
      });
      tick();
      await chain.submitSettlement({
        firstSeq: 3,
        lastSeq: 4,
        retries: [],
        items: [
          item('fill:3', 'fill', escrow(wa, 20n), escrow(wb, 6n)),
          item('fill:4', 'fill', escrow(wa, 20n)),
        ],
      });
      tick();
    };
    const memory = createTestChain(new MemoryChainStore());
    await run(memory.chain, () => memory.timer.tick());
    const f = files();
    const first = await boot(f);
    await run(first.chain, () => first.timer.tick());
    const before = first.chain.receiptsBetween(0, 2, 'settle');
    await first.close();

    const second = await boot(f);
    const after = second.chain.receiptsBetween(0, 2, 'settle');
    expect(after).toEqual(before);
    expect(after).toEqual(memory.chain.receiptsBetween(0, 2, 'settle'));
    expect(after.map((r) => r.items?.map((i) => [i.id, i.status, i.error]))).toEqual([
      [
        ['deposit:1', 'success', null],
        ['deposit:2', 'success', null],
      ],
      [
        ['fill:3', 'failed', 'INSUFFICIENT_BALANCE'],
        ['fill:4', 'success', null],
      ],
    ]);
    expect(await second.chain.getReceipt(after[1]!.transactionHash)).toEqual(after[1]);
    // Other kinds' receipts have no item results.
    expect(second.chain.receiptsBetween(0, 2, 'mint')).toEqual([]);

    const wa = second.chain.proxyAddressFor(A);
    const wb = second.chain.proxyAddressFor(B);
    const again = await second.chain.submitSettlement({
      firstSeq: 5,
      lastSeq: 5,
      retries: [],
      items: [
        item('deposit:1', 'deposit', mint(wa, 50n)),
        item('fill:4', 'fill', escrow(wa, 20n)),
        item('fill:3', 'fill', escrow(wa, 20n), escrow(wb, 5n)),
      ],
    });
    second.timer.tick();
    expect((await second.chain.getReceipt(again.txHash))?.items?.map((i) => i.status)).toEqual([
      'duplicate',
      'duplicate',
      'success',
    ]);
    expect(second.chain.balances()).toEqual(
      new Map([
        [wa, 10n],
        [wb, 0n],
        [ESCROW, 45n],
      ]),
    );
    await second.close();
  });

  it('faults persist: counts used up in the block that used them, a pause and an armed drop survive a restart', async () => {
    const f = files();
    const first = await boot(f);
    const wa = first.chain.proxyAddressFor(A);
    await first.chain.failNextSettlementItems('deposit', 3);
    await first.chain.failNextSettlementItems('escrow', 1);
    await first.chain.submitSettlement({
      firstSeq: 1,
      lastSeq: 1,
      retries: [],
      items: [item('deposit:1', 'deposit', mint(wa, 5n))],
    });
    first.timer.tick();
    await first.chain.pauseBlocks();
    await first.chain.dropNextBlockAnnouncement();
    await first.close();

    const second = await boot(f);
    expect(second.chain.faults()).toEqual({
      failNextDeployment: false,
      failSettlementItems: { escrow: 1, release: 0, payout: 0, deposit: 2 },
      blocksPaused: true,
      dropNextBlockAnnouncement: true,
    });
    const heard: number[] = [];
    second.chain.onBlock((block) => heard.push(block.number));
    await second.chain.submitSettlement({
      firstSeq: 2,
      lastSeq: 2,
      retries: [],
      items: [item('fill:2', 'fill', escrow(wa, 1n)), item('deposit:1', 'deposit', mint(wa, 5n))],
    });
    second.timer.tick();
    expect(await second.chain.blockNumber()).toBe(1);
    await second.chain.resumeBlocks();
    second.timer.tick();
    expect(heard).toEqual([]);
    expect(second.chain.receiptsBetween(1, 2, 'settle')[0]?.items?.map((i) => i.error)).toEqual([
      'INJECTED_FAULT',
      'INJECTED_FAULT',
    ]);
    await second.close();

    const third = await boot(f);
    expect(third.chain.faults()).toEqual({
      failNextDeployment: false,
      failSettlementItems: { escrow: 0, release: 0, payout: 0, deposit: 1 },
      blocksPaused: false,
      dropNextBlockAnnouncement: false,
    });
    await third.close();
  });
});
