import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { NatsConnection } from '@nats-io/transport-node';
import { GLOBAL_CHANNELS } from '@oddsbook/protocol';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { clusterNames } from '../../src/cluster/cluster-names.js';
import { PublicationsFeed } from '../../src/cluster/publications-feed.js';
import { RemoteSequencer } from '../../src/cluster/remote-sequencer.js';
import { connectNats, deleteStreams, natsClients } from '../../src/cluster/test-support.js';
import type { StampedPublication } from '../../src/realtime/stamped.js';
import { createTestDatabase, requirePostgres } from '../../src/store/test-support/postgres-test-database.js';
import { fund, liveOrder, startRoleProcess } from '../helpers/role-process.js';

await requirePostgres();
const database = await createTestDatabase();
const dirs: string[] = [];
const children: ChildProcess[] = [];
let nc: NatsConnection;
beforeAll(async () => {
  nc = await connectNats();
});
const streams: string[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  if (nc) await deleteStreams(nc, streams);
  await nc?.close();
  await database.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `oddsbook serve --role <role>` in a child process, its JSON log lines collected. */
const startRole = (role: 'sequencer,projector,chain' | 'realtime', url: string, cluster: string) =>
  startRoleProcess(role, { url, cluster, dirs, children });

/** A market hash (books are published per market: the channel's name needs one). */
const MARKET = `0x${'ab'.repeat(32)}`;

const order = (who: number, one: boolean) => liveOrder(who, one, MARKET);

describe('oddsbook serve --role realtime', () => {
  it('serves the WebSocket and /health from the leader’s stamped publications: a fill on the leader reaches the node, numbered under the leader’s epoch', async () => {
    const url = await database.schema();
    const cluster = `t${randomBytes(6).toString('hex')}`;
    const names = clusterNames(cluster);
    streams.push(names.stream, names.publicationsStream);
    const sequencer = startRole('sequencer,projector,chain', url, cluster);
    expect((await sequencer.seen((l) => l.state === 'leader', 'leader')).epoch).toBe(1);
    const realtime = startRole('realtime', url, cluster);
    const up = await realtime.seen((l) => l.role === 'realtime' && l.port !== undefined, 'serving');
    const base = `http://127.0.0.1:${up.port}`;
    expect(await (await fetch(`${base}/health`)).json()).toMatchObject({ status: 'ok', role: 'realtime' });
    // Listed with the cluster's nodes (GET /admin/cluster reads cluster_nodes).
    const listed = new pg.Client({ connectionString: url });
    await listed.connect();
    try {
      const { rows } = await listed.query<{ address: string }>(
        "SELECT address FROM cluster_nodes WHERE roles = '{realtime}'",
      );
      expect(rows.map((r) => r.address)).toEqual([`127.0.0.1:${up.port}`]);
    } finally {
      await listed.end();
    }

    // What the node is fed, read beside it.
    const stamped: StampedPublication[] = [];
    const feed = new PublicationsFeed({
      ...(await natsClients(nc)),
      stream: names.publicationsStream,
      handler: (publications) => stamped.push(...publications),
    });
    await feed.start();
    try {
      const remote = new RemoteSequencer({ nc, subject: names.submit, deadlineMs: 10_000 });
      await Promise.all(remote.decideAll([fund(1), fund(2)]));
      await Promise.all(remote.decideAll([order(1, true)]));
      await Promise.all(remote.decideAll([order(2, false)]));
      await expect
        .poll(() => stamped.filter((p) => p.channel === GLOBAL_CHANNELS.recent_trades).length, {
          timeout: 30_000,
        })
        .toBe(1);
      const trade = stamped.find((p) => p.channel === GLOBAL_CHANNELS.recent_trades)!;
      expect(trade).toMatchObject({ offset: 1, epoch: expect.stringMatching(/^1-/) });
      // Every channel with history numbered contiguously from 1.
      const byChannel = new Map<string, number[]>();
      for (const p of stamped) {
        if (p.offset === 0) continue;
        const key = `${p.channel}#${p.user ?? ''}`;
        byChannel.set(key, [...(byChannel.get(key) ?? []), p.offset]);
      }
      for (const [key, offsets] of byChannel) expect(offsets, key).toEqual(offsets.map((_, i) => i + 1));
      await expect
        .poll(async () => ((await (await fetch(`${base}/health`)).json()) as { topics: number }).topics, {
          timeout: 10_000,
        })
        .toBeGreaterThanOrEqual(byChannel.size);
      expect(((await (await fetch(`${base}/health`)).json()) as { leaderEpoch: number }).leaderEpoch).toBe(1);
    } finally {
      await feed.stop();
    }

    // The WebSocket checks tokens as the exchange does: one not signed with its secret is refused (3500).
    const ws = new WebSocket(`ws://127.0.0.1:${up.port}/connection/websocket`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(JSON.stringify({ id: 1, connect: { token: 'not.a.token' } }));
    expect(await closed).toBe(3500);

    realtime.child.kill('SIGTERM');
    expect(await realtime.exit(), realtime.output()).toBe(0);
    sequencer.child.kill('SIGTERM');
    expect(await sequencer.exit(), sequencer.output()).toBe(0);
  }, 120_000);
});
