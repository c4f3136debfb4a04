import { describe, expect, it } from 'vitest';
import { MemoryChainStore } from './chain-store.js';
import type { Address, ChainBlock, ChainReceipt, Hash } from './chain-types.js';
import type { EmbeddedChain } from './embedded-chain.js';
import type { SettlementItem, SettlementItemKind, SettlementMove } from './settlement-types.js';
import { A, B, C, createTestChain, ESCROW } from './test-support.js';

const escrow = (from: Address, amount: bigint): SettlementMove => ({ kind: 'escrow', from, amount });
const release = (to: Address, amount: bigint): SettlementMove => ({ kind: 'release', to, amount });
const mint = (to: Address, amount: bigint): SettlementMove => ({ kind: 'mint', to, amount });
const item = (id: string, kind: SettlementItemKind, ...moves: SettlementMove[]): SettlementItem => ({
  id,
  kind,
  moves,
});

/** A chain on a memory store with three funded wallets; `batch` submits a window after the last one. */
async function funded(amounts: { a?: bigint; b?: bigint; c?: bigint } = {}) {
  const { chain, timer } = createTestChain(new MemoryChainStore());
  let seq = 0;
  const batch = (items: SettlementItem[], retries: SettlementItem[] = []) => {
    seq += 10;
    return chain.submitSettlement({ firstSeq: seq - 9, lastSeq: seq, retries, items });
  };
  const deposits = [
    ['a', A, amounts.a ?? 100n],
    ['b', B, amounts.b ?? 100n],
    ['c', C, amounts.c ?? 100n],
  ] as const;
  await batch(
    deposits.filter(([, , n]) => n > 0n).map(([k, w, n]) => item(`deposit:${k}`, 'deposit', mint(w, n))),
  );
  timer.tick();
  return { chain, timer, batch };
}

async function settled(chain: EmbeddedChain, txHash: Hash) {
  const receipt = await chain.getReceipt(txHash);
  expect(receipt).toMatchObject({ status: 'success', error: null });
  return receipt!.items!.map((r) => [r.id, r.status, r.error]);
}

async function balances(chain: EmbeddedChain) {
  return [
    await chain.balanceOf(A),
    await chain.balanceOf(B),
    await chain.balanceOf(C),
    await chain.balanceOf(ESCROW),
  ];
}

describe('settlement transactions: items', () => {
  it('applies retries then items in order, each all or nothing, with per-item results in the receipt', async () => {
    const { chain, timer, batch } = await funded();
    expect(await balances(chain)).toEqual([100n, 100n, 100n, 0n]);
    const { txHash } = await batch([
      item('fill:1', 'fill', escrow(A, 60n), escrow(B, 40n)),
      // The second move cannot be paid (B has 60 left): the first does not happen either.
      item('fill:2', 'fill', escrow(C, 30n), escrow(B, 61n)),
      item('fill:3', 'fill', escrow(C, 10n), release(A, 200n)),
      item('payout:1', 'payout', release(A, 100n)),
    ]);
    timer.tick();
    expect(await settled(chain, txHash)).toEqual([
      ['fill:1', 'success', null],
      ['fill:2', 'failed', 'INSUFFICIENT_BALANCE'],
      ['fill:3', 'failed', 'INSUFFICIENT_ESCROW'],
      ['payout:1', 'success', null],
    ]);
    expect(await balances(chain)).toEqual([140n, 60n, 100n, 0n]);
    expect(chain.totalSupply()).toBe(300n);
  });

  it("a hedge paid by its own refund: the item's moves in order, a release before the escrow it pays for", async () => {
    const { chain, timer, batch } = await funded({ a: 110n, b: 100n, c: 0n });
    const first = await batch([item('fill:1', 'fill', escrow(A, 100n), escrow(B, 100n))]);
    // A's refund of 100 then its next stake of 100: A has 10 in its wallet, so only this order can be paid.
    const hedge = await batch([item('fill:2', 'fill', release(A, 100n), escrow(A, 100n))]);
    const reversed = await batch([item('fill:3', 'fill', escrow(A, 100n), release(A, 100n))]);
    timer.tick();
    expect(await settled(chain, first.txHash)).toEqual([['fill:1', 'success', null]]);
    expect(await settled(chain, hedge.txHash)).toEqual([['fill:2', 'success', null]]);
    expect(await settled(chain, reversed.txHash)).toEqual([['fill:3', 'failed', 'INSUFFICIENT_BALANCE']]);
    expect(await balances(chain)).toEqual([10n, 0n, 0n, 200n]);
  });

  it('a failed fill goes on; a failed payout, deposit or adjustment skips every item after it', async () => {
    const { chain, timer, batch } = await funded();
    const fills = await batch([
      item('fill:1', 'fill', escrow(A, 500n)),
      item('fill:2', 'fill', escrow(A, 50n), escrow(B, 50n)),
    ]);
    const stopped = await batch([
      item('deposit:c2', 'deposit', mint(C, 5n)),
      item('payout:1', 'payout', release(A, 101n)),
      item('fill:3', 'fill', escrow(C, 1n)),
      item('deposit:c3', 'deposit', mint(C, 7n)),
    ]);
    const adjustment = await batch([
      item('adjustment:1', 'adjustment', escrow(C, 1_000n)),
      item('payout:2', 'payout', release(B, 10n)),
    ]);
    timer.tick();
    expect(await settled(chain, fills.txHash)).toEqual([
      ['fill:1', 'failed', 'INSUFFICIENT_BALANCE'],
      ['fill:2', 'success', null],
    ]);
    expect(await settled(chain, stopped.txHash)).toEqual([
      ['deposit:c2', 'success', null],
      ['payout:1', 'failed', 'INSUFFICIENT_ESCROW'],
      ['fill:3', 'skipped', null],
      ['deposit:c3', 'skipped', null],
    ]);
    expect(await settled(chain, adjustment.txHash)).toEqual([
      ['adjustment:1', 'failed', 'INSUFFICIENT_BALANCE'],
      ['payout:2', 'skipped', null],
    ]);
    expect(await balances(chain)).toEqual([50n, 50n, 105n, 100n]);

    // The driver submits the failed item again first, then the skipped ones: they land now.
    const retry = await batch(
      [item('fill:4', 'fill', escrow(C, 1n))],
      [
        item('payout:1', 'payout', release(A, 100n)),
        item('fill:3', 'fill', escrow(C, 1n)),
        item('deposit:c3', 'deposit', mint(C, 7n)),
      ],
    );
    timer.tick();
    expect(await settled(chain, retry.txHash)).toEqual([
      ['payout:1', 'success', null],
      ['fill:3', 'success', null],
      ['deposit:c3', 'success', null],
      ['fill:4', 'success', null],
    ]);
    expect(await balances(chain)).toEqual([150n, 50n, 110n, 2n]);
    expect(chain.totalSupply()).toBe(312n);
  });

  it('an id that landed is a duplicate for ever after, in a later block or later in the same one; a failed or skipped id may land later', async () => {
    const { chain, timer, batch } = await funded();
    const first = await batch([
      item('fill:1', 'fill', escrow(A, 10n)),
      item('fill:2', 'fill', escrow(A, 1_000n)),
      item('payout:1', 'payout', release(B, 1_000n)),
      item('payout:2', 'payout', release(B, 1n)),
    ]);
    // In the same block, another transaction with a landed id.
    const sameBlock = await batch([
      item('fill:1', 'fill', escrow(A, 10n)),
      item('fill:9', 'fill', escrow(B, 5n)),
    ]);
    timer.tick();
    expect(await settled(chain, first.txHash)).toEqual([
      ['fill:1', 'success', null],
      ['fill:2', 'failed', 'INSUFFICIENT_BALANCE'],
      ['payout:1', 'failed', 'INSUFFICIENT_ESCROW'],
      ['payout:2', 'skipped', null],
    ]);
    expect(await settled(chain, sameBlock.txHash)).toEqual([
      ['fill:1', 'duplicate', null],
      ['fill:9', 'success', null],
    ]);
    expect(await balances(chain)).toEqual([90n, 95n, 100n, 15n]);

    const later = await batch([
      item('fill:9', 'fill', escrow(B, 5n)),
      item('fill:2', 'fill', escrow(A, 1n)),
      item('payout:1', 'payout', release(B, 2n)),
      item('payout:2', 'payout', release(B, 1n)),
      item('payout:2b', 'payout', release(B, 1n)),
    ]);
    timer.tick();
    expect(await settled(chain, later.txHash)).toEqual([
      ['fill:9', 'duplicate', null],
      ['fill:2', 'success', null],
      ['payout:1', 'success', null],
      ['payout:2', 'success', null],
      ['payout:2b', 'success', null],
    ]);
    expect(await balances(chain)).toEqual([89n, 99n, 100n, 12n]);
  });

  it('a settlement with no items, or an item with no moves, lands as such', async () => {
    const { chain, timer, batch } = await funded();
    const empty = await batch([]);
    const noMoves = await batch([item('fill:0', 'fill')]);
    timer.tick();
    expect(await settled(chain, empty.txHash)).toEqual([]);
    expect(await settled(chain, noMoves.txHash)).toEqual([['fill:0', 'success', null]]);
    const again = await batch([item('fill:0', 'fill')]);
    timer.tick();
    expect(await settled(chain, again.txHash)).toEqual([['fill:0', 'duplicate', null]]);
  });
});

describe('settlement transactions: submission', () => {
  it('records the highest lastSeq submitted with the transaction; pending settlements read oldest first', async () => {
    const { chain, timer } = createTestChain(new MemoryChainStore());
    expect(chain.settlementSubmittedThrough()).toBe(0);
    const first = await chain.submitSettlement({ firstSeq: 1, lastSeq: 7, retries: [], items: [] });
    expect(chain.settlementSubmittedThrough()).toBe(7);
    // Retries alone, in an empty window: the cursor stays.
    const retries = await chain.submitSettlement({
      firstSeq: 8,
      lastSeq: 7,
      retries: [item('deposit:1', 'deposit', mint(A, 1n))],
      items: [],
    });
    expect(chain.settlementSubmittedThrough()).toBe(7);
    const mintTx = await chain.mint(B, 1n);
    const third = await chain.submitSettlement({
      firstSeq: 12,
      lastSeq: 20,
      retries: [],
      items: [item('deposit:2', 'deposit', mint(A.toLowerCase() as Address, 2n))],
    });
    expect(chain.settlementSubmittedThrough()).toBe(20);
    const pending = chain.pendingSettlements();
    expect(pending.map((t) => [t.hash, t.firstSeq, t.lastSeq])).toEqual([
      [first.txHash, 1, 7],
      [retries.txHash, 8, 7],
      [third.txHash, 12, 20],
    ]);
    // Stored checksummed, amounts as bigints.
    expect(pending[2]!.items).toEqual([item('deposit:2', 'deposit', mint(A, 2n))]);
    expect(chain.pendingTransactions().map((t) => t.hash)).toContain(mintTx.txHash);

    timer.tick();
    expect(chain.pendingSettlements()).toEqual([]);
    expect(chain.settlementSubmittedThrough()).toBe(20);
    expect(chain.balances()).toEqual(
      new Map([
        [A, 3n],
        [B, 1n],
      ]),
    );
  });

  it('refuses a window that does not start after the cursor, and a malformed batch, submitting nothing', async () => {
    const { chain } = createTestChain(new MemoryChainStore());
    await chain.submitSettlement({ firstSeq: 1, lastSeq: 10, retries: [], items: [] });
    const refused = async (batch: unknown, code: string, statusCode = 400) => {
      await expect(chain.submitSettlement(batch as never)).rejects.toMatchObject({ code, statusCode });
    };
    await refused({ firstSeq: 10, lastSeq: 12, retries: [], items: [] }, 'SETTLEMENT_OUT_OF_ORDER', 409);
    await refused({ firstSeq: 5, lastSeq: 5, retries: [], items: [] }, 'SETTLEMENT_OUT_OF_ORDER', 409);
    const ok = { firstSeq: 11, lastSeq: 12, retries: [], items: [] };
    await refused(null, 'INVALID_SETTLEMENT');
    await refused({ ...ok, firstSeq: 1.5 }, 'INVALID_SETTLEMENT');
    await refused({ ...ok, lastSeq: -1 }, 'INVALID_SETTLEMENT');
    await refused({ ...ok, firstSeq: 14 }, 'INVALID_SETTLEMENT');
    await refused({ ...ok, items: undefined }, 'INVALID_SETTLEMENT');
    await refused({ ...ok, items: [null] }, 'INVALID_SETTLEMENT');
    await refused({ ...ok, items: [{ id: '', kind: 'fill', moves: [] }] }, 'INVALID_SETTLEMENT');
    await refused({ ...ok, items: [{ id: 'x'.repeat(257), kind: 'fill', moves: [] }] }, 'INVALID_SETTLEMENT');
    await refused({ ...ok, items: [{ id: 7, kind: 'fill', moves: [] }] }, 'INVALID_SETTLEMENT');
    await refused({ ...ok, items: [{ id: 'w:1', kind: 'withdrawal', moves: [] }] }, 'INVALID_SETTLEMENT');
    await refused({ ...ok, items: [{ id: 'f:1', kind: 'fill', moves: 'none' }] }, 'INVALID_SETTLEMENT');
    await refused(
      { ...ok, items: [{ id: 'f:1', kind: 'fill', moves: [], fill: 'x' }] },
      'INVALID_SETTLEMENT',
    );
    // Ids are unique across retries and items.
    await refused(
      { ...ok, retries: [item('f:1', 'fill')], items: [item('f:2', 'fill'), item('f:1', 'fill')] },
      'INVALID_SETTLEMENT',
    );
    await refused({ ...ok, items: [item('f:1', 'fill', escrow(A, 0n))] }, 'INVALID_AMOUNT');
    await refused({ ...ok, items: [item('f:1', 'fill', release(A, -1n))] }, 'INVALID_AMOUNT');
    await refused(
      { ...ok, items: [{ id: 'f:1', kind: 'fill', moves: [{ kind: 'escrow', from: A, amount: 5 }] }] },
      'INVALID_AMOUNT',
    );
    await refused({ ...ok, items: [item('f:1', 'fill', escrow('0x12' as Address, 1n))] }, 'INVALID_ADDRESS');
    await refused({ ...ok, items: [item('f:1', 'fill', release(ESCROW, 1n))] }, 'INVALID_SETTLEMENT');
    await refused(
      { ...ok, items: [{ id: 'f:1', kind: 'fill', moves: [{ kind: 'burn', from: A, amount: 1n }] }] },
      'INVALID_SETTLEMENT',
    );
    // Only a deposit mints.
    await refused({ ...ok, items: [item('f:1', 'fill', mint(A, 1n))] }, 'INVALID_SETTLEMENT');
    await refused({ ...ok, items: [item('p:1', 'payout', mint(A, 1n))] }, 'INVALID_SETTLEMENT');
    expect(chain.pendingSettlements()).toHaveLength(1);
    expect(chain.settlementSubmittedThrough()).toBe(10);
    // The calldata of a fill is kept as given.
    const fill = {
      matchId: 'm1',
      seq: 11,
      marketHash: '0xabc',
      makerAccount: A,
      takerAccount: B,
      makerIsBettingOutcomeOne: true,
      makerStake: '5',
      takerStake: '6',
      refunds: [{ account: A, marketHash: '0xabc', amount: '1' }],
    };
    await chain.submitSettlement({ ...ok, items: [{ ...item('f:1', 'fill', escrow(A, 4n)), fill }] });
    expect(chain.pendingSettlements()[1]!.items[0]!.fill).toEqual(fill);
  });
});

describe('settlement faults', () => {
  it('escrow faults fail the next fill items (fills go on), release faults the next adjustment (it skips the rest)', async () => {
    const { chain, timer, batch } = await funded();
    await chain.failNextSettlementItems('escrow', 2);
    await chain.failNextSettlementItems('release', 1);
    expect(chain.faults()).toEqual({
      failNextDeployment: false,
      failSettlementItems: { escrow: 2, release: 1, payout: 0, deposit: 0 },
      blocksPaused: false,
      dropNextBlockAnnouncement: false,
    });
    const fills = await batch([
      item('fill:1', 'fill', escrow(A, 10n)),
      item('payout:0', 'payout', release(A, 1n)),
      item('fill:2', 'fill', escrow(A, 10n)),
      item('fill:3', 'fill', escrow(A, 10n)),
    ]);
    const adjustments = await batch([
      item('adjustment:1', 'adjustment', escrow(B, 1n)),
      item('fill:4', 'fill', escrow(B, 1n)),
    ]);
    timer.tick();
    expect(await settled(chain, fills.txHash)).toEqual([
      ['fill:1', 'failed', 'INJECTED_FAULT'],
      ['payout:0', 'failed', 'INSUFFICIENT_ESCROW'],
      ['fill:2', 'skipped', null],
      ['fill:3', 'skipped', null],
    ]);
    // Skipped items use no fault: the second escrow fault hits the next fill that is applied.
    expect(await settled(chain, adjustments.txHash)).toEqual([
      ['adjustment:1', 'failed', 'INJECTED_FAULT'],
      ['fill:4', 'skipped', null],
    ]);
    expect(chain.faults().failSettlementItems).toEqual({ escrow: 1, release: 0, payout: 0, deposit: 0 });
    const next = await batch([
      item('fill:1', 'fill', escrow(A, 10n)),
      item('fill:2', 'fill', escrow(A, 10n)),
      item('adjustment:1', 'adjustment', escrow(B, 1n)),
    ]);
    timer.tick();
    expect(await settled(chain, next.txHash)).toEqual([
      ['fill:1', 'failed', 'INJECTED_FAULT'],
      ['fill:2', 'success', null],
      ['adjustment:1', 'success', null],
    ]);
    expect(await balances(chain)).toEqual([90n, 99n, 100n, 11n]);
  });

  it('payout and deposit faults fail the next items of their class; duplicates use none; 0 disarms', async () => {
    const { chain, timer, batch } = await funded();
    await batch([item('fill:1', 'fill', escrow(A, 50n))]);
    timer.tick();
    await chain.failNextSettlementItems('payout', 1);
    await chain.failNextSettlementItems('deposit', 3);
    const first = await batch([
      item('fill:1', 'fill', escrow(A, 50n)),
      item('deposit:a', 'deposit', mint(A, 1n)),
      item('payout:1', 'payout', release(B, 50n)),
    ]);
    timer.tick();
    expect(await settled(chain, first.txHash)).toEqual([
      ['fill:1', 'duplicate', null],
      ['deposit:a', 'duplicate', null],
      ['payout:1', 'failed', 'INJECTED_FAULT'],
    ]);
    const second = await batch([
      item('payout:1', 'payout', release(B, 50n)),
      item('deposit:x', 'deposit', mint(C, 1n)),
    ]);
    timer.tick();
    expect(await settled(chain, second.txHash)).toEqual([
      ['payout:1', 'success', null],
      ['deposit:x', 'failed', 'INJECTED_FAULT'],
    ]);
    await chain.failNextSettlementItems('deposit', 0);
    const third = await batch([item('deposit:x', 'deposit', mint(C, 1n))]);
    timer.tick();
    expect(await settled(chain, third.txHash)).toEqual([['deposit:x', 'success', null]]);
    expect(await balances(chain)).toEqual([50n, 150n, 101n, 0n]);
    await expect(chain.failNextSettlementItems('withdrawal' as never, 1)).rejects.toMatchObject({
      code: 'INVALID_FAULT',
      statusCode: 400,
    });
    await expect(chain.failNextSettlementItems('escrow', -1)).rejects.toMatchObject({
      code: 'INVALID_FAULT',
    });
    await expect(chain.failNextSettlementItems('escrow', 1.5)).rejects.toMatchObject({
      code: 'INVALID_FAULT',
    });
    expect(chain.faults().failSettlementItems).toEqual({ escrow: 0, release: 0, payout: 0, deposit: 0 });
  });

  it('paused blocks: nothing is mined, by the timer or by mineBlock, until resumed', async () => {
    const { chain, timer } = createTestChain(new MemoryChainStore());
    await chain.pauseBlocks();
    expect(chain.faults().blocksPaused).toBe(true);
    const { txHash } = await chain.submitSettlement({
      firstSeq: 1,
      lastSeq: 1,
      retries: [],
      items: [item('deposit:1', 'deposit', mint(A, 5n))],
    });
    timer.tick(3);
    expect(chain.mineBlock()).toBeUndefined();
    expect(await chain.blockNumber()).toBe(0);
    expect(chain.pendingSettlements().map((t) => t.hash)).toEqual([txHash]);
    await chain.resumeBlocks();
    expect(chain.faults().blocksPaused).toBe(false);
    timer.tick();
    expect(await settled(chain, txHash)).toEqual([['deposit:1', 'success', null]]);
    expect(await chain.balanceOf(A)).toBe(5n);
  });

  it('a dropped announcement: the block is stored and waiters get their receipts, listeners see the next block skip it and read it back', async () => {
    const { chain, timer, batch } = await funded();
    const blocks: ChainBlock[] = [];
    const heard: ChainReceipt[] = [];
    chain.onBlock((block) => blocks.push(block));
    chain.onReceipt((receipt) => heard.push(receipt));
    await chain.dropNextBlockAnnouncement();
    expect(chain.faults().dropNextBlockAnnouncement).toBe(true);
    const dropped = await batch([item('fill:1', 'fill', escrow(A, 10n))]);
    const waited = chain.waitForReceipt(dropped.txHash);
    timer.tick();
    expect((await waited).items).toEqual([{ id: 'fill:1', kind: 'fill', status: 'success', error: null }]);
    expect(blocks).toEqual([]);
    expect(heard).toEqual([]);
    expect(chain.faults().dropNextBlockAnnouncement).toBe(false);
    expect(await chain.balanceOf(ESCROW)).toBe(10n);

    const next = await batch([item('fill:2', 'fill', escrow(B, 5n))]);
    timer.tick();
    expect(blocks.map((b) => b.number)).toEqual([3]);
    expect(heard.map((r) => r.transactionHash)).toEqual([next.txHash]);
    // The gap (block 2) is read back from the chain's history.
    const missed = await chain.receiptsBetween(1, blocks[0]!.number - 1, 'settle');
    expect(missed).toEqual([await chain.getReceipt(dropped.txHash)]);
    expect(missed[0]!.items).toEqual([{ id: 'fill:1', kind: 'fill', status: 'success', error: null }]);
  });
});
