import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { withTestStore } from './test-store.js';

const serverDir = fileURLToPath(new URL('../..', import.meta.url));
const repoDir = fileURLToPath(new URL('../../../..', import.meta.url));

/** Node flags that run the `oddsbook` CLI from sources; `preload` adds a `--require` before it. */
function nodeArgs(args: readonly string[], preload?: string): string[] {
  return [...(preload ? ['--require', preload] : []), '--import', 'tsx', 'src/cli.ts', ...args];
}

export type CliResult = {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
};

/**
 * Runs `oddsbook <args>` to its end (killed after `timeoutMs`: then `signal` says so); with `cwd` another
 * workspace package's `src/cli.ts` (the client's `oddsbook-client`).
 */
export async function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  options: { preload?: string; timeoutMs?: number; cwd?: string } = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, nodeArgs(args, options.preload), {
    cwd: options.cwd ?? serverDir,
    env: { ...process.env, ...(await withTestStore(env)) },
    timeout: options.timeoutMs ?? 90_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) =>
    child.once('close', (status, signal) => resolve({ status, signal, stdout, stderr })),
  );
}

/** A JSON log line of the server: its message and its fields. */
export type JsonLogLine = { msg?: string; [field: string]: unknown };

/**
 * A child's output, stdout and stderr together, and the JSON log lines of its stdout as they come; `seen`
 * waits for a line.
 */
export function followOutput<Line extends object = JsonLogLine>(child: ChildProcess) {
  const lines: Line[] = [];
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
  /** The first line that matches, within `timeoutMs`; fails with the output if the process ends first. */
  const seen = async (match: (line: Line) => boolean, what: string, timeoutMs = 60_000): Promise<Line> => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = lines.find(match);
      if (found) return found;
      if (performance.now() > deadline || child.exitCode !== null || child.signalCode !== null)
        throw new Error(`no ${what}; its output:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { lines, output: () => output, seen };
}

export type ServingProcess = {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Its JSON log lines so far. */
  lines: JsonLogLine[];
  /** Its base URL, read from its "oddsbook is up" log line. */
  url: string;
  /** Sends `signal` (SIGTERM by default), and resolves with its exit code (null when a signal ended it). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
};

/**
 * Starts `oddsbook serve` on a port of the system's choosing (unless `env` names PORT), and resolves once
 * it listens.
 */
export async function startServe(
  env: Record<string, string>,
  options: { preload?: string } = {},
): Promise<ServingProcess> {
  const child = spawn(process.execPath, nodeArgs(['serve'], options.preload), {
    cwd: serverDir,
    env: { ...process.env, PORT: '0', DEMO: '0', ...(await withTestStore(env)) },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const { lines, output, seen } = followOutput(child);
  const up = await seen(
    (line) => line.msg === 'oddsbook is up' && typeof line.address === 'string',
    '"oddsbook is up" from the server',
    90_000,
  );
  return {
    child,
    output,
    lines,
    url: up.address as string,
    stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

/**
 * Runs `examples/<name>.ts` as a process of its own (as `npx tsx examples/<name>.ts` does), without the
 * ODDSBOOK_API_KEY or ODDSBOOK_PRIVATE_KEY of the environment the tests run in.
 */
export function startExample(name: string, args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', `examples/${name}.ts`, ...args], {
    cwd: repoDir,
    env: { ...process.env, ODDSBOOK_API_KEY: '', ODDSBOOK_PRIVATE_KEY: '', ...env },
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited, lines: () => output.split('\n').filter(Boolean) };
}

export { freePort } from '../../src/lib/test-support.js';
