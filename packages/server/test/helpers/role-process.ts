import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { account, orderIntent, TEST_NATS_URL, usd } from '../../src/cluster/test-support.js';
import type { Intent } from '../../src/sequencer/intents.js';

const serverDir = fileURLToPath(new URL('../..', import.meta.url));

export type LogLine = { msg?: string; state?: string; epoch?: number; role?: string; port?: number };

/**
 * `oddsbook serve --role <roles>` in a child process on `url` and the test NATS (cluster `cluster`), with a
 * data dir of its own (pushed on `dirs`) and PORT 0; its JSON log lines collected. The child is pushed on
 * `children` for the file's afterAll to kill.
 */
export function startRoleProcess(
  roles: string,
  o: { url: string; cluster: string; dirs: string[]; children: ChildProcess[]; env?: Record<string, string> },
) {
  const dataDir = mkdtempSync(join(tmpdir(), `oddsbook-${roles.split(',')[0]}-`));
  o.dirs.push(dataDir);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--role', roles], {
    cwd: serverDir,
    env: {
      ...process.env,
      DATABASE_URL: o.url,
      NATS_URL: TEST_NATS_URL,
      DATA_DIR: dataDir,
      DEMO: '0',
      CLUSTER: o.cluster,
      PORT: '0',
      ...o.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  o.children.push(child);
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
  /** The first log line that matches, within 60 s; fails with the output if the process exits first. */
  const seen = async (match: (line: LogLine) => boolean, what: string) => {
    const deadline = performance.now() + 60_000;
    for (;;) {
      const found = lines.find(match);
      if (found) return found;
      if (performance.now() > deadline || child.exitCode !== null)
        throw new Error(`no ${what} from ${roles}; its output:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const exit = () =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null) resolve(child.exitCode);
      else child.once('exit', (code) => resolve(code));
    });
  return { child, seen, exit, output: () => output };
}

/** An order as intake hands it on, expiring an hour from now (the leader runs on the real clock). */
export function liveOrder(who: number, one: boolean, market?: string) {
  const intent = orderIntent(account(who), { one, ...(market ? { market } : {}) });
  return { ...intent, order: { ...intent.order, expiry: Math.floor(Date.now() / 1000) + 3600 } };
}

/** 1,000 USD credited to account `n`. */
export const fund = (n: number): Intent => ({
  kind: 'input',
  input: { kind: 'engine', command: { type: 'credit', account: account(n), amount: usd(1_000) } },
});
