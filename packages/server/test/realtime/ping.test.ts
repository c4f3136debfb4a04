import type { Centrifuge } from 'centrifuge';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ALICE,
  closeAll,
  connectedRawClient,
  officialClient,
  sleep,
  startHub,
  type TestHub,
  tokenFor,
  until,
} from './helpers.js';

let t: TestHub | undefined;
const clients: Centrifuge[] = [];

afterEach(async () => {
  await closeAll(t, clients);
  t = undefined;
});

describe('ping / pong', () => {
  it('keeps an idle official client connected over many ping intervals (it answers every ping)', async () => {
    t = await startHub({ pingIntervalMs: 100, pongTimeoutMs: 60 });
    const c = officialClient(t.url, { token: tokenFor(ALICE) });
    clients.push(c);
    const states: string[] = [];
    c.on('state', (ctx) => states.push(ctx.newState));
    c.connect();
    await until(() => c.state === 'connected');
    await sleep(1200);
    expect(c.state).toBe('connected');
    expect(states).toEqual(['connecting', 'connected']);
    expect(t.hub.stats().pongs).toBeGreaterThanOrEqual(8);
  });

  it('sends the empty object as ping and closes a client that does not answer with 3012', async () => {
    t = await startHub({ pingIntervalMs: 100, pongTimeoutMs: 60 });
    const raw = await connectedRawClient(t.url);
    expect((raw.lines[0] as { connect: { ping: number; pong: boolean } }).connect).toMatchObject({
      ping: 1,
      pong: true,
    });
    const started = Date.now();
    expect(await raw.closed).toEqual({ code: 3012, reason: 'no pong' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(raw.frames).toContain('{}');
  });

  it('keeps a raw client that answers pongs', async () => {
    t = await startHub({ pingIntervalMs: 100, pongTimeoutMs: 60 });
    const raw = await connectedRawClient(t.url);
    raw.ws.on('message', (data) => {
      if (data.toString() === '{}') raw.ws.send('{}');
    });
    await sleep(700);
    expect(raw.ws.readyState).toBe(raw.ws.OPEN);
    expect(raw.frames.filter((f) => f === '{}').length).toBeGreaterThanOrEqual(5);
    raw.ws.close();
  });

  it('reports no ping when pings are off', async () => {
    t = await startHub({ pingIntervalMs: 0 });
    const raw = await connectedRawClient(t.url);
    const connect = (raw.lines[0] as { connect: Record<string, unknown> }).connect;
    expect(connect.ping).toBeUndefined();
    expect(connect.pong).toBeUndefined();
    raw.ws.close();
  });
});
