import { readFileSync } from 'node:fs';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { until } from '../helpers/trading.js';

const vectors = JSON.parse(
  readFileSync(new URL('../../../protocol/src/test-vectors/safe-vectors.json', import.meta.url), 'utf8'),
);
/** Hardhat's well-known test keys #0..#3: the vectors' owners A, B, C, and one more. */
const KEYS = {
  A: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  B: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  C: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  D: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
} as const;

describe('proxy wallets and multisig through HTTP', () => {
  let t: TestExchange;
  const users: Record<string, TestUser> = {};
  beforeAll(async () => {
    t = await startTestExchange();
    for (const [name, key] of Object.entries(KEYS)) users[name] = await t.createUser(key);
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  const post = (url: string, user: TestUser, payload?: object) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: user.headers,
      ...(payload === undefined ? {} : { payload }),
    });
  const get = (url: string, user: TestUser) => t.app.inject({ method: 'GET', url, headers: user.headers });
  const deployed = (user: TestUser) =>
    until(
      async () => (await get('/user/proxy', user)).json().data,
      (p) => !p.pending,
      10_000,
    );

  it('derives the Safe address before deployment and follows the spec’s state table', async () => {
    const A = users.A!;
    const before = (await get('/user/proxy', A)).json().data;
    expect(before).toMatchObject({
      proxy: vectors['v1.4.1 SafeL2 predicted Safe address'],
      deployed: false,
      pending: false,
      state: 'none',
    });
    expect((await get('/user/pending-deploy-proxy', A)).json().data).toEqual({ pending: false });
    const prepare = await post('/user/multisig/add-signer/prepare', A, {
      safeAddress: before.proxy,
      newSignerAddress: users.B!.address,
    });
    expect(prepare.statusCode).toBe(409);
    const faucet = await t.app.inject({
      method: 'POST',
      url: '/admin/faucet',
      headers: t.admin,
      payload: { address: A.address, amount: '1000000' },
    });
    expect(faucet.statusCode).toBe(409);

    const deploy = await post('/user/deploy-proxy', A);
    expect(deploy.json().data).toMatchObject({ proxy: before.proxy, pending: true, deployed: false });
    expect((await get('/user/pending-deploy-proxy', A)).json().data).toEqual({ pending: true });
    const again = await post('/user/deploy-proxy', A);
    expect(again.json().data.txHash).toBe(deploy.json().data.txHash);
    expect(await deployed(A)).toMatchObject({ deployed: true, pending: false, state: 'deployed' });
    expect(await t.exchange.chain.getSafe(before.proxy)).toMatchObject({
      owners: [A.address],
      threshold: 1,
      nonce: 0,
    });
  });

  it('takes the failure path: pending false and deployed false, then a retry succeeds', async () => {
    const D = users.D!;
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/admin/faults',
          headers: t.admin,
          payload: { deployProxy: 'fail-next' },
        })
      ).statusCode,
    ).toBe(200);
    await post('/user/deploy-proxy', D);
    expect(await deployed(D)).toMatchObject({ pending: false, deployed: false, state: 'failed' });
    await post('/user/deploy-proxy', D);
    expect(await deployed(D)).toMatchObject({ pending: false, deployed: true });
    const bad = await t.app.inject({
      method: 'POST',
      url: '/admin/faults',
      headers: t.admin,
      payload: { deployProxy: 'fail-always' },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('reproduces the Safe vectors: tx0 hash, typed data and signature, then executes in a later block', async () => {
    const A = users.A!;
    const safe = vectors['v1.4.1 SafeL2 predicted Safe address'];
    const prepared = await post('/user/multisig/add-signer/prepare', A, {
      safeAddress: safe,
      newSignerAddress: users.B!.address,
    });
    expect(prepared.statusCode).toBe(200);
    const data = prepared.json().data;
    expect(data.safeTxHash).toBe(vectors['tx0 safeTxHash']);
    expect(data.safeTransactionData).toEqual(vectors['tx0 SafeTransactionData']);
    expect(data.typedData).toEqual(vectors.tx0TypedDataJson);

    const signature = await privateKeyToAccount(KEYS.A).signTypedData(data.typedData);
    expect(signature).toBe(vectors['tx0 signature by A (EIP-712, v=27/28)']);
    const body = {
      safeAddress: safe,
      safeTxHash: data.safeTxHash,
      safeTransactionData: data.safeTransactionData,
      signature,
      signerAddress: A.address,
    };
    const executed = await post('/user/multisig/add-signer/execute', A, body);
    expect(executed.statusCode).toBe(200);
    expect(executed.json().data).toMatchObject({
      safeTxHash: data.safeTxHash,
      confirmedBy: [A.address],
      signedCount: 1,
      requiredThreshold: 1,
      isReadyToExecute: true,
    });

    const done = await until(
      async () => (await post('/user/multisig/add-signer/execute', A, body)).json().data,
      (p) => p.isExecuted,
    );
    expect(done.executionTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await t.exchange.chain.getSafe(safe)).toMatchObject({
      owners: [users.B!.address, A.address],
      threshold: 1,
      nonce: 1,
    });
  });

  it('accepts v as 0/1, and at threshold 2 needs the second owner', async () => {
    const [A, B, C, D] = [users.A!, users.B!, users.C!, users.D!];
    const safe = vectors['v1.4.1 SafeL2 predicted Safe address'];
    // tx1 of the vectors: add C with threshold 2, signed by A with v as 0/1.
    const tx1 = (
      await post('/user/multisig/add-signer/prepare', A, {
        safeAddress: safe,
        newSignerAddress: C.address,
        threshold: 2,
      })
    ).json().data;
    expect(tx1.safeTxHash).toBe(vectors['tx1 safeTxHash']);
    const sigA = vectors['tx1 sig A'] as string;
    const sigA01 = `${sigA.slice(0, 130)}${(Number.parseInt(sigA.slice(130), 16) - 27).toString(16).padStart(2, '0')}`;
    const body1 = {
      safeAddress: safe,
      safeTxHash: tx1.safeTxHash,
      safeTransactionData: tx1.safeTransactionData,
      signature: sigA01,
      signerAddress: A.address,
    };
    expect((await post('/user/multisig/add-signer/execute', A, body1)).json().data.isReadyToExecute).toBe(
      true,
    );
    await until(
      async () => (await t.exchange.chain.getSafe(safe))!.threshold,
      (v) => v === 2,
    );

    // Now two confirmations: A's alone leaves the transaction pending; B (an owner) completes it.
    const tx2 = (
      await post('/user/multisig/add-signer/prepare', A, { safeAddress: safe, newSignerAddress: D.address })
    ).json().data;
    expect(tx2.safeTransactionData.nonce).toBe(2);
    const confirm = async (user: TestUser, key: `0x${string}`) =>
      post('/user/multisig/add-signer/execute', user, {
        safeAddress: safe,
        safeTxHash: tx2.safeTxHash,
        safeTransactionData: tx2.safeTransactionData,
        signature: await privateKeyToAccount(key).signTypedData(tx2.typedData),
        signerAddress: user.address,
      });
    const first = (await confirm(A, KEYS.A)).json().data;
    expect(first).toMatchObject({
      signedCount: 1,
      requiredThreshold: 2,
      isReadyToExecute: false,
      isExecuted: false,
    });
    const repeat = (await confirm(A, KEYS.A)).json().data;
    expect(repeat.signedCount).toBe(1);
    const second = (await confirm(B, KEYS.B)).json().data;
    expect(second).toMatchObject({ signedCount: 2, isReadyToExecute: true });
    expect(second.confirmedBy).toEqual(expect.arrayContaining([A.address, B.address]));
    const done = await until(
      async () => (await confirm(B, KEYS.B)).json().data,
      (p) => p.isExecuted,
    );
    expect(done.executionTxHash).toBeTruthy();
    expect((await t.exchange.chain.getSafe(safe))!.owners).toContain(D.address);
  });

  it('answers every bad execute with its status', async () => {
    const [A, C] = [users.A!, users.C!];
    const outsider = await t.createUser();
    await post('/user/deploy-proxy', outsider);
    await deployed(outsider);
    const outsiderSafe = (await get('/user/proxy', outsider)).json().data.proxy;
    const tx = (
      await post('/user/multisig/add-signer/prepare', outsider, {
        safeAddress: outsiderSafe,
        newSignerAddress: C.address,
      })
    ).json().data;
    const signature = await privateKeyToAccount(outsider.privateKey).signTypedData(tx.typedData);
    const good = {
      safeAddress: outsiderSafe,
      safeTxHash: tx.safeTxHash,
      safeTransactionData: tx.safeTransactionData,
      signature,
      signerAddress: outsider.address,
    };
    const execute = (user: TestUser, body: Record<string, unknown>) =>
      post('/user/multisig/add-signer/execute', user, body);

    expect((await execute(outsider, { ...good, signerAddress: A.address })).statusCode).toBe(400);
    expect((await execute(A, { ...good, signerAddress: A.address })).statusCode).toBe(403);
    const undeployedUser = await t.createUser();
    const undeployedSafe = (await get('/user/proxy', undeployedUser)).json().data.proxy;
    expect(
      (
        await execute(undeployedUser, {
          ...good,
          safeAddress: undeployedSafe,
          signerAddress: undeployedUser.address,
        })
      ).statusCode,
    ).toBe(409);
    const tampered = await execute(outsider, {
      ...good,
      safeTransactionData: { ...good.safeTransactionData, nonce: 5 },
    });
    expect(tampered.statusCode).toBe(400);
    const changeThreshold = `0x694e80c3${'0'.repeat(63)}1`;
    const notAddSigner = await execute(outsider, {
      ...good,
      safeTransactionData: { ...good.safeTransactionData, data: changeThreshold },
    });
    expect(notAddSigner.statusCode).toBe(400);
    expect(notAddSigner.json().message).toMatch(/NOT_ADD_SIGNER/);
    const otherKey = await privateKeyToAccount(KEYS.C).signTypedData(tx.typedData);
    expect((await execute(outsider, { ...good, signature: otherKey })).statusCode).toBe(400);
    expect((await execute(outsider, { ...good, signature: `0x${'00'.repeat(65)}` })).statusCode).toBe(400);
    expect((await execute(outsider, { ...good, signature: '0x1234' })).statusCode).toBe(400);
    const missing = await execute(outsider, { safeAddress: outsiderSafe });
    expect(missing.json()).toMatchObject({ error: 'Bad Request', statusCode: 400 });
    expect((await execute(outsider, good)).json().data.isReadyToExecute).toBe(true);
  });

  it('finishes a pending deployment and a pending multisig transaction after a restart', async () => {
    // Slow blocks, so both transactions are still in the mempool when the server stops and when it has
    // started again, however long a start takes on a busy machine.
    const slow = await startTestExchange({ env: { BLOCK_TIME_MS: '6000' } });
    try {
      const user = await slow.createUser();
      await slow.app.inject({ method: 'POST', url: '/user/deploy-proxy', headers: user.headers });
      let s = await slow.reopen();
      const during = (await s.app.inject({ method: 'GET', url: '/user/proxy', headers: user.headers })).json()
        .data;
      expect(during).toMatchObject({ pending: true, deployed: false });
      const proxy = await until(
        async () =>
          (await s.app.inject({ method: 'GET', url: '/user/proxy', headers: user.headers })).json().data,
        (p) => p.deployed,
        20_000,
      );
      const other = privateKeyToAccount(KEYS.D).address;
      const tx = (
        await s.app.inject({
          method: 'POST',
          url: '/user/multisig/add-signer/prepare',
          headers: user.headers,
          payload: { safeAddress: proxy.proxy, newSignerAddress: other },
        })
      ).json().data;
      const body = {
        safeAddress: proxy.proxy,
        safeTxHash: tx.safeTxHash,
        safeTransactionData: tx.safeTransactionData,
        signature: await privateKeyToAccount(user.privateKey).signTypedData(tx.typedData),
        signerAddress: user.address,
      };
      const submitted = await s.app.inject({
        method: 'POST',
        url: '/user/multisig/add-signer/execute',
        headers: user.headers,
        payload: body,
      });
      expect(submitted.json().data).toMatchObject({ isReadyToExecute: true, isExecuted: false });
      s = await s.reopen();
      const stillPending = await s.app.inject({
        method: 'POST',
        url: '/user/multisig/add-signer/execute',
        headers: user.headers,
        payload: body,
      });
      // Answered after the restart (executed already if a block came first on a slow machine: no timing
      // is asserted); it ends executed either way.
      expect(stillPending.statusCode).toBe(200);
      expect(stillPending.json().data).toMatchObject({ isReadyToExecute: true });
      const done = await until(
        async () =>
          (
            await s.app.inject({
              method: 'POST',
              url: '/user/multisig/add-signer/execute',
              headers: user.headers,
              payload: body,
            })
          ).json().data,
        (p) => p.isExecuted,
        20_000,
      );
      expect(done.executionTxHash).toBeTruthy();
      await s.close();
    } finally {
      removeDataDir(slow.dataDir);
    }
  }, 60_000);
});
