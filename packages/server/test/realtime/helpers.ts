import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { Centrifuge, type Options } from 'centrifuge';
import { WebSocket } from 'ws';
import { createRealtimeHub, type RealtimeHub } from '../../src/realtime/hub.js';
import type { RealtimeHubOptions } from '../../src/realtime/options.js';
import { createRealtimeToken, createRealtimeTokenVerifier } from '../../src/realtime/token.js';

export const SECRET = 'test-secret-test-secret-test-secret';
export const ALICE = '0x52908400098527886E0F7030069857D2E4169EE7';
export const BOB = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';
export const MARKET = `0x${'ab'.repeat(32)}`;
export const BOOK = `order_book:market_${MARKET}`;
/**
 * A public channel whose stream keeps every publication (recovery mode `stream`, 2,000 deep): recovery
 * and history tests use it. Book channels keep only the latest book of each market (mode `cache`).
 */
export const TAPE = 'recent_trades:global';

export function tokenFor(sub: string, ttlSeconds = 3600, now = Date.now()): string {
  return createRealtimeToken({ secret: SECRET, sub, ttlSeconds, now });
}

export type TestHub = {
  hub: RealtimeHub;
  server: Server;
  url: string;
  /** Sockets of every upgrade, so a test can cut a connection like a network failure would. */
  sockets: Set<Duplex>;
  close(): Promise<void>;
};

export async function startHub(options: Partial<RealtimeHubOptions> = {}, port = 0): Promise<TestHub> {
  const server = createServer((_req, res) => res.writeHead(404).end());
  const hub = createRealtimeHub({ verifyToken: createRealtimeTokenVerifier(SECRET), ...options });
  const sockets = new Set<Duplex>();
  server.on('upgrade', (_req, socket: Duplex) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  hub.attach(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    hub,
    server,
    sockets,
    url: `ws://127.0.0.1:${address.port}/connection/websocket`,
    async close() {
      hub.close();
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The official client in Node, with `ws` as its WebSocket. */
export function officialClient(url: string, options: Partial<Options> = {}): Centrifuge {
  return new Centrifuge(url, {
    websocket: WebSocket,
    minReconnectDelay: 50,
    maxReconnectDelay: 200,
    ...options,
  });
}

/**
 * The official client of an exchange serving HTTP at `api`, its connection token from the REST route with
 * the user's API key headers (as docs/realtime.md shows).
 */
export function exchangeClient(api: string, headers: Record<string, string>): Centrifuge {
  return officialClient(`${api.replace('http://', 'ws://')}/connection/websocket`, {
    getToken: async () => {
      const res = await fetch(`${api}/user/realtime-token-v3/api-key`, { headers });
      return ((await res.json()) as { data: { token: string } }).data.token;
    },
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves when `check` returns a value other than undefined/false; polls every 5 ms. */
export async function until<T>(
  check: () => T | undefined | false,
  timeoutMs = 5000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** A bare `ws` client speaking the protocol by hand: records every frame and every decoded line. */
export type RawClient = {
  ws: WebSocket;
  frames: string[];
  lines: Record<string, unknown>[];
  closed: Promise<{ code: number; reason: string }>;
  send(...commands: object[]): void;
  /** The reply to command `id`. */
  reply(id: number): Promise<Record<string, unknown>>;
};

export async function rawClient(url: string): Promise<RawClient> {
  const ws = new WebSocket(url);
  const frames: string[] = [];
  const lines: Record<string, unknown>[] = [];
  ws.on('message', (data) => {
    const text = data.toString();
    frames.push(text);
    for (const line of text.split('\n')) lines.push(JSON.parse(line));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    ws,
    frames,
    lines,
    closed,
    send: (...commands) => ws.send(commands.map((c) => JSON.stringify(c)).join('\n')),
    reply: (id) => until(() => lines.find((l) => l.id === id), 5000, `reply ${id}`),
  };
}

/** A raw client that has connected as `user`. */
export async function connectedRawClient(url: string, user = ALICE): Promise<RawClient> {
  const client = await rawClient(url);
  client.send({ id: 1, connect: { token: tokenFor(user), name: 'raw' } });
  const reply = await client.reply(1);
  if (!reply.connect) throw new Error(`connect failed: ${JSON.stringify(reply)}`);
  return client;
}

export function pubsOf(client: RawClient, channel: string): { offset?: number; data: unknown }[] {
  return client.lines
    .map((l) => l.push as { channel?: string; pub?: { offset?: number; data: unknown } } | undefined)
    .filter((p) => p?.channel === channel && p.pub !== undefined)
    .map((p) => p!.pub!);
}

/** After a test: disconnects its official clients and closes its hub. */
export async function closeAll(hub: TestHub | undefined, clients: Centrifuge[]): Promise<void> {
  for (const c of clients.splice(0)) c.disconnect();
  await hub?.close();
}
