import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterNames } from '../../src/cluster/cluster-names.js';
import { LeaderClient } from '../../src/cluster/remote-leader.js';
import { RemoteSequencer } from '../../src/cluster/remote-sequencer.js';
import {
  account,
  committedRows,
  connectNats,
  deleteStreams,
  orderIntent,
  TEST_NATS_URL,
  usd,
} from '../../src/cluster/test-support.js';
import type { Intent } from '../../src/sequencer/intents.js';
import { openPostgres } from '../../src/store/postgres/postgres-database.js';
import { createTestDatabase, requirePostgres } from '../../src/store/test-support/postgres-test-database.js';
import { followOutput, runCli } from '../helpers/cli-process.js';

await requirePostgres();
const database = await createTestDatabase();
const dirs: string[] = [];
let nc: NatsConnection;
beforeAll(async () => {
  nc = await connectNats();
});
afterAll(async () => {
  await nc?.close();
  await database.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const serverDir = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `oddsbook serve --role <roles>` in a child process, its JSON log lines collected: by default the whole
 * leader (a sequencer carrying the projector and the chain).
 */
function startSequencer(url: string, cluster: string, roles = 'sequencer,projector,chain') {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-seq-'));
  dirs.push(dataDir);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--role', roles], {
    cwd: serverDir,
    env: {
      ...process.env,
      DATABASE_URL: url,
      NATS_URL: TEST_NATS_URL,
      DATA_DIR: dataDir,
      DEMO: '0',
      CLUSTER: cluster,
      // Each node's HTTP server (/health, /metrics, /admin/cluster) on a port of its own.
      PORT: '0',
      ADMIN_TOKEN: OPERATOR,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { lines, output, seen } = followOutput<{
    msg?: string;
    state?: string;
    epoch?: number;
    address?: string;
  }>(child);
  /** GET on the node's HTTP server, once it listens. */
  const get = async (path: string, headers: Record<string, string> = {}) => {
    await expect.poll(() => lines.find((l) => l.address), { timeout: 60_000 }).toBeTruthy();
    const address = lines.find((l) => l.address)!.address!;
    return fetch(`http://${address}${path}`, { headers });
  };
  return {
    child,
    seen: (state: 'standby' | 'leader') => seen((l) => l.state === state, `${state} from the sequencer`),
    get,
    pid: child.pid!,
    output,
  };
}

const OPERATOR = 'cluster-operator-token-0123456789';
const asOperator = { 'x-admin-token': OPERATOR };

/** The value of one sample of a Prometheus text exposition. */
function sample(body: string, name: string, labels = ''): number {
  const line = body.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  if (!line) throw new Error(`no sample ${name}${labels}`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

type ListedNode = {
  node: string;
  pid: number;
  roles: string[];
  state: string;
  epoch: number | null;
  lastSeq: number;
  alive: boolean;
  address: string;
};

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

/** An order as intake hands it on, expiring an hour from now (the leader runs on the real clock). */
function order(who: number, one: boolean) {
  const intent = orderIntent(account(who), { one });
  return { ...intent, order: { ...intent.order, expiry: Math.floor(Date.now() / 1000) + 3600 } };
}

const fund = (n: number): Intent => ({
  kind: 'input',
  input: { kind: 'engine', command: { type: 'credit', account: account(n), amount: usd(1_000) } },
});

describe('oddsbook serve --role', () => {
  it('refuses a cluster role without DATABASE_URL or NATS_URL, and all mixed with other roles, with exit 2', async () => {
    const noDb = await runCli(['serve', '--role', 'sequencer'], { DATABASE_URL: '', NATS_URL: '' });
    expect(noDb.status).toBe(2);
    expect(noDb.stderr).toContain('needs DATABASE_URL');
    const noNats = await runCli(['serve', '--role', 'sequencer'], {
      DATABASE_URL: 'postgres://127.0.0.1/x',
      NATS_URL: '',
    });
    expect(noNats.status).toBe(2);
    expect(noNats.stderr).toContain('needs NATS_URL');
    // Any mix of the cluster roles runs (test/process/mixed-roles.test.ts); all mixed with them does not.
    const mixed = await runCli(['serve', '--role', 'all,api'], {
      DATABASE_URL: 'postgres://127.0.0.1/x',
      NATS_URL: TEST_NATS_URL,
    });
    expect(mixed.status, mixed.stderr).toBe(2);
    expect(mixed.stderr).toContain('is not combined with others');
    const wrong = await runCli(['serve', '--role', 'matcher'], {});
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('--role must be all or a comma list');
  }, 60_000);

  it('two sequencers: inputs sent over NATS fill in the leader; after a SIGKILL the standby acknowledges the next order; each acknowledged order is journaled once, every batch on the stream; the killed node restarted leads next', async () => {
    const url = await database.schema();
    const db = await openPostgres({ url, poolSize: 2 });
    // A cluster of its own on the shared NATS server: its subjects and stream are named after it.
    const cluster = `t${randomBytes(6).toString('hex')}`;
    const names = clusterNames(cluster);
    const a = startSequencer(url, cluster);
    let b: ReturnType<typeof startSequencer> | null = null;
    let again: ReturnType<typeof startSequencer> | null = null;
    try {
      expect((await a.seen('leader')).epoch).toBe(1);
      b = startSequencer(url, cluster);
      await b.seen('standby');
      // Every node answers /health, /metrics and /admin/cluster (issue 37 point 7).
      expect((await b.get('/admin/cluster')).status).toBe(401);
      const listing = async (node: ReturnType<typeof startSequencer>) =>
        ((await (await node.get('/admin/cluster', asOperator)).json()) as { data: ListedNode[] }).data;
      await expect
        .poll(async () => (await listing(b!)).map((n) => [n.pid, n.roles, n.state, n.epoch, n.alive]), {
          timeout: 30_000,
        })
        .toEqual(
          [
            [a.pid, ['chain', 'projector', 'sequencer'], 'leader', 1, true],
            [b.pid, ['chain', 'projector', 'sequencer'], 'standby', null, true],
          ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
        );
      const health = (await (await b.get('/health')).json()) as { data: { state: string } };
      expect(health.data).toMatchObject({
        healthy: true,
        roles: ['chain', 'projector', 'sequencer'],
        state: 'standby',
      });
      const leaderMetrics = await (await a.get('/metrics')).text();
      expect(sample(leaderMetrics, 'oddsbook_cluster_leader', '{role="chain,projector,sequencer"}')).toBe(1);
      expect(sample(leaderMetrics, 'oddsbook_cluster_epoch', '{role="chain,projector,sequencer"}')).toBe(1);
      const standbyMetrics = await (await b.get('/metrics')).text();
      expect(sample(standbyMetrics, 'oddsbook_cluster_leader', '{role="chain,projector,sequencer"}')).toBe(0);
      // The API node's side: the same client `--role api` will use.
      const remote = new RemoteSequencer({ nc, subject: names.submit, deadlineMs: 10_000 });
      await Promise.all(remote.decideAll([fund(1), fund(2), fund(3)]));
      const maker = order(1, true);
      const taker = order(2, false);
      const [made] = await Promise.all(remote.decideAll([maker]));
      const [took] = await Promise.all(remote.decideAll([taker]));
      expect(made!.order).toEqual({ status: 'placed' });
      const matched = took!.entries.at(-1)!.events.find((e) => e.type === 'orderMatched');
      expect(matched).toMatchObject({ makerOrderId: maker.order.orderId, takerOrderId: taker.order.orderId });
      // The leader's other services (its chain, settlement, ...), as an API node asks for them.
      const leader = new LeaderClient({ nc, subject: names.leader, deadlineMs: 10_000 });
      expect(await leader.call('settlement.backlog')).toMatchObject({ queuedItems: expect.any(Number) });
      // The leader's /metrics carries its exchange's figures (commits, queue, projector); a standby's does not.
      const committed = await (await a.get('/metrics')).text();
      expect(sample(committed, 'oddsbook_sequencer_batch_inputs_sum')).toBeGreaterThanOrEqual(5);
      expect(
        sample(committed, 'oddsbook_journal_last_seq', '{role="chain,projector,sequencer"}'),
      ).toBeGreaterThanOrEqual(5);
      expect(await (await b.get('/metrics')).text()).not.toContain('oddsbook_sequencer_batch_inputs');

      const killed = performance.now();
      a.child.kill('SIGKILL');
      await exited(a.child);
      // Sent at once: the client retries until the standby leads (within its 10 s deadline).
      const after = order(3, true);
      const [placed] = await Promise.all(remote.decideAll([after]));
      expect(placed!.order).toEqual({ status: 'placed' });
      console.log(
        `SIGKILL of the leader to the order acknowledged by the standby: ${Math.round(performance.now() - killed)} ms`,
      );
      expect((await b.seen('leader')).epoch).toBe(2);
      // The standby's state was taken over as it was: no checkpoint read, no replay.
      expect(b.output()).toContain("trading state taken over from the standby's");
      // The maker's order sent again to the new leader (a client that lost its answer): answered with the
      // first result (the standby followed it), not placed twice nor refused.
      const [again1] = await Promise.all(remote.decideAll([maker]));
      // (the placing entry, as intake answers from it; not the market's opening that came before it).
      expect(again1!.order).toEqual(made!.order);
      expect(again1!.entries).toEqual([made!.entries.at(-1)]);
      // The new leader serves them too.
      expect(await leader.call('chain.blockNumber')).toEqual(expect.any(Number));

      const { rows } = await db.pool.query<{ seq: number; payload: string }>(
        'SELECT seq, payload FROM journal ORDER BY seq',
      );
      expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
      for (const order of [maker, taker, after]) {
        const placings = rows.filter(
          (r) => r.payload.includes(order.order.orderId) && r.payload.includes('"type":"place"'),
        );
        expect(placings, order.order.orderId).toHaveLength(1);
      }
      // Both leaders published their batches on the stream, as the journal's own rows: each seq once, the
      // killed leader's (up to the kill) and the new one's (from its first seq on).
      const journalRows = async () =>
        (
          await db.pool.query<{ seq: string; ts: string; payload: string }>(
            'SELECT seq, ts, payload FROM journal ORDER BY seq',
          )
        ).rows.map((r) => ({ seq: Number(r.seq), ts: Number(r.ts), payload: r.payload }));
      await expect
        .poll(async () => (await committedRows(nc, names.stream)).at(-1)?.seq, { timeout: 30_000 })
        .toBeGreaterThanOrEqual(rows.length);
      const streamed = await committedRows(nc, names.stream);
      const bySeq = new Map((await journalRows()).map((row) => [row.seq, row]));
      expect(new Set(streamed.map((row) => row.seq)).size).toBe(streamed.length);
      for (const row of streamed) expect(row).toEqual(bySeq.get(row.seq));
      const beforeKill = took!.entries.at(-1)!.seq;
      expect(streamed.some((row) => row.seq <= beforeKill)).toBe(true);
      expect(streamed.some((row) => row.seq > beforeKill)).toBe(true);

      // A sequencer started again after the kill (as a supervisor would) is a standby; a clean stop of the leader (its queue
      // committed, the lease given up, exit 0) hands the lead to it, at the next epoch.
      again = startSequencer(url, cluster);
      await again.seen('standby');
      const code = new Promise<number | null>((resolve) => b!.child.once('exit', (c) => resolve(c)));
      b.child.kill('SIGTERM');
      expect(await code, b.output()).toBe(0);
      expect((await again.seen('leader')).epoch).toBe(3);
      const last = order(1, false);
      const [lastPlaced] = await Promise.all(remote.decideAll([last]));
      expect(lastPlaced!.order).toEqual({ status: 'placed' });

      // The new leader's view: the one stopped cleanly left at once; the killed one's row stays, not alive
      // (for a minute after its last refresh; then it is removed).
      const lastSeq = rows.length + 1;
      await expect
        .poll(
          async () => {
            const nodes = await listing(again!);
            return {
              alive: nodes.filter((n) => n.alive).map((n) => [n.pid, n.state, n.epoch]),
              stopped: nodes.filter((n) => n.pid === b!.pid).length,
              killedAlive: nodes.filter((n) => n.pid === a.pid && n.alive).length,
              seqReached: nodes.some((n) => n.pid === again!.pid && n.lastSeq >= lastSeq),
            };
          },
          { timeout: 30_000 },
        )
        .toEqual({ alive: [[again.pid, 'leader', 3]], stopped: 0, killedAlive: 0, seqReached: true });
      const metrics = await (await again.get('/metrics')).text();
      expect(
        sample(metrics, 'oddsbook_journal_last_seq', '{role="chain,projector,sequencer"}'),
      ).toBeGreaterThanOrEqual(lastSeq);
      expect(sample(metrics, 'oddsbook_cluster_epoch', '{role="chain,projector,sequencer"}')).toBe(3);
    } finally {
      for (const node of [a, b, again]) node?.child.kill('SIGKILL');
      for (const node of [a, b, again]) if (node) await exited(node.child);
      await deleteStreams(nc, [names.stream, names.publicationsStream]);
      await db.close();
    }
  }, 120_000);
});
