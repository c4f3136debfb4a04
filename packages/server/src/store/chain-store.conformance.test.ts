import { addOwnerSafeTransaction } from '@oddsbook/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChainSnapshot, StateChanges } from '../chain/chain-store.js';
import type {
  Address,
  ChainBlock,
  ChainReceipt,
  ChainTx,
  ChainTxPayload,
  Hash,
  ProxyDeployment,
  SafeState,
} from '../chain/chain-types.js';
import type { MultisigRecord } from '../chain/multisig-store.js';
import { A, B, C, ESCROW, SAFE_A } from '../chain/test-support.js';
import { blockHash, transactionHash } from '../chain/tx-codec.js';
import { type ChainStoresUnderTest, chainStoresUnderTest } from './test-support/chain-stores-under-test.js';

const T0 = 1_800_000_000_000;
/** Beyond 2^64: a balance is exact at any size. */
const HUGE = 2n ** 70n + 12_345n;

const tx = (seq: number, payload: ChainTxPayload): ChainTx => ({
  ...payload,
  hash: transactionHash(4162, seq, payload),
  seq,
  submittedAt: T0 + seq,
});
const mint = (seq: number, to: Address, amount: bigint, memo: string | null = null) =>
  tx(seq, { kind: 'mint', to, amount, memo });
const escrow = (seq: number, from: Address, amount: bigint, memo: string | null = null) =>
  tx(seq, { kind: 'escrow', from, amount, memo });
const deploy = (seq: number) =>
  tx(seq, { kind: 'deploySafe', safe: SAFE_A, owner: A, saltNonce: 2n ** 200n, injectedFailure: false });
const settle = (seq: number) =>
  tx(seq, {
    kind: 'settle',
    firstSeq: 3,
    lastSeq: 9,
    retries: [{ id: 'deposit:2', kind: 'deposit', moves: [{ kind: 'mint', to: B, amount: HUGE }] }],
    items: [
      {
        id: 'fill:4-0',
        kind: 'fill',
        moves: [
          { kind: 'escrow', from: A, amount: 7n },
          { kind: 'escrow', from: B, amount: 3n },
        ],
        fill: {
          matchId: '0x01',
          seq: 4,
          marketHash: '0xab',
          makerAccount: A,
          takerAccount: B,
          makerIsBettingOutcomeOne: true,
          makerStake: '7',
          takerStake: '3',
          refunds: [],
        },
      },
      { id: 'payout:M:C', kind: 'payout', moves: [{ kind: 'release', to: C, amount: 10n }] },
    ],
  });
const execSafe = (seq: number) =>
  tx(seq, {
    kind: 'execSafeTx',
    safe: SAFE_A,
    safeTxHash: `0x${'cd'.repeat(32)}`,
    transaction: addOwnerSafeTransaction({ safe: SAFE_A, newOwner: B, threshold: 1, nonce: 0 }),
    signatures: `0x${'11'.repeat(65)}`,
  });

/** Block `number` after `parent` with the receipts of `txs` (failing those in `failed`). */
function block(
  number: number,
  parent: ChainBlock | null,
  txs: readonly ChainTx[],
  failed: readonly Hash[] = [],
) {
  const header = {
    number,
    parentHash: parent?.hash ?? (`0x${'0'.repeat(64)}` as Hash),
    timestamp: T0 + 1000 * number,
    transactions: txs.map((t) => t.hash),
  };
  const b: ChainBlock = { ...header, hash: blockHash(header, 4162) };
  const receipts = txs.map(
    (t, transactionIndex): ChainReceipt => ({
      transactionHash: t.hash,
      blockNumber: number,
      blockHash: b.hash,
      transactionIndex,
      status: failed.includes(t.hash) ? 'failed' : 'success',
      error: failed.includes(t.hash) ? 'INSUFFICIENT_BALANCE' : null,
      tx: t,
      ...(t.kind === 'settle'
        ? {
            items: [...t.retries, ...t.items].map((item, i) => ({
              id: item.id,
              kind: item.kind,
              status: i === 1 ? ('failed' as const) : ('success' as const),
              error: i === 1 ? 'INSUFFICIENT_BALANCE' : null,
            })),
          }
        : {}),
    }),
  );
  return { block: b, receipts };
}

const safe: SafeState = { address: SAFE_A, owners: [B, A], threshold: 2, nonce: 1, deployedBlock: 1 };
const deployment = (state: ProxyDeployment['state'], txHash: Hash): ProxyDeployment => ({
  safe: SAFE_A,
  owner: A,
  saltNonce: 2n ** 200n,
  state,
  txHash,
});

/** A store's write, whether it answers at once or later: a throw is a rejection. */
const attempt = async (write: () => unknown) => write();

const EMPTY: ChainSnapshot = {
  head: null,
  nextSeq: 0,
  pending: [],
  balances: new Map(),
  safes: [],
  deployments: [],
  meta: new Map(),
};

describe.each(await chainStoresUnderTest())('the chain store on $name', (under) => {
  let stores: ChainStoresUnderTest;
  const reopen = async () => {
    stores = await stores.reopen();
    return stores.chain;
  };
  beforeEach(async () => {
    stores = await under.open();
  });
  afterEach(() => stores.close());

  it('begins empty', async () => {
    const store = stores.chain;
    expect(await store.load()).toEqual(EMPTY);
    expect(await store.getBlock(1)).toBeNull();
    expect(await store.getTransaction(mint(0, A, 1n).hash)).toBeNull();
    expect(await store.getReceipt(mint(0, A, 1n).hash)).toBeNull();
    expect(await store.receiptsBetween(0, 10, 'mint')).toEqual([]);
    expect(await store.landedItems(['deposit:1'])).toEqual(new Set());
    expect(await store.landedItems([])).toEqual(new Set());
  });

  it('keeps submitted transactions in order, with their side effects, across a restart', async () => {
    let store = stores.chain;
    const first = [mint(0, A, HUGE, 'deposit:1'), deploy(1)];
    await store.addPending(first, {
      deployments: [deployment('pending', first[1]!.hash)],
      meta: new Map([['fault.failNextDeployment', '0']]),
    });
    await store.addPending([settle(2), execSafe(3)], {
      meta: new Map([['settlement.submittedThrough', '9']]),
    });
    store = await reopen();
    expect(await store.load()).toEqual({
      ...EMPTY,
      nextSeq: 4,
      pending: [...first, settle(2), execSafe(3)],
      deployments: [deployment('pending', first[1]!.hash)],
      meta: new Map([
        ['fault.failNextDeployment', '0'],
        ['settlement.submittedThrough', '9'],
      ]),
    });
    for (const t of [...first, settle(2), execSafe(3)]) expect(await store.getTransaction(t.hash)).toEqual(t);
  });

  it('writes a submission whole or not at all', async () => {
    const store = stores.chain;
    await store.addPending([mint(0, A, 5n)], {});
    const before = await store.load();
    // The second transaction is stored already: neither is written, nor the side effects.
    await expect(
      attempt(() =>
        store.addPending([mint(1, B, 6n), mint(0, A, 5n)], {
          meta: new Map([['settlement.submittedThrough', '3']]),
        }),
      ),
    ).rejects.toThrow();
    expect(await store.load()).toEqual(before);
    expect(await store.getTransaction(mint(1, B, 6n).hash)).toBeNull();
  });

  it('lands a block with its receipts and every state change in one write; the rest stays pending', async () => {
    let store = stores.chain;
    const txs = [mint(0, A, HUGE), deploy(1), settle(2), escrow(3, B, 1n), mint(4, C, 1n)];
    await store.addPending(txs, {});
    const one = block(1, null, txs.slice(0, 4), [txs[3]!.hash]);
    const changes: StateChanges = {
      balances: new Map<Address, bigint>([
        [A, HUGE - 7n],
        [B, HUGE - 3n],
        [ESCROW, 0n],
      ]),
      safes: [safe],
      deployments: [deployment('deployed', txs[1]!.hash)],
      meta: new Map([['fault.failSettlementItems.escrow', '0']]),
      landedItems: [
        { id: 'deposit:2', txHash: txs[2]!.hash },
        { id: 'payout:M:C', txHash: txs[2]!.hash },
      ],
    };
    await store.appendBlock(one.block, one.receipts, changes);
    store = await reopen();
    expect(await store.load()).toEqual({
      head: one.block,
      nextSeq: 5,
      pending: [txs[4]],
      balances: changes.balances,
      safes: [safe],
      deployments: changes.deployments,
      meta: changes.meta,
    });
    expect(await store.getBlock(1)).toEqual(one.block);
    for (const receipt of one.receipts)
      expect(await store.getReceipt(receipt.transactionHash)).toEqual(receipt);
    expect(await store.getReceipt(txs[4]!.hash)).toBeNull();
    expect(await store.landedItems(['fill:4-0', 'deposit:2', 'payout:M:C', 'deposit:9'])).toEqual(
      new Set(['deposit:2', 'payout:M:C']),
    );

    // Balances are upserted: the ones a block does not name stay as they were.
    const two = block(2, one.block, [txs[4]!]);
    await store.appendBlock(two.block, two.receipts, { balances: new Map([[C, 1n]]) });
    expect((await store.load()).balances).toEqual(new Map([...changes.balances!, [C, 1n]]));
  });

  it('lands a block whole or not at all', async () => {
    const store = stores.chain;
    const txs = [mint(0, A, 5n), mint(1, B, 6n)];
    await store.addPending(txs, {});
    const one = block(1, null, [txs[0]!]);
    await store.appendBlock(one.block, one.receipts, { balances: new Map([[A, 5n]]) });
    const before = await store.load();
    // Block 1 again (its number is taken), with the other transaction: nothing of it is written.
    const again = block(1, null, [txs[1]!]);
    await expect(
      attempt(() =>
        store.appendBlock(again.block, again.receipts, {
          balances: new Map([[B, 6n]]),
          landedItems: [{ id: 'deposit:7', txHash: txs[1]!.hash }],
        }),
      ),
    ).rejects.toThrow();
    expect(await store.load()).toEqual(before);
    expect(await store.getReceipt(txs[1]!.hash)).toBeNull();
    expect(await store.landedItems(['deposit:7'])).toEqual(new Set());
  });

  it("gives one kind's receipts of the blocks (after, through] in chain order, a block of thousands included", async () => {
    const store = stores.chain;
    const many = Array.from({ length: 3_000 }, (_, i) =>
      i % 3 === 0 ? escrow(i, A, BigInt(i + 1), `many-${i}`) : mint(i, B, BigInt(i + 1)),
    );
    const rest = [escrow(3_000, B, 50n, 'too much'), mint(3_001, C, 5n), escrow(3_002, A, 30n)];
    await store.addPending([...many, ...rest], {});
    const one = block(1, null, many);
    await store.appendBlock(one.block, one.receipts, {});
    const two = block(2, one.block, rest.slice(0, 2), [rest[0]!.hash]);
    await store.appendBlock(two.block, two.receipts, {});
    const three = block(3, two.block, rest.slice(2));
    await store.appendBlock(three.block, three.receipts, {});

    const escrows = await store.receiptsBetween(0, 3, 'escrow');
    expect(escrows.map((r) => [r.blockNumber, r.transactionIndex])).toEqual([
      ...many.flatMap((t, i) => (t.kind === 'escrow' ? [[1, i]] : [])),
      [2, 0],
      [3, 0],
    ]);
    expect(escrows[1]).toEqual(one.receipts[3]);
    expect(escrows.at(-2)).toEqual(two.receipts[0]);
    expect(await store.receiptsBetween(1, 3, 'escrow')).toEqual([two.receipts[0], three.receipts[0]]);
    expect(await store.receiptsBetween(1, 2, 'mint')).toEqual([two.receipts[1]]);
    expect(await store.receiptsBetween(3, 3, 'escrow')).toEqual([]);
    expect((await store.load()).pending).toEqual([]);
  });

  it('keeps meta values, the last write of each key winning', async () => {
    let store = stores.chain;
    await store.putMeta(new Map([['fault.blocksPaused', '1']]));
    await store.putMeta(
      new Map([
        ['fault.blocksPaused', '0'],
        ['fault.dropNextBlockAnnouncement', '1'],
      ]),
    );
    store = await reopen();
    expect((await store.load()).meta).toEqual(
      new Map([
        ['fault.blocksPaused', '0'],
        ['fault.dropNextBlockAnnouncement', '1'],
      ]),
    );
  });
});

const record = (n: number, overrides: Partial<MultisigRecord> = {}): MultisigRecord => ({
  safeTxHash: `0x${n.toString(16).padStart(64, '0')}`,
  safe: SAFE_A,
  nonce: 0,
  requiredThreshold: 2,
  transaction: addOwnerSafeTransaction({ safe: SAFE_A, newOwner: B, threshold: 2, nonce: 0 }),
  status: 'pending',
  submissionTxHash: null,
  executionTxHash: null,
  failure: null,
  createdAt: T0 + n,
  updatedAt: T0 + n,
  ...overrides,
});

describe.each(await chainStoresUnderTest())('the multisig store on $name', (under) => {
  let stores: ChainStoresUnderTest;
  beforeEach(async () => {
    stores = await under.open();
  });
  afterEach(() => stores.close());

  it('keeps records; a new one at a nonce replaces the pending others of its Safe, in one write', async () => {
    let store = stores.multisig;
    expect(await store.get(record(1).safeTxHash)).toBeNull();
    expect(await store.listOpen()).toEqual([]);
    await store.putReplacingAtNonce(record(1));
    await store.putReplacingAtNonce(record(2, { nonce: 1 }));
    await store.putReplacingAtNonce(record(3, { safe: B }));
    await store.putReplacingAtNonce(
      record(4, { status: 'submitted', submissionTxHash: `0x${'ee'.repeat(32)}` }),
    );
    // At nonce 0 of SAFE_A: 4 replaced 1 (pending); 5 replaces nothing (4 is submitted, not pending).
    await store.putReplacingAtNonce(record(5));
    stores = await stores.reopen();
    store = stores.multisig;
    expect(await store.get(record(1).safeTxHash)).toEqual(
      record(1, { status: 'replaced', updatedAt: T0 + 4 }),
    );
    expect(await store.listOpen()).toEqual([
      record(2, { nonce: 1 }),
      record(3, { safe: B }),
      record(4, {
        status: 'submitted',
        submissionTxHash: `0x${'ee'.repeat(32)}`,
      }),
      record(5),
    ]);
    expect((await store.listOpen(SAFE_A)).map((r) => r.safeTxHash)).toEqual(
      [2, 4, 5].map((n) => record(n).safeTxHash),
    );
    // Put again: the record keeps its transaction and creation, takes the rest.
    await store.putReplacingAtNonce(record(5, { updatedAt: T0 + 50 }));
    expect(await store.get(record(5).safeTxHash)).toEqual(record(5, { updatedAt: T0 + 50 }));
  });

  it('updates the fields a patch names, and only those', async () => {
    const store = stores.multisig;
    await store.putReplacingAtNonce(record(1));
    await store.update(record(1).safeTxHash, {
      status: 'executed',
      executionTxHash: `0x${'ab'.repeat(32)}`,
      updatedAt: T0 + 9,
    });
    await store.update(record(1).safeTxHash, {});
    await store.update(record(7).safeTxHash, { status: 'failed' });
    expect(await store.get(record(1).safeTxHash)).toEqual(
      record(1, { status: 'executed', executionTxHash: `0x${'ab'.repeat(32)}`, updatedAt: T0 + 9 }),
    );
    await store.update(record(1).safeTxHash, { status: 'failed', failure: 'GS013', executionTxHash: null });
    expect(await store.get(record(1).safeTxHash)).toMatchObject({
      status: 'failed',
      failure: 'GS013',
      executionTxHash: null,
    });
    expect(await store.get(record(7).safeTxHash)).toBeNull();
  });

  it('keeps one confirmation per owner, in the order they were recorded', async () => {
    let store = stores.multisig;
    await store.putReplacingAtNonce(record(1));
    const confirmation = (owner: Address, at: number) => ({
      safeTxHash: record(1).safeTxHash,
      owner,
      signature: `0x${at.toString(16).padStart(130, '0')}` as Hash,
      createdAt: T0,
    });
    expect(await store.addConfirmation(confirmation(C, 1))).toBe(true);
    expect(await store.addConfirmation(confirmation(A, 2))).toBe(true);
    expect(await store.addConfirmation(confirmation(C, 3))).toBe(false);
    expect(await store.addConfirmation(confirmation(B, 4))).toBe(true);
    stores = await stores.reopen();
    store = stores.multisig;
    expect(await store.confirmations(record(1).safeTxHash)).toEqual([
      confirmation(C, 1),
      confirmation(A, 2),
      confirmation(B, 4),
    ]);
    expect(await store.confirmations(record(2).safeTxHash)).toEqual([]);
  });
});
