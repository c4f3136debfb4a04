import { describe, expect, it } from 'vitest';
import { supportsFaults } from './chain.js';
import { type ChainStore, MemoryChainStore } from './chain-store.js';
import type { ChainReceipt } from './chain-types.js';
import { EmbeddedChain } from './embedded-chain.js';
import { A, B, BASE_TOKEN, C, createTestChain, ESCROW, openTestChain, SAFE_A } from './test-support.js';
import { canonicalJson, keccakHex } from './tx-codec.js';

describe('embedded chain: blocks and transactions', () => {
  it('mines submitted transactions in a later block, with keccak content hashes and receipts', async () => {
    const { chain, timer } = createTestChain(new MemoryChainStore());
    const seen: ChainReceipt[] = [];
    chain.onReceipt((r) => seen.push(r));
    expect(await chain.blockNumber()).toBe(0);
    const { txHash } = await chain.mint(A, 5_000_000n, 'faucet');
    expect(txHash).toBe(
      keccakHex(
        canonicalJson({ chainId: 4162, seq: 0, kind: 'mint', to: A, amount: 5_000_000n, memo: 'faucet' }),
      ),
    );
    expect(await chain.getReceipt(txHash)).toBeNull();
    expect(await chain.balanceOf(A)).toBe(0n);
    const waiting = chain.waitForReceipt(txHash);
    timer.tick();
    const receipt = await waiting;
    expect(receipt).toMatchObject({
      transactionHash: txHash,
      blockNumber: 1,
      status: 'success',
      error: null,
    });
    expect(seen).toEqual([receipt]);
    expect(await chain.getReceipt(txHash)).toEqual(receipt);
    expect(await chain.balanceOf(A)).toBe(5_000_000n);
    const block = await chain.getBlock(1);
    expect(block?.transactions).toEqual([txHash]);
    expect(block?.parentHash).toBe(`0x${'0'.repeat(64)}`);
    // No pending transactions: no empty blocks.
    timer.tick(3);
    expect(await chain.blockNumber()).toBe(1);
    // Two identical mints get different hashes (sequence number).
    const t1 = await chain.mint(A, 1n);
    const t2 = await chain.mint(A, 1n);
    expect(t1.txHash).not.toBe(t2.txHash);
    timer.tick();
    const b2 = await chain.getBlock(2);
    expect(b2?.parentHash).toBe(block?.hash);
    expect(b2?.transactions).toEqual([t1.txHash, t2.txHash]);
  });

  it('a stopped chain mines nothing until started again', async () => {
    const { chain, timer } = createTestChain(new MemoryChainStore());
    await chain.stop();
    const { txHash } = await chain.mint(B, 10n);
    timer.tick();
    expect(await chain.getReceipt(txHash)).toBeNull();
    chain.start();
    timer.tick();
    expect((await chain.getReceipt(txHash))?.status).toBe('success');
  });

  it('rejects bad amounts and addresses at submission', async () => {
    const { chain } = createTestChain(new MemoryChainStore());
    await expect(chain.mint(A, 0n)).rejects.toMatchObject({ code: 'INVALID_AMOUNT' });
    await expect(chain.mint(A, -5n)).rejects.toMatchObject({ code: 'INVALID_AMOUNT' });
    await expect(chain.mint('0x1234' as `0x${string}`, 5n)).rejects.toMatchObject({
      code: 'INVALID_ADDRESS',
    });
  });

  it('waitForReceipt times out', async () => {
    const { chain } = createTestChain(new MemoryChainStore());
    const { txHash } = await chain.mint(A, 1n);
    await expect(chain.waitForReceipt(txHash, { timeoutMs: 10 })).rejects.toThrow(/no receipt/);
  });

  it('runs on a real interval timer too', async () => {
    const chain = new EmbeddedChain({
      chainId: 79479957,
      store: new MemoryChainStore(),
      baseToken: BASE_TOKEN,
      escrowAddress: ESCROW,
      blockTimeMs: 20,
    });
    chain.start();
    const { txHash } = await chain.mint(C, 7n);
    const receipt = await chain.waitForReceipt(txHash, { timeoutMs: 2000 });
    expect(receipt.status).toBe('success');
    await chain.stop();
  });
});

describe('embedded chain: balances and escrow', () => {
  it('escrow and release conserve the supply; failures change nothing', async () => {
    const { chain, timer } = createTestChain(new MemoryChainStore());
    const wa = chain.proxyAddressFor(A);
    const wb = chain.proxyAddressFor(B);
    await chain.mint(wa, 100_000_000n);
    await chain.mint(wb, 50_000_000n);
    timer.tick();
    expect(chain.totalSupply()).toBe(150_000_000n);

    // A match: both stakes go to escrow in one block.
    const e1 = await chain.escrow(wa, 30_000_000n, 'trade-1');
    const e2 = await chain.escrow(wb, 10_000_000n, 'trade-1');
    timer.tick();
    expect((await chain.getReceipt(e1.txHash))?.tx).toMatchObject({ kind: 'escrow', memo: 'trade-1' });
    expect((await chain.getReceipt(e2.txHash))?.status).toBe('success');
    expect(await chain.balanceOf(wa)).toBe(70_000_000n);
    expect(await chain.balanceOf(wb)).toBe(40_000_000n);
    expect(await chain.balanceOf(ESCROW)).toBe(40_000_000n);
    expect(chain.totalSupply()).toBe(150_000_000n);

    // Overdraw fails and changes nothing, in the same block as a good transfer.
    const bad = await chain.escrow(wb, 40_000_001n);
    const badRelease = await chain.release(wa, 40_000_001n);
    const ok = await chain.transfer(wa, wb, 1n);
    timer.tick();
    expect(await chain.getReceipt(bad.txHash)).toMatchObject({
      status: 'failed',
      error: 'INSUFFICIENT_BALANCE',
    });
    expect(await chain.getReceipt(badRelease.txHash)).toMatchObject({
      status: 'failed',
      error: 'INSUFFICIENT_ESCROW',
    });
    expect((await chain.getReceipt(ok.txHash))?.status).toBe('success');
    expect(await chain.balanceOf(ESCROW)).toBe(40_000_000n);

    // Settlement: the winner takes the pot.
    await chain.release(wb, 40_000_000n, 'trade-1');
    timer.tick();
    expect(await chain.balanceOf(ESCROW)).toBe(0n);
    expect(await chain.balanceOf(wa)).toBe(69_999_999n);
    expect(await chain.balanceOf(wb)).toBe(80_000_001n);
    expect(chain.totalSupply()).toBe(150_000_000n);
  });
});

describe('embedded chain: submitMany', () => {
  it('submits in order with one store write and no counter write: the same hashes, seqs and receipts as one call each', async () => {
    const store = new MemoryChainStore();
    const writes: number[] = [];
    const addPending = store.addPending.bind(store);
    store.addPending = (txs, changes) => {
      writes.push(txs.length);
      // The rows' own seq is the counter: nothing else is written.
      expect(changes).toEqual({});
      addPending(txs, changes);
    };
    const { chain, timer } = createTestChain(store);
    const wa = chain.proxyAddressFor(A);
    const wb = chain.proxyAddressFor(B);
    const submitted = await chain.submitMany([
      { kind: 'mint', to: wa, amount: 100n, memo: 'deposit:1' },
      { kind: 'escrow', from: wa, amount: 60n, memo: 'escrow:A:2-5' },
      { kind: 'release', to: wb, amount: 60n },
      { kind: 'transfer', from: wa, to: wb, amount: 40n },
    ]);
    expect(writes).toEqual([4]);
    expect(submitted[1]!.txHash).toBe(
      keccakHex(
        canonicalJson({ chainId: 4162, seq: 1, kind: 'escrow', from: wa, amount: 60n, memo: 'escrow:A:2-5' }),
      ),
    );
    expect(chain.pendingTransactions().map((t) => [t.kind, t.seq])).toEqual([
      ['mint', 0],
      ['escrow', 1],
      ['release', 2],
      ['transfer', 3],
    ]);
    // The counter goes on after them.
    const next = await chain.mint(wa, 1n);
    expect((await chain.getTransaction(next.txHash))?.seq).toBe(4);
    timer.tick();
    for (const { txHash } of submitted) expect((await chain.getReceipt(txHash))?.status).toBe('success');
    expect(await chain.balanceOf(wa)).toBe(1n);
    expect(await chain.balanceOf(wb)).toBe(100n);
    expect(await chain.balanceOf(ESCROW)).toBe(0n);
    expect(await chain.submitMany([])).toEqual([]);
    expect(writes).toEqual([4, 1]);
  });

  it('is all or none: one bad request and nothing is submitted', async () => {
    const { chain } = createTestChain(new MemoryChainStore());
    const wa = chain.proxyAddressFor(A);
    await expect(
      chain.submitMany([
        { kind: 'mint', to: wa, amount: 5n },
        { kind: 'escrow', from: wa, amount: 0n },
      ]),
    ).rejects.toMatchObject({ code: 'INVALID_AMOUNT' });
    await expect(
      chain.submitMany([{ kind: 'release', to: '0x12' as `0x${string}`, amount: 5n }]),
    ).rejects.toMatchObject({ code: 'INVALID_ADDRESS' });
    expect(chain.pendingTransactions()).toHaveLength(0);
    expect((await chain.getTransaction((await chain.mint(wa, 1n)).txHash))?.seq).toBe(0);
  });
});

describe('embedded chain: proxy deployment', () => {
  it('the proxy address is the Safe CREATE2 address, known before deployment', async () => {
    const { chain } = createTestChain(new MemoryChainStore());
    expect(chain.proxyAddressFor(A)).toBe(SAFE_A);
    expect(chain.proxyAddressFor(A.toLowerCase() as `0x${string}`)).toBe(SAFE_A);
    expect(await chain.getProxy(A)).toEqual({
      address: SAFE_A,
      owner: A,
      state: 'none',
      pending: false,
      deployed: false,
      txHash: null,
    });
  });

  it('deploys in a later block: none -> pending -> deployed; deploying twice is harmless', async () => {
    const { chain, timer } = createTestChain(new MemoryChainStore());
    const first = await chain.deployProxy(A);
    expect(first).toMatchObject({ safe: SAFE_A, submitted: true });
    expect(await chain.getProxy(A)).toMatchObject({
      state: 'pending',
      pending: true,
      deployed: false,
      txHash: first.txHash,
    });
    expect(await chain.getSafe(SAFE_A)).toBeNull();
    // While pending, a second request returns the same transaction.
    expect(await chain.deployProxy(A)).toEqual({ safe: SAFE_A, txHash: first.txHash, submitted: false });
    timer.tick();
    expect(await chain.getReceipt(first.txHash!)).toMatchObject({ status: 'success', blockNumber: 1 });
    expect(await chain.getProxy(A)).toMatchObject({ state: 'deployed', pending: false, deployed: true });
    expect(await chain.getSafe(SAFE_A)).toEqual({
      address: SAFE_A,
      owners: [A],
      threshold: 1,
      nonce: 0,
      deployedBlock: 1,
    });
    // Deployed: nothing new is submitted.
    expect(await chain.deployProxy(A)).toEqual({ safe: SAFE_A, txHash: first.txHash, submitted: false });
    expect(chain.pendingTransactions()).toHaveLength(0);
  });

  it('failNextDeployment: pending -> failed (pending false, deployed false), then a retry succeeds', async () => {
    const { chain, timer } = createTestChain(new MemoryChainStore());
    expect(supportsFaults(chain)).toBe(true);
    await chain.failNextDeployment();
    const failed = await chain.deployProxy(B);
    timer.tick();
    expect(await chain.getReceipt(failed.txHash!)).toMatchObject({
      status: 'failed',
      error: 'DEPLOYMENT_FAILED',
    });
    const afterFailure = await chain.getProxy(B);
    expect(afterFailure).toMatchObject({
      state: 'failed',
      pending: false,
      deployed: false,
      txHash: failed.txHash,
    });
    expect(await chain.getSafe(afterFailure.address)).toBeNull();

    // The fault hits one deployment only.
    const retry = await chain.deployProxy(B);
    expect(retry.submitted).toBe(true);
    expect(retry.txHash).not.toBe(failed.txHash);
    expect(await chain.getProxy(B)).toMatchObject({ state: 'pending', pending: true });
    timer.tick();
    expect(await chain.getReceipt(retry.txHash!)).toMatchObject({ status: 'success' });
    expect(await chain.getProxy(B)).toMatchObject({ state: 'deployed', pending: false, deployed: true });
  });
});

/**
 * `inner` answering later (each answer a turn of the event loop later, as a remote store does), or refusing
 * writes while `refuse` is set (at once, or later); counts the writes under way at once.
 */
function remoteStore(inner: MemoryChainStore, options: { refuseLater?: boolean } = {}) {
  const state = { refuse: false, writing: 0, mostWriting: 0 };
  const later = <T>(answer: () => T) =>
    new Promise<T>((resolve, reject) =>
      setImmediate(() => {
        try {
          resolve(answer());
        } catch (error) {
          reject(error);
        }
      }),
    );
  const write = <T>(answer: () => T): Promise<T> => {
    if (state.refuse && !options.refuseLater) throw new Error('disk full');
    state.writing += 1;
    state.mostWriting = Math.max(state.mostWriting, state.writing);
    return later(() => {
      state.writing -= 1;
      if (state.refuse) throw new Error('disk full');
      return answer();
    });
  };
  const store: ChainStore = {
    load: () => later(() => inner.load()),
    addPending: (txs, changes) => write(() => inner.addPending(txs, changes)),
    appendBlock: (block, receipts, changes) => write(() => inner.appendBlock(block, receipts, changes)),
    putMeta: (changes) => write(() => inner.putMeta(changes)),
    landedItems: (ids) => later(() => inner.landedItems(ids)),
    getBlock: (number) => later(() => inner.getBlock(number)),
    getTransaction: (hash) => later(() => inner.getTransaction(hash)),
    getReceipt: (hash) => later(() => inner.getReceipt(hash)),
    receiptsBetween: (after, through, kind) => later(() => inner.receiptsBetween(after, through, kind)),
  };
  return { store, state };
}

describe('embedded chain: on a store that answers later', () => {
  it('writes one at a time, in the order asked, each checked against the writes before it', async () => {
    const inner = new MemoryChainStore();
    const remote = remoteStore(inner);
    const { chain, timer } = await openTestChain(remote.store);
    const announced: number[] = [];
    chain.onBlock((block) => {
      // Told only once the store has the block.
      expect(inner.getBlock(block.number)).toEqual(block);
      announced.push(block.number);
    });
    const wa = chain.proxyAddressFor(A);
    const deployed = chain.deployProxy(A);
    const again = chain.deployProxy(A);
    const minted = chain.mint(wa, 5n);
    const settled = chain.submitSettlement({ firstSeq: 1, lastSeq: 3, retries: [], items: [] });
    // Its window starts after the cursor the write before it moved.
    const next = chain.submitSettlement({ firstSeq: 4, lastSeq: 6, retries: [], items: [] });
    const early = chain.submitSettlement({ firstSeq: 5, lastSeq: 7, retries: [], items: [] });
    const mined = timer.tick();
    expect(mined).toBeInstanceOf(Promise);
    await expect(early).rejects.toMatchObject({ statusCode: 409 });
    const [first, second, ...rest] = await Promise.all([deployed, again, minted, settled, next]);
    await mined;
    expect(second).toEqual({ safe: SAFE_A, txHash: first.txHash, submitted: false });
    const hashes = [first.txHash!, ...rest.map((r) => r.txHash)];
    for (const [seq, hash] of hashes.entries()) expect((await chain.getTransaction(hash))?.seq).toBe(seq);
    expect(remote.state.mostWriting).toBe(1);
    expect(announced).toEqual([1]);
    expect((await chain.getBlock(1))?.transactions).toEqual(hashes);
    expect(await chain.balanceOf(wa)).toBe(5n);
    expect(chain.settlementSubmittedThrough()).toBe(6);
    expect(chain.pendingTransactions()).toEqual([]);
    await chain.stop();
  });

  it('a receipt asked for while its block is being written comes with the block', async () => {
    const { chain, timer } = await openTestChain(remoteStore(new MemoryChainStore()).store);
    const { txHash } = await chain.mint(A, 1n);
    const mined = timer.tick();
    const receipt = chain.waitForReceipt(txHash, { timeoutMs: 2_000 });
    await mined;
    expect(await receipt).toMatchObject({ transactionHash: txHash, blockNumber: 1, status: 'success' });
    // And one asked for after it landed is read back.
    expect(await chain.waitForReceipt(txHash, { timeoutMs: 2_000 })).toEqual(await receipt);
    await chain.stop();
  });

  for (const refuseLater of [false, true]) {
    it(`a write the store refuses (${refuseLater ? 'later' : 'at once'}) changes nothing`, async () => {
      const inner = new MemoryChainStore();
      const remote = remoteStore(inner, { refuseLater });
      const errors: unknown[] = [];
      const { chain, timer } = await openTestChain(remote.store, 4162, (error) => errors.push(error));
      const wa = chain.proxyAddressFor(A);
      await chain.mint(wa, 7n);
      remote.state.refuse = true;
      await expect(chain.mint(wa, 5n)).rejects.toThrow('disk full');
      await expect(chain.deployProxy(A)).rejects.toThrow('disk full');
      await expect(
        chain.submitSettlement({ firstSeq: 1, lastSeq: 4, retries: [], items: [] }),
      ).rejects.toThrow('disk full');
      await expect(chain.pauseBlocks()).rejects.toThrow('disk full');
      expect(chain.pendingTransactions()).toHaveLength(1);
      expect(await chain.getProxy(A)).toMatchObject({ state: 'none' });
      expect(chain.settlementSubmittedThrough()).toBe(0);
      expect(chain.faults().blocksPaused).toBe(false);
      // A block the store refuses: nothing applied, its transactions stay pending, the failure reported.
      await timer.tick();
      expect(errors).toEqual([expect.objectContaining({ message: 'disk full' })]);
      expect(await chain.blockNumber()).toBe(0);
      expect(await chain.balanceOf(wa)).toBe(0n);
      expect(chain.pendingTransactions()).toHaveLength(1);

      remote.state.refuse = false;
      // The counter did not move: the refused submissions never existed.
      const next = await chain.mint(wa, 1n);
      expect((await chain.getTransaction(next.txHash))?.seq).toBe(1);
      await timer.tick();
      expect(await chain.blockNumber()).toBe(1);
      expect(await chain.balanceOf(wa)).toBe(8n);
      expect((await inner.load()).balances).toEqual(new Map([[wa, 8n]]));
      await chain.stop();
    });
  }
});
