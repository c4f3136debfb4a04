import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { account, orderIntent, TEST_NATS_URL, usd } from '../../src/cluster/test-support.js';
import type { Intent } from '../../src/sequencer/intents.js';
import { followOutput } from './cli-process.js';

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
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const { seen, output } = followOutput<LogLine>(child);
  return {
    child,
    /** The first log line that matches, within 60 s; fails with the output if the process exits first. */
    seen: (match: (line: LogLine) => boolean, what: string) => seen(match, `${what} from ${roles}`),
    exit: () => exited,
    output,
  };
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
