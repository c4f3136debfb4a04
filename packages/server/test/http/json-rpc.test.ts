import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NETWORKS } from '../../src/config/config.js';
import { RATE_LIMITS } from '../../src/http/plugins/rate-limits.js';
import { MAX_RPC_BATCH } from '../../src/http/routes/json-rpc.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';

describe("POST /rpc: the chain's JSON-RPC for wallets", () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange({ env: { RATE_LIMITS: '1' } });
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  const rpc = async (payload: unknown, contentType = 'application/json') => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/rpc',
      headers: { 'content-type': contentType },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
    return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : null };
  };
  const call = (method: string, params: unknown[] = [], id: unknown = 1) =>
    rpc({ jsonrpc: '2.0', id, method, params });

  it('answers the read methods a wallet calls to add and show the network', async () => {
    const chainId = NETWORKS.mainnet.chainId;
    expect((await call('eth_chainId')).body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: `0x${chainId.toString(16)}`,
    });
    expect((await call('net_version', [], 'a')).body).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      result: String(chainId),
    });
    const height = await t.exchange.chain.blockNumber();
    const block = (await call('eth_blockNumber')).body.result as string;
    expect(block).toMatch(/^0x[0-9a-f]+$/);
    expect(Number.parseInt(block, 16)).toBeGreaterThanOrEqual(height);
    expect((await call('eth_gasPrice')).body.result).toBe('0x0');
    const address = '0x00000000000000000000000000000000000000aa';
    expect((await call('eth_getBalance', [address, 'latest'])).body.result).toBe('0x0');
  });

  it('answers other methods, bad params, bad JSON and bad requests with JSON-RPC errors', async () => {
    const unknown = await call('eth_sendTransaction', [{}], 7);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32601 } });
    expect(unknown.body.error.message).toContain('eth_chainId');
    expect((await call('eth_getBalance', ['nope'])).body.error.code).toBe(-32602);
    expect((await call('eth_chainId', { not: 'an array' } as never)).body.error.code).toBe(-32602);
    expect((await rpc('{"jsonrpc":"2.0",')).body).toMatchObject({ id: null, error: { code: -32700 } });
    expect((await rpc('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', 'text/plain')).body.result).toMatch(
      /^0x/,
    );
    expect((await rpc({ id: 3, method: 'eth_chainId' })).body).toMatchObject({
      id: 3,
      error: { code: -32600 },
    });
    expect((await rpc(42)).body.error.code).toBe(-32600);
    expect((await rpc([])).body.error.code).toBe(-32600);
  });

  it('answers a batch in order, skips notifications, and refuses a batch over the bound', async () => {
    const batch = await rpc([
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
      { jsonrpc: '2.0', method: 'eth_chainId' },
      { jsonrpc: '2.0', id: 2, method: 'nope' },
    ]);
    expect(batch.body.map((a: { id: number }) => a.id)).toEqual([1, 2]);
    expect(batch.body[1].error.code).toBe(-32601);
    const notification = await rpc({ jsonrpc: '2.0', method: 'eth_chainId' });
    expect(notification.status).toBe(204);
    const tooMany = Array.from({ length: MAX_RPC_BATCH + 1 }, (_, id) => ({
      jsonrpc: '2.0',
      id,
      method: 'eth_chainId',
    }));
    expect((await rpc(tooMany)).body).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('is rate-limited like every request', async () => {
    const statuses = [];
    for (let i = 0; i <= RATE_LIMITS.base.max; i++) statuses.push((await call('eth_chainId')).status);
    expect(statuses).toContain(429);
  });
});
