import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSpecErrorShape } from '../helpers/error-shapes.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, signOrder, USDC } from '../helpers/trading.js';

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** Resolves with whether the socket was closed by the server within `ms` (then closes it anyway). */
function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(false);
    }, ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** GET /health on a connection of its own (closed after), or 0 if the connection failed. */
function healthStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/health', agent: false }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
    });
    request.once('error', () => resolve(0));
  });
}

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('request bodies are bounded per route', () => {
  let t: TestExchange;
  let user: TestUser;
  beforeAll(async () => {
    t = await startTestExchange();
    user = await t.createUser();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('refuses a 1 MB body of nested arrays with 413 before reading it', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/orders-v3',
      headers: { ...user.headers, 'content-type': 'application/json' },
      payload: nestedArrays(512 * 1024),
    });
    expect(response.statusCode).toBe(413);
    expectSpecErrorShape(413, response.json());
    expect(response.json().message).toMatch(/^PAYLOAD_TOO_LARGE: /);
  });

  it('takes a few KB on the order routes and less elsewhere', async () => {
    const padded = JSON.stringify({ timeoutSeconds: 5, padding: 'x'.repeat(20 * 1024) });
    const heartbeat = await t.app.inject({
      method: 'POST',
      url: '/heartbeat/v3',
      headers: { ...user.headers, 'content-type': 'application/json' },
      payload: padded,
    });
    expect(heartbeat.statusCode).toBe(413);
    expectSpecErrorShape(413, heartbeat.json());
  });

  it('refuses a body nested deeper than any request of the API with 400, without parsing it', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/orders-v3',
      headers: { ...user.headers, 'content-type': 'application/json' },
      payload: `{"orders":${nestedArrays(5_000)}}`,
    });
    expect(response.statusCode).toBe(400);
    expectSpecErrorShape(400, response.json());
    expect(response.json().message).toMatch(/MALFORMED_JSON: the body nests deeper than \d+ levels/);
  });
});

describe('order intake sheds load past its bound', () => {
  let t: TestExchange;
  let trader: TestUser;
  let marketHash: `0x${string}`;
  beforeAll(async () => {
    t = await startTestExchange({ env: { MAX_PENDING_ORDERS: '10' } });
    trader = await createTrader(t, 10_000n * USDC);
    ({ marketHash } = await createMarket(t));
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('answers 503 {message, statusCode} at once while reads and /health go on answering', async () => {
    const batches = await Promise.all(
      Array.from({ length: 6 }, () =>
        Promise.all(
          Array.from({ length: 10 }, () => signOrder(t, trader, { marketHash, tick: 400, size: 2n * USDC })),
        ),
      ),
    );
    const [writes, health, reads] = await Promise.all([
      Promise.all(
        batches.map((orders) =>
          t.app.inject({ method: 'POST', url: '/orders-v3', headers: trader.headers, payload: { orders } }),
        ),
      ),
      t.app.inject({ method: 'GET', url: '/health' }),
      t.app.inject({ method: 'GET', url: '/orders-v3', headers: trader.headers }),
    ]);
    const statuses = writes.map((w) => w.statusCode);
    expect(statuses).toContain(200);
    expect(statuses).toContain(503);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    for (const shed of writes.filter((w) => w.statusCode === 503)) {
      expect(shed.json()).toEqual({ message: expect.any(String), statusCode: 503 });
    }
    expect(health.statusCode).toBe(200);
    expect(reads.statusCode).toBe(200);
    // Nothing is left counted once the checks are done: the next batch is taken.
    expect(t.exchange.verifier.pending).toBe(0);
    expect(t.exchange.trading.orders.saturated).toBe(false);
    const again = await t.app.inject({
      method: 'POST',
      url: '/orders-v3',
      headers: trader.headers,
      payload: { orders: [await signOrder(t, trader, { marketHash, tick: 401, size: 2n * USDC })] },
    });
    expect(again.statusCode).toBe(200);
  });
});

describe('connections are capped and idle ones closed', () => {
  it('closes connections past the per-address cap at once; /health answers once one is freed', async () => {
    const t = await startTestExchange({ env: { MAX_CONNECTIONS_PER_ADDRESS: '5' } });
    const sockets: Socket[] = [];
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as { port: number };
      for (let i = 0; i < 5; i++) sockets.push(await openSocket(port));
      const extra = await openSocket(port);
      expect(await closedWithin(extra, 10_000)).toBe(true);
      sockets.pop()?.destroy();
      // The server sees the close on its next turn: retry briefly rather than race it.
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = await healthStatus(port);
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(200);
    } finally {
      for (const s of sockets) s.destroy();
      await t.close();
      removeDataDir(t.dataDir);
    }
  });

  it('closes a connection that stays idle past the idle timeout', async () => {
    const t = await startTestExchange({ env: { HTTP_IDLE_TIMEOUT_MS: '300' } });
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as { port: number };
      const idle = await openSocket(port);
      expect(await closedWithin(idle, 20_000)).toBe(true);
    } finally {
      await t.close();
      removeDataDir(t.dataDir);
    }
  });
});
