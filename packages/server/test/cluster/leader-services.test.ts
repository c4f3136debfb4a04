import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { packSafeSignatures } from '@oddsbook/protocol';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { supportsFaults } from '../../src/chain/chain.js';
import type { Address, Hash } from '../../src/chain/chain-types.js';
import { MultisigError, type PreparedSafeTx } from '../../src/chain/multisig.js';
import { LEADER_OPERATIONS, type LeaderReply } from '../../src/cluster/leader-rpc.js';
import { LeaderServices } from '../../src/cluster/leader-services.js';
import { LeaderClient, RemoteChainUnsupported, remoteLeader } from '../../src/cluster/remote-leader.js';
import { connectNats, uniqueNames } from '../../src/cluster/test-support.js';
import { decodeWire, encodeWire } from '../../src/cluster/wire-codec.js';
import { AppError } from '../../src/errors/app-error.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, until } from '../helpers/trading.js';

/**
 * The leader's services over the real NATS: a leader (a real exchange on its own data dir) serves them, and
 * an API node's remote clients (another connection) use them as the routes do.
 */
let t: TestExchange;
let leaderNc: NatsConnection;
let apiNc: NatsConnection;
let services: LeaderServices;
let remote: ReturnType<typeof remoteLeader>;
const { leader: subject } = uniqueNames();

beforeAll(async () => {
  leaderNc = await connectNats();
  apiNc = await connectNats();
  t = await startTestExchange();
  const { exchange } = t;
  services = new LeaderServices({
    nc: leaderNc,
    subject,
    chain: exchange.chain,
    multisig: exchange.multisig,
    resolveMarket: (marketHash, outcome) => exchange.trading.resolveMarket(marketHash, outcome),
    reconciliation: exchange.reconciliation,
    settlement: exchange.settlement,
  });
  await services.start();
  remote = remoteLeader({
    nc: apiNc,
    subject,
    chain: {
      chainId: t.config.chainId,
      baseToken: t.config.baseToken,
      escrowAddress: t.config.verifyingContract,
    },
  });
});

afterAll(async () => {
  await services?.stop();
  await t?.close();
  if (t) removeDataDir(t.dataDir);
  await leaderNc?.close();
  await apiNc?.close();
});

const owner = () => privateKeyToAccount(generatePrivateKey());
type Signer = ReturnType<typeof owner>;
/** An owner's EIP-712 signature of a prepared Safe transaction (its typed data as the API answers it). */
const sign = (signer: Signer, prepared: PreparedSafeTx) =>
  signer.signTypedData(prepared.typedData as unknown as Parameters<Signer['signTypedData']>[0]);

/** What a promise rejected with (fails the test when it resolved). */
async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected a rejection');
}

const shape = (error: AppError) => ({
  class: error.constructor,
  statusCode: error.statusCode,
  code: error.code,
  message: error.message,
  body: error.body,
});

/** A raw request on the leader's subject, as a node of another version might send it. */
async function raw(data: string): Promise<LeaderReply> {
  return decodeWire<LeaderReply>((await apiNc.request(subject, data, { timeout: 5_000 })).data);
}

describe('the leader’s services over NATS', () => {
  it('deploys a proxy, mints, and reads it back: proxy, Safe, balance, block, transaction', async () => {
    const { chain } = remote;
    const eoa = owner().address;
    const proxy = chain.proxyAddressFor(eoa);
    expect(proxy).toBe(t.exchange.chain.proxyAddressFor(eoa));
    expect(chain.chainId).toBe(t.exchange.chain.chainId);

    expect(await chain.getProxy(eoa)).toMatchObject({ address: proxy, state: 'none', deployed: false });
    const deploy = await chain.deployProxy(eoa);
    expect(deploy).toMatchObject({ safe: proxy, submitted: true });
    const deployed = await chain.waitForReceipt(deploy.txHash!, { timeoutMs: 10_000 });
    expect(deployed.status).toBe('success');
    expect(await chain.getProxy(eoa)).toMatchObject({ address: proxy, state: 'deployed', deployed: true });
    expect(await chain.getSafe(proxy)).toEqual(await t.exchange.chain.getSafe(proxy));
    expect((await chain.getSafe(proxy))!.owners).toEqual([eoa]);

    const { txHash } = await chain.mint(proxy, 5_000_000n);
    const minted = await chain.waitForReceipt(txHash, { timeoutMs: 10_000 });
    expect(minted.tx).toMatchObject({ kind: 'mint', to: proxy, amount: 5_000_000n, memo: null });
    expect(await chain.balanceOf(proxy)).toBe(5_000_000n);
    expect(await chain.getTransaction(txHash)).toEqual(await t.exchange.chain.getTransaction(txHash));
    expect(await chain.getReceipt(txHash)).toEqual(minted);
    expect(await chain.getBlock(minted.blockNumber)).toMatchObject({ transactions: [txHash] });
    expect(await chain.blockNumber()).toBeGreaterThanOrEqual(minted.blockNumber);
  });

  it('executes a Safe transaction prepared by the remote coordinator, and confirms another through it', async () => {
    const { chain, multisig } = remote;
    const a = owner();
    const [b, c] = [owner(), owner()];
    const safe = chain.proxyAddressFor(a.address);
    await chain.waitForReceipt((await chain.deployProxy(a.address)).txHash!, { timeoutMs: 10_000 });

    // Signed here, submitted to the leader's chain directly.
    const addB = await multisig.prepare({ safeAddress: safe, newSignerAddress: b.address });
    const signature = await sign(a, addB);
    const { txHash } = await chain.execSafeTransaction({
      safe,
      transaction: addB.safeTransactionData,
      signatures: packSafeSignatures([{ owner: a.address, signature }]),
    });
    expect((await chain.waitForReceipt(txHash, { timeoutMs: 10_000 })).status).toBe('success');
    expect(await chain.getSafe(safe)).toMatchObject({ owners: [b.address, a.address], nonce: 1 });
    // The leader's coordinator saw the receipt of the transaction it prepared.
    expect(
      await until(
        () => multisig.progress(addB.safeTxHash),
        (p) => p?.isExecuted === true,
      ),
    ).toMatchObject({ isExecuted: true, executionTxHash: txHash });

    // Confirmed through the coordinator, which submits at the threshold.
    const addC = await multisig.prepare({ safeAddress: safe, newSignerAddress: c.address });
    const confirmed = await multisig.confirm({
      safeAddress: safe,
      safeTxHash: addC.safeTxHash,
      safeTransactionData: addC.safeTransactionData,
      signature: await sign(b, addC),
      signerAddress: b.address,
    });
    expect(confirmed).toMatchObject({ confirmedBy: [b.address], signedCount: 1, isReadyToExecute: true });
    await until(
      () => multisig.progress(addC.safeTxHash),
      (p) => p?.isExecuted === true,
      10_000,
    );
    expect((await chain.getSafe(safe))!.owners).toEqual([c.address, b.address, a.address]);
  });

  it('resolves a market: the call returns once it is resolved, the outcome in the catalog', async () => {
    const { marketHash } = await createMarket(t);
    await remote.operations.resolveMarket(marketHash, 1);
    expect((await t.exchange.catalog.getMarket(marketHash))!.outcome).toBe(1);
  });

  it('runs a reconciliation and reads the last one and the settlement backlog', async () => {
    const { reconciliation, settlementBacklog } = remote.operations;
    const report = await reconciliation.run();
    expect(report).not.toBeNull();
    expect(typeof report!.totals.engine).toBe('bigint');
    expect(reconciliation.last).toEqual(t.exchange.reconciliation.last);
    expect(await reconciliation.refresh()).toEqual(t.exchange.reconciliation.last);
    expect(await settlementBacklog()).toEqual(await t.exchange.settlement.backlog());
    expect(await remote.operations.settlement.backlog()).toMatchObject({ queuedItems: expect.any(Number) });
  });

  it('arms and reads the leader chain’s faults', async () => {
    const { chain } = remote;
    const leaderChain = t.exchange.chain;
    if (!supportsFaults(leaderChain)) throw new Error('the embedded chain injects faults');
    expect(await chain.faults()).toEqual(leaderChain.faults());
    await chain.failNextSettlementItems('payout', 2);
    expect((await chain.faults()).failSettlementItems.payout).toBe(2);
    await chain.failNextSettlementItems('payout', 0);
    expect((await chain.faults()).failSettlementItems.payout).toBe(0);
  });

  it('throws what the real implementation throws: same class, status, code and message', async () => {
    const undeployed = t.exchange.chain.proxyAddressFor(owner().address);
    const input = { safeAddress: undeployed, newSignerAddress: owner().address };
    const there = await rejection(t.exchange.multisig.prepare(input));
    const here = await rejection(remote.multisig.prepare(input));
    expect(here).toBeInstanceOf(MultisigError);
    expect(shape(here)).toEqual(shape(there));
    expect(shape(here)).toMatchObject({ statusCode: 409, code: 'SAFE_NOT_DEPLOYED' });

    const unknownMarket = `0x${'ab'.repeat(32)}`;
    const notFound = await rejection(remote.operations.resolveMarket(unknownMarket, 2));
    expect(shape(notFound)).toEqual(
      shape(await rejection(t.exchange.trading.resolveMarket(unknownMarket, 2))),
    );
    expect(notFound).toMatchObject({ statusCode: 404, code: 'MARKET_NOT_FOUND' });

    const badAddress = await rejection(remote.chain.getProxy('0xnot-an-address' as Address));
    expect(shape(badAddress)).toEqual(
      shape(await rejection(t.exchange.chain.getProxy('0xnot-an-address' as Address))),
    );
    expect(badAddress).toMatchObject({ statusCode: 400, code: 'INVALID_ADDRESS' });

    const badFault = await rejection(remote.chain.failNextSettlementItems('nothing' as 'payout', 1));
    expect(badFault).toMatchObject({ statusCode: 400, code: 'INVALID_FAULT' });
  });

  it('refuses an unknown operation, arguments of the wrong shape and garbage, and serves on', async () => {
    const unknown = await raw(encodeWire({ id: randomUUID(), op: 'chain.stop', args: [] }));
    expect(unknown).toMatchObject({ ok: false, error: { statusCode: 400, code: 'BAD_REQUEST' } });
    if (unknown.ok) throw new Error('expected a refusal');
    expect(unknown.error.message).toContain('unknown leader operation "chain.stop"');

    const proto = await raw(encodeWire({ id: randomUUID(), op: 'toString', args: [] }));
    expect(proto).toMatchObject({ ok: false, error: { statusCode: 400 } });
    const wrongArgs = await raw(encodeWire({ id: randomUUID(), op: 'chain.getBlock', args: ['one'] }));
    expect(wrongArgs).toMatchObject({
      ok: false,
      error: { statusCode: 400, message: 'chain.getBlock: argument 1 is not a number' },
    });
    const tooMany = await raw(encodeWire({ id: randomUUID(), op: 'chain.blockNumber', args: [1] }));
    expect(tooMany).toMatchObject({ ok: false, error: { statusCode: 400 } });
    const badOutcome = await raw(
      encodeWire({ id: randomUUID(), op: 'trading.resolveMarket', args: [`0x${'cd'.repeat(32)}`, 7] }),
    );
    expect(badOutcome).toMatchObject({ ok: false, error: { statusCode: 400 } });
    expect(await raw('not json')).toMatchObject({ ok: false, error: { statusCode: 400 } });
    expect(await raw(encodeWire(['a', 'list']))).toMatchObject({ ok: false, error: { statusCode: 400 } });

    expect(await remote.chain.blockNumber()).toBeGreaterThan(0);
  });

  it('refuses at once what only the leader does (blocks, settlement moves, receipt feeds)', async () => {
    const { chain } = remote;
    expect(() => chain.start()).toThrow(RemoteChainUnsupported);
    await expect(chain.stop()).rejects.toThrow(RemoteChainUnsupported);
    expect(() => chain.onReceipt(() => {})).toThrow(RemoteChainUnsupported);
    expect(() => chain.onBlock(() => {})).toThrow(RemoteChainUnsupported);
    await expect(chain.submitSettlement()).rejects.toThrow(RemoteChainUnsupported);
    await expect(chain.transfer()).rejects.toThrow(RemoteChainUnsupported);
  });

  it('a receipt that does not come times out as on the embedded chain', async () => {
    const missing = `0x${'ee'.repeat(32)}` as Hash;
    const error = await rejection(remote.chain.waitForReceipt(missing, { timeoutMs: 300 }));
    expect(error.message).toBe(`no receipt for ${missing} within 300 ms`);
  });
});

describe('without a leader', () => {
  it('ends in a 503 at the deadline while nobody serves the subject', async () => {
    const client = new LeaderClient({
      nc: apiNc,
      subject: uniqueNames().leader,
      deadlineMs: 300,
      retryPauseMs: 50,
    });
    const error = await rejection(client.call('chain.blockNumber'));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ statusCode: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(error.message).toMatch(/^No leader answered within 300 ms \(\d+ attempts\); retry$/);
  });

  it('sends a read again after a timeout, a mint never: it may have been applied', async () => {
    const silent = uniqueNames().leader;
    let received = 0;
    const subscription = leaderNc.subscribe(silent, {
      callback: () => {
        received++;
      },
    });
    await leaderNc.flush();
    try {
      const client = new LeaderClient({ nc: apiNc, subject: silent, attemptTimeoutMs: 100, deadlineMs: 450 });
      const read = await rejection(client.call('chain.balanceOf', [owner().address]));
      expect(read).toMatchObject({ statusCode: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(received).toBeGreaterThan(1);
      expect(LEADER_OPERATIONS['chain.mint'].retry).toBe('no-responders');

      received = 0;
      const mint = await rejection(client.call('chain.mint', [owner().address, 1n]));
      expect(mint).toMatchObject({ statusCode: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(mint.message).toContain('may have taken effect');
      expect(received).toBe(1);
    } finally {
      subscription.unsubscribe();
    }
  });

  it('is a 503 once the leader stops serving', async () => {
    const { leader: own } = uniqueNames();
    const stopping = new LeaderServices({
      nc: leaderNc,
      subject: own,
      chain: t.exchange.chain,
      multisig: t.exchange.multisig,
      resolveMarket: (marketHash, outcome) => t.exchange.trading.resolveMarket(marketHash, outcome),
      reconciliation: t.exchange.reconciliation,
      settlement: t.exchange.settlement,
    });
    await stopping.start();
    const client = new LeaderClient({ nc: apiNc, subject: own, deadlineMs: 300, retryPauseMs: 50 });
    expect(await client.call('chain.blockNumber')).toBe(await t.exchange.chain.blockNumber());
    await stopping.stop();
    expect(await rejection(client.call('chain.blockNumber'))).toMatchObject({ statusCode: 503 });
  });
});
