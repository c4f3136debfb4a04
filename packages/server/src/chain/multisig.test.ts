import {
  addOwnerSafeTransaction,
  packSafeSignatures,
  type SafeTransactionData,
  safeDomain,
  safeTxHash,
  safeTxTypedData,
} from '@oddsbook/protocol';
import { hashTypedData } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { MemoryChainStore } from './chain-store.js';
import type { Hash } from './chain-types.js';
import { MultisigCoordinator, type PreparedSafeTx } from './multisig.js';
import { MemoryMultisigStore } from './multisig-store.js';
import { A, B, C, createTestChain, KEYS, SAFE_A } from './test-support.js';

const signerA = privateKeyToAccount(KEYS.A);
const signerB = privateKeyToAccount(KEYS.B);
const signerC = privateKeyToAccount(KEYS.C);
type TypedData = Parameters<typeof hashTypedData>[0];

const sign = (account: typeof signerA, prepared: PreparedSafeTx) =>
  account.signTypedData(prepared.typedData as unknown as Parameters<typeof signerA.signTypedData>[0]);

async function setup() {
  const { chain, timer } = createTestChain(new MemoryChainStore());
  const store = new MemoryMultisigStore();
  const multisig = new MultisigCoordinator({ chain, store });
  await multisig.start();
  await chain.deployProxy(A);
  timer.tick();
  return { chain, timer, store, multisig };
}

const confirmBody = (prepared: PreparedSafeTx, signature: string, signerAddress?: string) => ({
  safeAddress: SAFE_A,
  safeTxHash: prepared.safeTxHash,
  safeTransactionData: prepared.safeTransactionData,
  signature,
  signerAddress,
});

describe('multisig add-signer', () => {
  it('prepare returns the vector transaction, hash and eth_signTypedData_v4 typed data', async () => {
    const { multisig } = await setup();
    const prepared = await multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B });
    // safe-vectors.json tx0: add B with threshold 1 at nonce 0 on chain 4162.
    expect(prepared.safeTxHash).toBe('0xb6c4de8d44f56503f25e87902adcb48fa7c096bca4677f7d2f07abc7afe4202e');
    expect(prepared.safeTransactionData).toEqual(
      addOwnerSafeTransaction({ safe: SAFE_A, newOwner: B, threshold: 1, nonce: 0 }),
    );
    expect(prepared.typedData.types.EIP712Domain).toEqual([
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
    ]);
    expect(prepared.typedData.primaryType).toBe('SafeTx');
    expect(hashTypedData(JSON.parse(JSON.stringify(prepared.typedData)) as TypedData)).toBe(
      prepared.safeTxHash,
    );
    expect(await sign(signerA, prepared)).toBe(
      '0x6d02e3e2e4cdd2fce4a036e48ea76df1d3beaa53648686a5149af47f39d497802059807b6d87f6611751027bf4d416382d6d411641a1e948210db2ccb49f393f1c',
    );
  });

  it('threshold 1: one confirmation submits; it executes in a later block and changes owners, threshold, nonce', async () => {
    const { chain, timer, multisig } = await setup();
    const prepared = await multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B });
    const progress = await multisig.confirm(confirmBody(prepared, await sign(signerA, prepared), A));
    expect(progress).toEqual({
      safeTxHash: prepared.safeTxHash,
      confirmedBy: [A],
      signedCount: 1,
      requiredThreshold: 1,
      isReadyToExecute: true,
      isExecuted: false,
      executionTxHash: null,
    });
    // Submitted, not yet mined.
    expect(chain.pendingTransactions()).toHaveLength(1);
    expect((await chain.getSafe(SAFE_A))?.owners).toEqual([A]);
    const blockBefore = await chain.blockNumber();
    timer.tick();
    const after = await multisig.progress(prepared.safeTxHash);
    expect(after?.isExecuted).toBe(true);
    expect(after?.executionTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await chain.getReceipt(after!.executionTxHash!);
    expect(receipt).toMatchObject({ status: 'success', blockNumber: blockBefore + 1 });
    expect(await chain.getSafe(SAFE_A)).toMatchObject({ owners: [B, A], threshold: 1, nonce: 1 });
    // Replaying the same body is idempotent and reports the executed state.
    expect(await multisig.confirm(confirmBody(prepared, await sign(signerA, prepared), A))).toEqual(after);
  });

  it('two owners, threshold 2: the second owner’s confirmation is needed', async () => {
    const { chain, timer, multisig } = await setup();
    // Nonce 0: add B and raise the threshold to 2.
    const p0 = await multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B, threshold: 2 });
    await multisig.confirm(confirmBody(p0, await sign(signerA, p0)));
    timer.tick();
    expect(await chain.getSafe(SAFE_A)).toMatchObject({ owners: [B, A], threshold: 2, nonce: 1 });

    // Nonce 1: add C; threshold stays 2 by default.
    const p1 = await multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: C });
    expect(p1.safeTransactionData.nonce).toBe(1);
    const first = await multisig.confirm(confirmBody(p1, await sign(signerA, p1), A));
    expect(first).toMatchObject({
      confirmedBy: [A],
      signedCount: 1,
      requiredThreshold: 2,
      isReadyToExecute: false,
    });
    expect(chain.pendingTransactions()).toHaveLength(0);
    timer.tick();
    expect((await chain.getSafe(SAFE_A))?.nonce).toBe(1);

    // C is not an owner yet.
    await expect(multisig.confirm(confirmBody(p1, await sign(signerC, p1)))).rejects.toMatchObject({
      code: 'SIGNER_NOT_OWNER',
      statusCode: 403,
    });
    // A again: idempotent.
    expect(await multisig.confirm(confirmBody(p1, await sign(signerA, p1)))).toEqual(first);

    const second = await multisig.confirm(confirmBody(p1, await sign(signerB, p1), B));
    expect(second).toMatchObject({
      confirmedBy: [A, B],
      signedCount: 2,
      isReadyToExecute: true,
      isExecuted: false,
    });
    timer.tick();
    const done = await multisig.progress(p1.safeTxHash);
    expect(done).toMatchObject({ isExecuted: true, requiredThreshold: 2 });
    expect(await chain.getSafe(SAFE_A)).toMatchObject({ owners: [C, B, A], threshold: 2, nonce: 2 });
  });

  it('a later prepare at the same nonce replaces the pending one', async () => {
    const { multisig } = await setup();
    const first = await multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B });
    const again = await multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B });
    expect(again.safeTxHash).toBe(first.safeTxHash);
    const other = await multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: C });
    expect(other.safeTxHash).not.toBe(first.safeTxHash);
    await expect(multisig.confirm(confirmBody(first, await sign(signerA, first)))).rejects.toMatchObject({
      code: 'SAFE_TX_REPLACED',
      statusCode: 409,
    });
    const progress = await multisig.confirm(confirmBody(other, await sign(signerA, other)));
    expect(progress.isReadyToExecute).toBe(true);
  });

  it('prepare errors', async () => {
    const { chain, multisig } = await setup();
    const notDeployed = chain.proxyAddressFor(B);
    await expect(multisig.prepare({ safeAddress: notDeployed, newSignerAddress: C })).rejects.toMatchObject({
      code: 'SAFE_NOT_DEPLOYED',
      statusCode: 409,
    });
    await expect(multisig.prepare({ safeAddress: 'nope', newSignerAddress: C })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await expect(multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: A })).rejects.toMatchObject({
      code: 'SIGNER_ALREADY_OWNER',
    });
    for (const bad of [
      SAFE_A,
      '0x0000000000000000000000000000000000000000',
      '0x0000000000000000000000000000000000000001',
    ]) {
      await expect(multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: bad })).rejects.toMatchObject({
        code: 'INVALID_NEW_SIGNER',
      });
    }
    for (const threshold of [0, 3, 1.5]) {
      await expect(
        multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B, threshold }),
      ).rejects.toMatchObject({
        code: 'INVALID_THRESHOLD',
      });
    }
    // Submitted but not landed: the nonce is in flight.
    const p = await multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B });
    await multisig.confirm(confirmBody(p, await sign(signerA, p)));
    await expect(multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: C })).rejects.toMatchObject({
      code: 'NONCE_IN_FLIGHT',
      statusCode: 409,
    });
  });

  it('confirm errors', async () => {
    const { multisig } = await setup();
    const p = await multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B });
    const sigA = await sign(signerA, p);
    const expectCode = async (body: Parameters<typeof multisig.confirm>[0], code: string) =>
      expect(multisig.confirm(body)).rejects.toMatchObject({ code });

    // Not an add-signer: a different call, a different target, a delegatecall, gas fields.
    const changeThreshold: SafeTransactionData = {
      ...p.safeTransactionData,
      data: '0x694e80c30000000000000000000000000000000000000000000000000000000000000001',
    };
    await expectCode({ ...confirmBody(p, sigA), safeTransactionData: changeThreshold }, 'NOT_ADD_SIGNER');
    await expectCode(
      { ...confirmBody(p, sigA), safeTransactionData: { ...p.safeTransactionData, operation: 1 } },
      'NOT_ADD_SIGNER',
    );
    await expectCode(
      { ...confirmBody(p, sigA), safeTransactionData: { ...p.safeTransactionData, safeTxGas: '1' } },
      'NOT_ADD_SIGNER',
    );
    await expectCode(
      { ...confirmBody(p, sigA), safeTransactionData: { ...p.safeTransactionData, to: B } },
      'NOT_ADD_SIGNER',
    );
    // Data edited after prepare (threshold 1 -> different owner) no longer matches the hash.
    const edited = addOwnerSafeTransaction({ safe: SAFE_A, newOwner: C, threshold: 1, nonce: 0 });
    await expectCode({ ...confirmBody(p, sigA), safeTransactionData: edited }, 'SAFE_TX_HASH_MISMATCH');
    // Well-formed and self-consistent but never prepared.
    const unprepared = addOwnerSafeTransaction({ safe: SAFE_A, newOwner: C, threshold: 1, nonce: 5 });
    await expectCode(
      {
        ...confirmBody(p, sigA),
        safeTransactionData: unprepared,
        safeTxHash: safeTxHash(safeDomain(4162, SAFE_A), unprepared),
      },
      'SAFE_TX_NOT_FOUND',
    );
    await expectCode({ ...confirmBody(p, sigA), safeTxHash: '0x1234' }, 'INVALID_REQUEST');
    await expectCode(confirmBody(p, '0x1234'), 'INVALID_SIGNATURE');
    await expectCode(confirmBody(p, `${sigA.slice(0, 130)}1f`), 'INVALID_SIGNATURE');
    await expectCode(confirmBody(p, sigA, B), 'SIGNER_MISMATCH');
    // Signed by a stranger.
    await expectCode(confirmBody(p, await sign(signerC, p)), 'SIGNER_NOT_OWNER');
    // A signature over a different typed data recovers someone else: not an owner.
    const other = safeTxTypedData(safeDomain(1, SAFE_A), p.safeTransactionData);
    const wrongChain = await signerA.signTypedData(
      other as unknown as Parameters<typeof signerA.signTypedData>[0],
    );
    await expectCode(confirmBody(p, wrongChain), 'SIGNER_NOT_OWNER');

    // v as 0/1 is accepted (normalised to 27/28).
    const v01 = `${sigA.slice(0, 130)}0${Number.parseInt(sigA.slice(130), 16) - 27}`;
    expect((await multisig.confirm(confirmBody(p, v01, A))).confirmedBy).toEqual([A]);
  });

  it('a Safe transaction that reverts on chain is reported, and the nonce stays usable', async () => {
    const { chain, timer, store, multisig } = await setup();
    const p = await multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B });
    const sigA = await sign(signerA, p);
    // Someone else adds B first through the chain directly (same nonce, same tx): the first lands...
    await chain.execSafeTransaction({
      safe: SAFE_A,
      transaction: p.safeTransactionData,
      signatures: sigA as Hash,
    });
    timer.tick();
    expect((await chain.getSafe(SAFE_A))?.nonce).toBe(1);
    // ...so the recorded transaction counts as executed (same safeTxHash) and a late confirm is idempotent-safe.
    expect((await multisig.progress(p.safeTxHash))?.isExecuted).toBe(true);
    expect(store.get(p.safeTxHash as Hash)?.status).toBe('executed');

    // A duplicate-owner add at nonce 1 reverts with GS013 and keeps the nonce.
    const dup = addOwnerSafeTransaction({ safe: SAFE_A, newOwner: B, threshold: 1, nonce: 1 });
    const dupHash = safeTxHash(safeDomain(4162, SAFE_A), dup);
    const sig = await signerA.sign({ hash: dupHash });
    const { txHash } = await chain.execSafeTransaction({ safe: SAFE_A, transaction: dup, signatures: sig });
    timer.tick();
    expect(await chain.getReceipt(txHash)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^GS013/),
    });
    expect((await chain.getSafe(SAFE_A))?.nonce).toBe(1);
  });
});

describe('multisig add-signer: recovery', () => {
  it('a submission that could not be made is retried when an owner posts again', async () => {
    const { chain, timer, store } = await setup();
    let failOnce = true;
    const flaky = new Proxy(chain, {
      get(target, prop, receiver) {
        if (prop === 'execSafeTransaction' && failOnce) {
          return async () => {
            failOnce = false;
            throw new Error('disk full');
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const multisig = new MultisigCoordinator({ chain: flaky, store });
    await multisig.start();
    const p = await multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B });
    const body = confirmBody(p, await sign(signerA, p), A);
    await expect(multisig.confirm(body)).rejects.toThrow('disk full');
    expect(await multisig.progress(p.safeTxHash)).toMatchObject({
      signedCount: 1,
      isReadyToExecute: true,
      isExecuted: false,
    });
    expect(chain.pendingTransactions()).toHaveLength(0);
    await multisig.confirm(body);
    expect(chain.pendingTransactions()).toHaveLength(1);
    timer.tick();
    expect(await multisig.progress(p.safeTxHash)).toMatchObject({ isExecuted: true });
  });
});

describe('Safe execution on the embedded chain', () => {
  it('checks signatures like checkNSignatures: ascending owners, threshold count', async () => {
    const { chain, timer, multisig } = await setup();
    const p0 = await multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B, threshold: 2 });
    await multisig.confirm(confirmBody(p0, await sign(signerA, p0)));
    timer.tick();
    const tx1 = addOwnerSafeTransaction({ safe: SAFE_A, newOwner: C, threshold: 2, nonce: 1 });
    const hash = safeTxHash(safeDomain(4162, SAFE_A), tx1);
    expect(hash).toBe('0x65878976b6bebac4b07167d15046317357d284a3a9fbe3da052c11cf252d0e1f');
    const sigA = await signerA.sign({ hash });
    const sigB = await signerB.sign({ hash });
    const run = async (signatures: string) => {
      const { txHash } = await chain.execSafeTransaction({
        safe: SAFE_A,
        transaction: tx1,
        signatures: signatures as Hash,
      });
      timer.tick();
      return chain.getReceipt(txHash);
    };
    expect(await run(sigA)).toMatchObject({ status: 'failed', error: 'GS020' });
    expect(await run(`${sigA}${sigB.slice(2)}`)).toMatchObject({ status: 'failed', error: 'GS026' });
    expect((await chain.getSafe(SAFE_A))?.nonce).toBe(1);
    const packed = packSafeSignatures([
      { owner: A, signature: sigA },
      { owner: B, signature: sigB },
    ]);
    expect(packed).toBe(
      '0x52d9344fd0b6092a8767cb7e7240ff1aeef86ca4e6a16703098071417dc65b6214ad448319ea7f34142a6d23c58bfca9c4ca6a14719cd41ef9e3adcf26da6cd91b309ae0a256598f5d4509a1be316c12917bb8116265f7aa1fd2363b945115566218246811a1e60a34002010b275f783cf2b0125aca14a897e0fdd0d670ae40cc71c',
    );
    expect(await run(packed)).toMatchObject({ status: 'success' });
    expect(await chain.getSafe(SAFE_A)).toMatchObject({ owners: [C, B, A], threshold: 2, nonce: 2 });
    // Replay fails: the nonce moved on.
    expect(await run(packed)).toMatchObject({ status: 'failed', error: 'GS026' });
  });

  it('accepts an eth_sign (v + 4) signature and refuses approved-hash (v = 1)', async () => {
    const { chain, timer } = await setup();
    const tx0 = addOwnerSafeTransaction({ safe: SAFE_A, newOwner: B, threshold: 1, nonce: 0 });
    const hash = safeTxHash(safeDomain(4162, SAFE_A), tx0);
    const approved = `0x000000000000000000000000${A.slice(2)}${'0'.repeat(64)}01`;
    const r1 = await chain.execSafeTransaction({
      safe: SAFE_A,
      transaction: tx0,
      signatures: approved as Hash,
    });
    timer.tick();
    expect(await chain.getReceipt(r1.txHash)).toMatchObject({ status: 'failed', error: 'GS025' });
    const ethSign = await signerA.signMessage({ message: { raw: hash } });
    const v = Number.parseInt(ethSign.slice(130), 16) + 4;
    const r2 = await chain.execSafeTransaction({
      safe: SAFE_A,
      transaction: tx0,
      signatures: `${ethSign.slice(0, 130)}${v.toString(16)}` as Hash,
    });
    timer.tick();
    expect(await chain.getReceipt(r2.txHash)).toMatchObject({ status: 'success' });
  });

  it('takes a high-s signature, as the Safe does, as the same owner as its low-s twin', async () => {
    const { chain, timer, multisig } = await setup();
    const p0 = await multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: B, threshold: 2 });
    await multisig.confirm(confirmBody(p0, await sign(signerA, p0)));
    timer.tick();
    const p1 = await multisig.prepare({ safeAddress: SAFE_A, newSignerAddress: C });
    const lowS = await sign(signerA, p1);
    const first = await multisig.confirm(confirmBody(p1, highSTwin(lowS), A));
    expect(first).toMatchObject({ confirmedBy: [A], signedCount: 1, isReadyToExecute: false });
    // The low-s twin is the same owner again: nothing changes.
    expect(await multisig.confirm(confirmBody(p1, lowS, A))).toEqual(first);
    // B's high-s signature completes it; the Safe executes with both high-s signatures.
    const second = await multisig.confirm(confirmBody(p1, highSTwin(await sign(signerB, p1)), B));
    expect(second).toMatchObject({ confirmedBy: [A, B], isReadyToExecute: true });
    timer.tick();
    expect(await multisig.progress(p1.safeTxHash)).toMatchObject({ isExecuted: true });
    expect(await chain.getSafe(SAFE_A)).toMatchObject({ owners: [C, B, A], nonce: 2 });
  });
});

/** The other signature of the same key and hash: s' = n - s, v flipped (what ecrecover also accepts). */
function highSTwin(signature: string): string {
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = signature.endsWith('1c') ? '1b' : '1c';
  return `${signature.slice(0, 66)}${(n - s).toString(16).padStart(64, '0')}${v}`;
}
