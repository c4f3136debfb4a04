import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../store/postgres/postgres-database.js';
import { createTestDatabase, requirePostgres } from '../store/test-support/postgres-test-database.js';

await requirePostgres();
const database = await createTestDatabase();
afterAll(() => database.drop());

const serverDir = fileURLToPath(new URL('../..', import.meta.url));
const script = fileURLToPath(new URL('./test-support/sequencer-node-process.ts', import.meta.url));

type Event = { event: string; node: string; seq?: number; epoch?: number; at: number };

/** A sequencer node in a child process, its JSON lines collected with the time each arrived. */
function startProcess(url: string, node: string, leaseKey: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: serverDir,
    env: { ...process.env, DATABASE_URL: url, NODE_NAME: node, LEASE_KEY: leaseKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Event[] = [];
  let stderr = '';
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) if (line) events.push({ ...JSON.parse(line), at: performance.now() });
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const seen = async (event: string): Promise<Event> => {
    const deadline = performance.now() + 30_000;
    for (;;) {
      const found = events.find((e) => e.event === event);
      if (found) return found;
      if (performance.now() > deadline || child.exitCode !== null)
        throw new Error(`no ${event} from node ${node}; its stderr: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { child, events, seen };
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

describe('a cluster sequencer in processes of its own', () => {
  it('trading resumes on the standby after a SIGKILL of the leader; every acknowledged input is journaled once', async () => {
    const url = await database.schema();
    const db = await openPostgres({ url, poolSize: 2 });
    const a = startProcess(url, 'a', '77');
    let b: ReturnType<typeof startProcess> | null = null;
    try {
      await a.seen('leading');
      b = startProcess(url, 'b', '77');
      await b.seen('standby');
      await expect
        .poll(() => a.events.filter((e) => e.event === 'ack').length, { timeout: 30_000 })
        .toBeGreaterThan(20);

      const killed = performance.now();
      a.child.kill('SIGKILL');
      await exited(a.child);
      const leading = await b.seen('leading');
      const firstAck = await b.seen('ack');
      const resumedMs = firstAck.at - killed;
      console.log(
        `SIGKILL of the leader to the standby leading: ${Math.round(leading.at - killed)} ms; ` +
          `to its first acknowledged input: ${Math.round(resumedMs)} ms`,
      );
      expect(resumedMs).toBeLessThan(15_000);
      expect(leading.epoch).toBe(2);
      await expect
        .poll(() => b!.events.filter((e) => e.event === 'ack').length, { timeout: 30_000 })
        .toBeGreaterThan(10);

      const { rows } = await db.pool.query<{ seq: number; payload: string }>(
        'SELECT seq, payload FROM journal ORDER BY seq',
      );
      // No gap, no duplicate.
      expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
      const bySeq = new Map(rows.map((r) => [r.seq, r.payload]));
      // Every input acknowledged by either leader is in the journal, as its own.
      for (const ack of [...a.events, ...b.events].filter((e) => e.event === 'ack')) {
        expect(bySeq.get(ack.seq!), `seq ${ack.seq} acknowledged by ${ack.node}`).toContain(
          `"account":"${ack.node}"`,
        );
      }
    } finally {
      a.child.kill('SIGKILL');
      b?.child.kill('SIGKILL');
      await exited(a.child);
      if (b) await exited(b.child);
      await db.close();
    }
  }, 90_000);
});
