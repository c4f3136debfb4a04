import type { ChildProcess } from 'node:child_process';
import { createExchangeClient } from '@oddsbook/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExample } from '../helpers/cli-process.js';
import {
  ADMIN_TOKEN,
  removeDataDir,
  startTestExchange,
  type TestExchange,
} from '../helpers/test-exchange.js';
import { createMarket, until } from '../helpers/trading.js';

const keyOf = (output: string) => /ODDSBOOK_API_KEY=([0-9a-f]+)/.exec(output)?.[1];

describe('the example bots against a listening exchange', () => {
  let t: TestExchange;
  let env: Record<string, string>;
  const running: ChildProcess[] = [];
  beforeAll(async () => {
    t = await startTestExchange();
    const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    env = { ODDSBOOK_URL: url, ODDSBOOK_ADMIN_TOKEN: ADMIN_TOKEN };
  });
  afterAll(async () => {
    for (const child of running) child.kill('SIGKILL');
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('the market maker quotes, the taker fills it, it re-quotes; killed, its heartbeat cancels its orders', async () => {
    const { marketHash } = await createMarket(t);
    const mm = startExample(
      'market-maker',
      ['--market', marketHash, '--heartbeat', '3', '--size', '10'],
      env,
    );
    running.push(mm.child);
    await until(
      () => mm.output(),
      (out) => /\[mm\] quoting/.test(out),
      60_000,
    );
    const client = createExchangeClient({ baseUrl: env.ODDSBOOK_URL!, apiKey: keyOf(mm.output())! });
    const quoted = await client.listOrders({ marketHash });
    expect(quoted.orders).toHaveLength(6);

    const taker = startExample(
      'taker',
      ['--market', marketHash, '--rounds', '4', '--interval', '200', '--stake', '2'],
      env,
    );
    expect(await taker.exited).toBe(0);
    const took = taker.lines().filter((l) => l.startsWith('[taker] took'));
    expect(took.length).toBeGreaterThanOrEqual(2);
    expect(taker.output()).toMatch(/\[taker\] done: [1-9][0-9.]* USDC taken/);
    // Each fill is seen by the market maker, which quotes again.
    await until(
      () => mm.lines(),
      (lines) => lines.filter((l) => l.startsWith('[mm] quoting')).length >= 2,
      30_000,
    );
    expect(mm.lines().some((l) => l.startsWith('[mm] filled'))).toBe(true);
    expect((await client.listFills()).fills.length).toBeGreaterThanOrEqual(2);

    const open = await until(
      () => client.listOrders({ marketHash }),
      (page) => page.orders.length === 6,
      20_000,
    );
    mm.child.kill('SIGKILL');
    await mm.exited;
    // Nothing refreshes the heartbeat any more: within its 3 s the exchange cancels every order.
    const gone = await until(
      () => Promise.all(open.orders.map((o) => client.getOrder(o.id))),
      (rows) => rows.every((r) => r.status === 'INACTIVE'),
      30_000,
    );
    expect(gone.map((r) => r.inactiveReason)).toEqual(open.orders.map(() => 'HEARTBEAT_TIMEOUT'));
  }, 180_000);

  it('stopped with Ctrl-C, the market maker cancels its orders itself and exits cleanly', async () => {
    const { marketHash } = await createMarket(t);
    const mm = startExample(
      'market-maker',
      ['--market', marketHash, '--heartbeat', '30', '--levels', '2'],
      env,
    );
    running.push(mm.child);
    await until(
      () => mm.output(),
      (out) => /\[mm\] quoting/.test(out),
      60_000,
    );
    const client = createExchangeClient({ baseUrl: env.ODDSBOOK_URL!, apiKey: keyOf(mm.output())! });
    const { orders } = await client.listOrders({ marketHash });
    expect(orders).toHaveLength(4);
    mm.child.kill('SIGINT');
    expect(await mm.exited).toBe(0);
    expect(mm.output()).toMatch(/\[mm\] stopping: cancelling every order, disarming the heartbeat/);
    const rows = await until(
      () => Promise.all(orders.map((o) => client.getOrder(o.id))),
      (r) => r.every((o) => o.status === 'INACTIVE'),
      20_000,
    );
    expect(rows.map((r) => r.inactiveReason)).toEqual(orders.map(() => 'USER_REQUESTED'));
  }, 120_000);
});
