import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import type { Address, Hash } from '../chain/chain-types.js';
import { MultisigCoordinator, type PreparedSafeTx } from '../chain/multisig.js';
import { openEmbeddedChain } from '../chain/open-embedded-chain.js';
import type { SettlementItem, SettlementItemKind, SettlementMove } from '../chain/settlement-types.js';
import { A, B, BASE_TOKEN, C, ESCROW, KEYS, openTestChain, SAFE_A } from '../chain/test-support.js';
import { type ChainStoresUnderTest, chainStoresUnderTest } from './test-support/chain-stores-under-test.js';

const sign = (key: Hash, prepared: PreparedSafeTx) =>
  privateKeyToAccount(key).signTypedData(
    prepared.typedData as unknown as Parameters<ReturnType<typeof privateKeyToAccount>['signTypedData']>[0],
  );

const item = (id: string, kind: SettlementItemKind, ...moves: SettlementMove[]): SettlementItem => ({
  id,
  kind,
  moves,
});
const escrow = (from: Address, amount: bigint): SettlementMove => ({ kind: 'escrow', from, amount });
const mint = (to: Address, amount: bigint): SettlementMove => ({ kind: 'mint', to, amount });

/**
 * The embedded chain and the multisig coordinator on each store, across restarts: what a process leaves in
 * its store is what the next one starts from.
 */
describe.each(await chainStoresUnderTest())('the embedded chain on $name, across restarts', (under) => {
  const open: ChainStoresUnderTest[] = [];
  afterEach(async () => {
    for (const stores of open.splice(0)) await stores.close();
  });

  /** One "process": the stores, a chain and a multisig coordinator on them. */
  async function boot(given?: ChainStoresUnderTest) {
    const stores = given ?? (await under.open());
    open.push(stores);
    const { chain, timer } = await openTestChain(stores.chain);
    const multisig = new MultisigCoordinator({ chain, store: stores.multisig });
    await multisig.start();
    return {
      chain,
      timer,
      multisig,
      /** Stops this process and starts the next one on the same data. */
      async restart() {
        await this.close();
        return boot(await stores.reopen());
      },
      async close() {
        multisig.stop();
        await multisig.idle();
        await chain.stop();
        await stores.close();
      },
    };
  }

  it('restores blocks, receipts, balances, safes and deployments', async () => {
    const first = await boot();
    const wa = first.chain.proxyAddressFor(A);
    await first.chain.deployProxy(A);
    const minted = await first.chain.mint(wa, 1_000_000n);
    await first.timer.tick();
    await first.chain.escrow(wa, 400_000n, 'trade-9');
    await first.timer.tick();
    const receipt = await first.chain.getReceipt(minted.txHash);
    const block2 = await first.chain.getBlock(2);

    const second = await first.restart();
    expect(await second.chain.blockNumber()).toBe(2);
    expect(await second.chain.getBlock(2)).toEqual(block2);
    expect(await second.chain.getReceipt(minted.txHash)).toEqual(receipt);
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
    expect(again.txHash).not.toBe(minted.txHash);
    await second.timer.tick();
    expect((await second.chain.getBlock(3))?.parentHash).toBe(block2?.hash);
    await second.close();
  });

  it('pending transactions complete after a restart; the counter resumes after the stored ones', async () => {
    const first = await boot();
    const wa = first.chain.proxyAddressFor(A);
    const hashes = (
      await first.chain.submitMany([
        { kind: 'mint', to: wa, amount: 90n, memo: 'deposit:1' },
        { kind: 'escrow', from: wa, amount: 50n, memo: 'escrow:0xA:2-3' },
      ])
    ).map((r) => r.txHash);

    const second = await first.restart();
    expect(second.chain.pendingTransactions().map((t) => t.hash)).toEqual(hashes);
    await second.timer.tick();
    for (const hash of hashes)
      expect(await second.chain.getReceipt(hash)).toMatchObject({ status: 'success' });
    expect(await second.chain.balanceOf(wa)).toBe(40n);
    expect(await second.chain.balanceOf(ESCROW)).toBe(50n);
    expect((await second.chain.getTransaction((await second.chain.mint(wa, 1n)).txHash))?.seq).toBe(2);
    await second.close();
  });

  it('never gives a sequence number below the counter a store of an earlier version kept', async () => {
    const stores = await under.open();
    await stores.chain.putMeta(new Map([['nextSeq', '10']]));
    const node = await boot(stores);
    const wa = node.chain.proxyAddressFor(A);
    expect((await node.chain.getTransaction((await node.chain.mint(wa, 1n)).txHash))?.seq).toBe(10);
    await node.close();
  });

  it('a pending deployment completes after a restart', async () => {
    const first = await boot();
    const { txHash } = await first.chain.deployProxy(B);
    expect(await first.chain.getProxy(B)).toMatchObject({ state: 'pending', pending: true });

    const second = await first.restart();
    expect(second.chain.pendingTransactions().map((t) => t.hash)).toEqual([txHash]);
    expect(await second.chain.getProxy(B)).toMatchObject({ state: 'pending', pending: true, txHash });
    // Deploying again while pending submits nothing new.
    expect(await second.chain.deployProxy(B)).toMatchObject({ txHash, submitted: false });
    await second.timer.tick();
    expect(await second.chain.getReceipt(txHash!)).toMatchObject({ status: 'success', blockNumber: 1 });
    expect(await second.chain.getProxy(B)).toMatchObject({
      state: 'deployed',
      pending: false,
      deployed: true,
    });
    await second.close();
  });

  it('the fault switch survives a restart and a failed deployment can be retried', async () => {
    const first = await boot();
    await first.chain.failNextDeployment();

    const second = await first.restart();
    const failed = await second.chain.deployProxy(C);
    await second.timer.tick();
    expect(await second.chain.getReceipt(failed.txHash!)).toMatchObject({
      status: 'failed',
      error: 'DEPLOYMENT_FAILED',
    });

    const third = await second.restart();
    expect(await third.chain.getProxy(C)).toMatchObject({ state: 'failed', pending: false, deployed: false });
    const retry = await third.chain.deployProxy(C);
    await third.timer.tick();
    expect(await third.chain.getReceipt(retry.txHash!)).toMatchObject({ status: 'success' });
    expect(await third.chain.getProxy(C)).toMatchObject({ state: 'deployed' });
    await third.close();
  });

  it('a pending multisig transaction completes after a restart (submitted, not yet mined)', async () => {
    const first = await boot();
    await first.chain.deployProxy(A);
    await first.timer.tick();
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

    const second = await first.restart();
    expect(await second.multisig.progress(p.safeTxHash)).toMatchObject({ signedCount: 1, isExecuted: false });
    await second.timer.tick();
    const done = await second.multisig.progress(p.safeTxHash);
    expect(done).toMatchObject({ confirmedBy: [A], isExecuted: true });
    expect(done?.executionTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await second.chain.getSafe(SAFE_A)).toMatchObject({ owners: [B, A], threshold: 1, nonce: 1 });
    await second.close();
  });

  it('a half-confirmed multisig transaction keeps its confirmations across a restart (threshold 2)', async () => {
    const first = await boot();
    await first.chain.deployProxy(A);
    await first.timer.tick();
    const p0 = await first.multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B, threshold: 2 });
    await first.multisig.confirm({
      safeAddress: SAFE_A,
      safeTxHash: p0.safeTxHash,
      safeTransactionData: p0.safeTransactionData,
      signature: await sign(KEYS.A, p0),
    });
    await first.timer.tick();
    const p1 = await first.multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: C });
    await first.multisig.confirm({
      safeAddress: SAFE_A,
      safeTxHash: p1.safeTxHash,
      safeTransactionData: p1.safeTransactionData,
      signature: await sign(KEYS.B, p1),
    });

    const second = await first.restart();
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
    await second.timer.tick();
    expect(await second.multisig.progress(p1.safeTxHash)).toMatchObject({ isExecuted: true });
    expect(await second.chain.getSafe(SAFE_A)).toMatchObject({ owners: [C, B, A], threshold: 2, nonce: 2 });
    await second.close();
  });

  it('a multisig transaction that was mined while the coordinator was away is reconciled at start', async () => {
    const first = await boot();
    await first.chain.deployProxy(A);
    await first.timer.tick();
    const p = await first.multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B });
    await first.multisig.confirm({
      safeAddress: SAFE_A,
      safeTxHash: p.safeTxHash,
      safeTransactionData: p.safeTransactionData,
      signature: await sign(KEYS.A, p),
    });
    first.multisig.stop();
    await first.timer.tick(); // lands while nobody listens

    const second = await first.restart();
    expect(await second.multisig.progress(p.safeTxHash)).toMatchObject({ isExecuted: true });
    await second.close();
  });

  it("gives one kind's receipts of blocks (after, through], in chain order, after a restart", async () => {
    const first = await boot();
    const wa = first.chain.proxyAddressFor(A);
    const wb = first.chain.proxyAddressFor(B);
    await first.chain.mint(wa, 100n);
    await first.timer.tick();
    await first.chain.submitMany([
      { kind: 'escrow', from: wa, amount: 10n, memo: 'one' },
      { kind: 'mint', to: wb, amount: 5n },
      { kind: 'escrow', from: wb, amount: 50n, memo: 'too much' },
      { kind: 'escrow', from: wa, amount: 20n, memo: 'two' },
    ]);
    await first.timer.tick();
    await first.chain.escrow(wa, 30n);
    await first.timer.tick();

    const second = await first.restart();
    const found = await second.chain.receiptsBetween(1, 3, 'escrow');
    expect(
      found.map((r) => [r.blockNumber, r.transactionIndex, r.status, r.tx.kind, 'memo' in r.tx && r.tx.memo]),
    ).toEqual([
      [2, 0, 'success', 'escrow', 'one'],
      [2, 2, 'failed', 'escrow', 'too much'],
      [2, 3, 'success', 'escrow', 'two'],
      [3, 0, 'success', 'escrow', null],
    ]);
    expect(found[0]).toEqual(await second.chain.getReceipt(found[0]!.transactionHash));
    expect(await second.chain.receiptsBetween(2, 2, 'escrow')).toEqual([]);
    expect((await second.chain.receiptsBetween(0, 1, 'mint')).map((r) => r.blockNumber)).toEqual([1]);
    expect(second.chain.headNumber()).toBe(3);
    await second.close();
  });

  it('keeps the settlement cursor with the submission; a pending settlement lands after a restart', async () => {
    const first = await boot();
    const wa = first.chain.proxyAddressFor(A);
    const { txHash } = await first.chain.submitSettlement({
      firstSeq: 1,
      lastSeq: 5,
      retries: [],
      items: [item('deposit:1', 'deposit', mint(wa, 9n))],
    });
    expect(first.chain.settlementSubmittedThrough()).toBe(5);

    const second = await first.restart();
    expect(second.chain.settlementSubmittedThrough()).toBe(5);
    expect(second.chain.pendingSettlements().map((t) => [t.hash, t.lastSeq, t.items])).toEqual([
      [txHash, 5, [item('deposit:1', 'deposit', mint(wa, 9n))]],
    ]);
    // A window that does not follow the cursor is refused.
    await expect(
      second.chain.submitSettlement({ firstSeq: 5, lastSeq: 8, retries: [], items: [] }),
    ).rejects.toMatchObject({ statusCode: 409 });
    await second.chain.submitSettlement({ firstSeq: 6, lastSeq: 8, retries: [], items: [] });
    await second.timer.tick();
    expect(await second.chain.balanceOf(wa)).toBe(9n);

    const third = await second.restart();
    expect(third.chain.settlementSubmittedThrough()).toBe(8);
    expect(third.chain.pendingSettlements()).toEqual([]);
    await third.close();
  });

  it('landed ids stay landed and receipts keep their item results across a restart', async () => {
    const first = await boot();
    const wa = first.chain.proxyAddressFor(A);
    const wb = first.chain.proxyAddressFor(B);
    await first.chain.submitSettlement({
      firstSeq: 1,
      lastSeq: 2,
      retries: [],
      items: [item('deposit:1', 'deposit', mint(wa, 50n)), item('deposit:2', 'deposit', mint(wb, 5n))],
    });
    await first.timer.tick();
    await first.chain.submitSettlement({
      firstSeq: 3,
      lastSeq: 4,
      retries: [],
      items: [
        item('fill:3', 'fill', escrow(wa, 20n), escrow(wb, 6n)),
        item('fill:4', 'fill', escrow(wa, 20n)),
      ],
    });
    await first.timer.tick();
    const before = await first.chain.receiptsBetween(0, 2, 'settle');

    const second = await first.restart();
    const after = await second.chain.receiptsBetween(0, 2, 'settle');
    expect(after).toEqual(before);
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
    expect(await second.chain.receiptsBetween(0, 2, 'mint')).toEqual([]);

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
    await second.timer.tick();
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
    const first = await boot();
    const wa = first.chain.proxyAddressFor(A);
    await first.chain.failNextSettlementItems('deposit', 3);
    await first.chain.failNextSettlementItems('escrow', 1);
    await first.chain.submitSettlement({
      firstSeq: 1,
      lastSeq: 1,
      retries: [],
      items: [item('deposit:1', 'deposit', mint(wa, 5n))],
    });
    await first.timer.tick();
    await first.chain.pauseBlocks();
    await first.chain.dropNextBlockAnnouncement();

    const second = await first.restart();
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
    await second.timer.tick();
    expect(await second.chain.blockNumber()).toBe(1);
    await second.chain.resumeBlocks();
    await second.timer.tick();
    expect(heard).toEqual([]);
    expect((await second.chain.receiptsBetween(1, 2, 'settle'))[0]?.items?.map((i) => i.error)).toEqual([
      'INJECTED_FAULT',
      'INJECTED_FAULT',
    ]);

    const third = await second.restart();
    expect(third.chain.faults()).toEqual({
      failNextDeployment: false,
      failSettlementItems: { escrow: 0, release: 0, payout: 0, deposit: 1 },
      blocksPaused: false,
      dropNextBlockAnnouncement: false,
    });
    await third.close();
  });

  it('openEmbeddedChain wires chain and multisig with real block timing, and resumes after reopening', async () => {
    const options = { chainId: 79479957, baseToken: BASE_TOKEN, escrowAddress: ESCROW, blockTimeMs: 20 };
    const stores = await under.open();
    open.push(stores);
    const first = await openEmbeddedChain({
      ...options,
      store: stores.chain,
      multisigStore: stores.multisig,
    });
    const { txHash } = await first.chain.deployProxy(A);
    await first.stop();

    const reopened = await stores.reopen();
    open.push(reopened);
    const second = await openEmbeddedChain({
      ...options,
      store: reopened.chain,
      multisigStore: reopened.multisig,
    });
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
  });
});
