import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterNames } from '../../src/cluster/cluster-names.js';
import { LeaderClient } from '../../src/cluster/remote-leader.js';
import { RemoteSequencer } from '../../src/cluster/remote-sequencer.js';
import { account, connectNats, orderIntent, TEST_NATS_URL, usd } from '../../src/cluster/test-support.js';
import type { Intent } from '../../src/sequencer/intents.js';
import { openPostgres } from '../../src/store/postgres/postgres-database.js';
import { createTestDatabase, requirePostgres } from '../../src/store/test-support/postgres-test-database.js';

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

const serverDir = fileURLToPath(new URL('../..', import.meta.url));
type LogLine = { msg?: string; state?: string; epoch?: number; role?: string };

/** `oddsbook serve --role <roles>` in a child process, its JSON log lines collected. */
function startRoles(roles: string, url: string, cluster: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-split-'));
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
      PORT: '0',
      ADMIN_TOKEN: 'split-roles-operator-token-0123456789',
      BLOCK_TIME_MS: '50',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: LogLine[] = [];
  let output = '';
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk;
    buffered += chunk.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const line of parts) if (line.startsWith('{')) lines.push(JSON.parse(line));
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  const seen = async (match: (l: LogLine) => boolean, what: string) => {
    const deadline = performance.now() + 60_000;
    for (;;) {
      const found = lines.find(match);
      if (found) return found;
      if (performance.now() > deadline || child.exitCode !== null)
        throw new Error(`no ${what} from ${roles}; its output:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { child, seen };
}

const leads = (role: string) => (l: LogLine) => l.role === role && l.state === 'leader';
const stands = (role: string) => (l: LogLine) => l.role === role && l.state === 'standby';

function order(who: number, one: boolean) {
  const intent = orderIntent(account(who), { one });
  return { ...intent, order: { ...intent.order, expiry: Math.floor(Date.now() / 1000) + 3600 } };
}
const fund = (n: number): Intent => ({
  kind: 'input',
  input: { kind: 'engine', command: { type: 'credit', account: account(n), amount: usd(1_000) } },
});

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
