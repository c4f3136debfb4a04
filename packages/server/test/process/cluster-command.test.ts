import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterNames } from '../../src/cluster/cluster-names.js';
import { connectNats, natsClients, TEST_NATS_URL } from '../../src/cluster/test-support.js';
import { requirePostgres, TEST_POSTGRES_URL } from '../../src/store/test-support/postgres-test-database.js';
import { runCli } from '../helpers/cli-process.js';
import { admin, CLUSTER_ADMIN_TOKEN, call, until } from '../helpers/cluster-http.js';

/** `oddsbook cluster`, the real CLI: its refusals, and a run with a node killed, restarted and a clean stop. */
await requirePostgres();
const serverDir = fileURLToPath(new URL('../..', import.meta.url));
const name = `oddsbook_cmd_${Math.random().toString(36).slice(2, 10)}`;

async function dropDatabase(): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
afterAll(async () => {
  await dropDatabase();
  const nc = await connectNats();
  try {
    const { jsm } = await natsClients(nc);
    const names = clusterNames(name.replaceAll('_', '-'));
    for (const stream of [names.stream, names.publicationsStream])
      await jsm.streams.delete(stream).catch(() => {});
  } finally {
    await nc.close();
  }
});

const server = new URL(TEST_POSTGRES_URL);

describe('oddsbook cluster', () => {
  it('refuses bad settings with exit 2, naming them; --help prints its usage', async () => {
    const help = await runCli(['cluster', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: oddsbook cluster');
    const cases: [string[], Record<string, string>, string][] = [
      [['--port', 'x'], {}, '--port must be 0 or a port'],
      [['--nats-url', 'http://127.0.0.1:4222'], {}, '--nats-url must be a nats:// URL'],
      [['--cluster', 'Bad_Name'], {}, '--cluster must be lower-case'],
      [['--database', 'x;y'], {}, '--database must be a plain database name'],
      [['--nats-url', 'nats://127.0.0.1:1'], {}, 'NATS at nats://127.0.0.1:1 does not answer'],
      [
        ['--database-url', 'postgres://postgres@127.0.0.1:1/x', '--nats-url', TEST_NATS_URL],
        {},
        'does not answer',
      ],
      [['--frobnicate'], {}, "Unknown option '--frobnicate'"],
    ];
    for (const [args, env, message] of cases) {
      const result = await runCli(['cluster', ...args], { DATABASE_URL: '', ...env });
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(message);
    }
  }, 60_000);

  it('creates its database, starts the nodes and prints them; a node killed is started again; SIGTERM stops all, exit 0', async () => {
    const databaseUrl = new URL(server);
    databaseUrl.pathname = `/${name}`;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'cluster', '--port', '0', '--database-url', databaseUrl.toString()],
      {
        cwd: serverDir,
        env: {
          ...process.env,
          NATS_URL: TEST_NATS_URL,
          CLUSTER: name.replaceAll('_', '-'),
          ADMIN_TOKEN: CLUSTER_ADMIN_TOKEN,
          DEMO: '0',
          RATE_LIMITS: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await until(
        () => output.includes('Ctrl-C stops the cluster') || child.exitCode !== null,
        120_000,
        'the table',
      );
      expect(output).toContain(`Created the database ${name}`);
      // The table: seven nodes, each with its pid and address.
      const rows = output
        .split('\n')
        .map((line) =>
          /^(sequencer-\d|projector-\d|chain-\d|api-\d|realtime-\d)\s+(\w+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(
            line,
          ),
        )
        .filter((m) => m !== null)
        .map((m) => ({ name: m[1]!, role: m[2]!, pid: Number(m[3]), address: m[4]!, state: m[5]! }));
      expect(rows.map((r) => [r.name, r.role])).toEqual([
        ['sequencer-1', 'sequencer'],
        ['sequencer-2', 'sequencer'],
        ['projector-1', 'projector'],
        ['chain-1', 'chain'],
        ['api-1', 'api'],
        ['api-2', 'api'],
        ['realtime-1', 'realtime'],
      ]);
      expect(rows[0]!.state).toContain('leader, epoch 1');
      expect(rows.find((r) => r.name === 'projector-1')!.state).toContain('leader, epoch 1');
      expect(rows.find((r) => r.name === 'chain-1')!.state).toContain('leader, epoch 1');
      const api = `http://${rows[4]!.address}`;
      expect(output).toContain(`${api}/admin/cluster`);
      // Every node is in cluster_nodes (each registers once it listens).
      await expect
        .poll(
          async () =>
            ((await call(api, 'GET', '/admin/cluster', undefined, admin)).body.data as { pid: number }[])
              .map((n) => n.pid)
              .sort(),
          { timeout: 10_000 },
        )
        .toEqual(rows.map((r) => r.pid).sort());

      // The supervisor: an API node killed from outside is started again, on its address.
      process.kill(rows[5]!.pid, 'SIGKILL');
      await until(() => output.includes('api-2 started again'), 60_000, 'api-2 started again');
      expect((await call(`http://${rows[5]!.address}`, 'GET', '/health')).status).toBe(200);
      const restarted = Number(/api-2 started again: pid (\d+)/.exec(output)![1]);

      child.kill('SIGTERM');
      expect(await exited, output).toBe(0);
      expect(output).toContain('stopped');
      // No node left behind.
      for (const pid of [...rows.map((r) => r.pid), restarted])
        expect(() => process.kill(pid, 0), String(pid)).toThrow();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 150_000);
});
