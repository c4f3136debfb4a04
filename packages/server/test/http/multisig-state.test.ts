import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { until } from '../helpers/trading.js';

describe('GET /user/multisig', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it("shows the account's Safe: nothing before deployment, then its owner and threshold", async () => {
    const user = await t.createUser();
    const read = async () =>
      (await t.app.inject({ method: 'GET', url: '/user/multisig', headers: user.headers })).json().data;
    const proxy = t.exchange.chain.proxyAddressFor(user.address);
    expect(await read()).toEqual({ safeAddress: proxy, deployed: false, owners: [], threshold: 0, nonce: 0 });
    await t.app.inject({ method: 'POST', url: '/user/deploy-proxy', headers: user.headers });
    const after = await until(read, (s) => s.deployed === true, 10_000);
    expect(after).toEqual({
      safeAddress: proxy,
      deployed: true,
      owners: [user.address],
      threshold: 1,
      nonce: 0,
    });
    expect((await t.app.inject({ method: 'GET', url: '/user/multisig' })).statusCode).toBe(401);
  });
});
