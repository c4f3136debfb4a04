import { type ChildProcess, spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { withTestStore } from './test-store.js';

const serverDir = fileURLToPath(new URL('../..', import.meta.url));

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

export type ServingProcess = {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Its base URL, read from its "oddsbook is up" log line. */
  url: string;
  /** SIGTERM, and its exit code. */
  stop(): Promise<number | null>;
};

/** Starts `oddsbook serve` on a port of the system's choosing, and resolves once it listens. */
export async function startServe(
  env: Record<string, string>,
  options: { preload?: string } = {},
): Promise<ServingProcess> {
  const child = spawn(process.execPath, nodeArgs(['serve'], options.preload), {
    cwd: serverDir,
    env: { ...process.env, PORT: '0', DEMO: '0', ...(await withTestStore(env)) },
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const address = /"address":"(http:[^"]+)".*"msg":"oddsbook is up"/.exec(output)?.[1];
      if (address) {
        clearTimeout(timer);
        resolve(address);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited:\n${output}`));
    });
  });
  return {
    child,
    output: () => output,
    url,
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * A loopback port the system has just handed out as free (listened on and closed at once): a server
 * started on it right after is unlikely to meet another test's server there, which a random pick can.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
