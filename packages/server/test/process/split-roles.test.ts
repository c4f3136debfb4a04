import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterNames } from '../../src/cluster/cluster-names.js';
import { LeaderClient } from '../../src/cluster/remote-leader.js';
import { RemoteSequencer } from '../../src/cluster/remote-sequencer.js';
import { connectNats } from '../../src/cluster/test-support.js';
import { openPostgres } from '../../src/store/postgres/postgres-database.js';
import { createTestDatabase, requirePostgres } from '../../src/store/test-support/postgres-test-database.js';
import { fund, type LogLine, liveOrder, startRoleProcess } from '../helpers/role-process.js';

await requirePostgres();
const database = await createTestDatabase();
const dirs: string[] = [];
const children: ChildProcess[] = [];
let nc: NatsConnection;
beforeAll(async () => {
  nc = await connectNats();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await nc?.close();
  await database.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `oddsbook serve --role <roles>` in a child process, its JSON log lines collected. */
const startRoles = (roles: string, url: string, cluster: string) =>
  startRoleProcess(roles, {
    url,
    cluster,
    dirs,
    children,
    env: { ADMIN_TOKEN: 'split-roles-operator-token-0123456789', BLOCK_TIME_MS: '50' },
  });

const leads = (role: string) => (l: LogLine) => l.role === role && l.state === 'leader';
const stands = (role: string) => (l: LogLine) => l.role === role && l.state === 'standby';

const order = (who: number, one: boolean) => liveOrder(who, one);

describe('oddsbook serve --role projector,chain', () => {
  it('beside serve --role sequencer: fills are projected and settled; a SIGKILL of the node hands both roles to a standby, which catches up', async () => {
    const url = await database.schema();
    const db = await openPostgres({ url, poolSize: 2 });
    const cluster = `t${randomBytes(6).toString('hex')}`;
    const names = clusterNames(cluster);
    try {
      const sequencer = startRoles('sequencer', url, cluster);
      expect((await sequencer.seen((l) => l.state === 'leader', 'leader')).epoch).toBe(1);
      const a = startRoles('projector,chain', url, cluster);
      expect((await a.seen(leads('projector'), 'projector leading')).epoch).toBe(1);
      expect((await a.seen(leads('chain'), 'chain leading')).epoch).toBe(1);
      const b = startRoles('projector,chain', url, cluster);
      await b.seen(stands('projector'), 'projector standby');
      await b.seen(stands('chain'), 'chain standby');

      const remote = new RemoteSequencer({ nc, subject: names.submit, deadlineMs: 10_000 });
      const leader = new LeaderClient({ nc, subject: names.leader, deadlineMs: 10_000 });
      const trades = async () => Number((await db.pool.query('SELECT count(*) AS n FROM trades')).rows[0].n);
      const fill = async (maker: number, taker: number) => {
        await Promise.all(remote.decideAll([order(maker, true)]));
        const [took] = await Promise.all(remote.decideAll([order(taker, false)]));
        expect(took!.entries.at(-1)!.events.some((e) => e.type === 'orderMatched')).toBe(true);
      };
      const reconciled = async () => {
        const run = (await leader.call('reconciliation.run')) as {
          report: { accounts: number; differences: unknown[]; totals: { engine: bigint; chain: bigint } };
        } | null;
        expect(run?.report.accounts).toBeGreaterThanOrEqual(4);
        expect(run?.report.differences).toEqual([]);
        expect(run?.report.totals.chain).toBe(run?.report.totals.engine);
      };
      await Promise.all(remote.decideAll([fund(1), fund(2), fund(3), fund(4)]));
      await fill(1, 2);
      await expect.poll(trades, { timeout: 30_000 }).toBe(2);
      await reconciled();

      a.child.kill('SIGKILL');
      await fill(3, 4);
      expect((await b.seen(leads('projector'), 'projector leading')).epoch).toBe(2);
      expect((await b.seen(leads('chain'), 'chain leading')).epoch).toBe(2);
      await expect.poll(trades, { timeout: 30_000 }).toBe(4);
      await reconciled();
      // The journal holds each fill once.
      const { rows } = await db.pool.query<{ payload: string }>('SELECT payload FROM journal');
      expect(rows.filter((r) => r.payload.includes('"type":"place"'))).toHaveLength(4);
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      const jsm = await jetstreamManager(nc);
      for (const stream of [names.stream, names.publicationsStream])
        await jsm.streams.delete(stream).catch(() => {});
      await db.close();
    }
  }, 180_000);
});
