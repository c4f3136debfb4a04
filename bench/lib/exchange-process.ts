import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { OrderDomain } from '@oddsbook/protocol';
import { call } from './exchange-call.js';
import type { BenchTrader } from './order-fixtures.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A server started as a child process of the bench, with its CPU time, storage writes and memory from /proc. */
export type Child = {
  child: ChildProcess;
  base: string;
  output: () => string;
  cpuSeconds: () => number;
  writeBytes: () => number;
  /** Resident set size in bytes (/proc/<pid>/status VmRSS). */
  rssBytes: () => number;
  /** CPU seconds of each thread by thread id (/proc/<pid>/task; the main thread's id is the pid). */
  threadCpuSeconds: () => Map<number, number>;
};

/** CPU seconds of each thread of a process by thread id (/proc/<pid>/task; the main thread's id is the pid). */
export function procThreadCpuSeconds(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`))
      out.set(Number(tid), procCpuSeconds(pid, Number(tid)));
  } catch {
    // gone
  }
  return out;
}

/** Bytes the process caused to be written to storage (/proc/<pid>/io `write_bytes`). */
function procWriteBytes(pid: number): number {
  try {
    return Number(/write_bytes: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds (user + system) of a process, or of one of its threads (/proc/<pid>/stat). */
export function procCpuSeconds(pid: number, tid?: number): number {
  try {
    const file = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
    const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, clock ticks
  } catch {
    return Number.NaN;
  }
}

function procRssBytes(pid: number): number {
  try {
    return (
      1024 * Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN)
    );
  } catch {
    return Number.NaN;
  }
}

/**
 * Starts `node <args>` from the repository root (or `cwd`, another checkout) and waits until its /health
 * answers.
 */
export async function startChild(
  args: string[],
  env: Record<string, string>,
  port: number,
  cwd = root,
): Promise<Child> {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env } });
  // A bench that dies must not leave a server behind, loading the machine under the next run.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const r = await fetch(`${base}/health`);
      if (r.status < 500) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`child did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    base,
    output: () => output,
    cpuSeconds: () => procCpuSeconds(child.pid!),
    writeBytes: () => procWriteBytes(child.pid!),
    rssBytes: () => procRssBytes(child.pid!),
    threadCpuSeconds: () => procThreadCpuSeconds(child.pid!),
  };
}

export async function stopChild(c: Child): Promise<void> {
  if (c.child.exitCode !== null) return;
  const exited = new Promise((r) => c.child.once('exit', r));
  c.child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  if (c.child.exitCode === null) c.child.kill('SIGKILL');
}

// Below the ephemeral range (Linux: 32768-60999), so no outgoing connection holds the port already.
export const randomPort = () => 10_000 + Math.floor(Math.random() * 20_000);

/**
 * The exchange's command line, as `npm start` runs it (from sources through tsx, or the built
 * `packages/server/bin/oddsbook.js` with `dist`), after the given Node flags.
 */
export const exchangeArgs = (flags: readonly string[], dist: boolean): string[] =>
  dist
    ? [...flags, 'packages/server/bin/oddsbook.js', 'serve']
    : [...flags, '--import', 'tsx', 'packages/server/src/cli.ts', 'serve'];

/**
 * The exchange's environment for a bench: no rate limits, no demo data, warnings only, and
 * MAX_CONNECTIONS_PER_ADDRESS=10000, as every connection of the load generator comes from one address.
 */
export const exchangeEnv = (dataDir: string, port: number, adminToken: string): Record<string, string> => ({
  DATA_DIR: dataDir,
  PORT: String(port),
  ADMIN_TOKEN: adminToken,
  RATE_LIMITS: '0',
  MAX_CONNECTIONS_PER_ADDRESS: '10000',
  DEMO: '0',
  LOG_LEVEL: 'warn',
});

/**
 * Creates `markets` markets (one league, a fixture each) and sets the traders up through the HTTP API: an API
 * key each, a deployed proxy, and `funds` base units from the faucet. Fills in each trader's `apiKey`.
 */
export async function setUpExchange(
  base: string,
  traders: BenchTrader[],
  options: {
    adminToken: string;
    markets: number;
    funds: bigint;
    /** The fixtures' game time, unix seconds (default: a day from now). */
    gameTime?: number;
  },
) {
  const admin = { 'x-admin-token': options.adminToken };
  const { leagueId } = await call(
    base,
    'POST',
    '/admin/leagues',
    { sportId: 5, label: 'Bench League' },
    admin,
  );
  const marketHashes: string[] = [];
  for (let m = 0; m < options.markets; m++) {
    const { eventId } = await call(
      base,
      'POST',
      '/admin/fixtures',
      {
        leagueId,
        teamOneName: `Alpha ${m}`,
        teamTwoName: `Beta ${m}`,
        gameTime: options.gameTime ?? Math.floor(Date.now() / 1000) + 86_400,
      },
      admin,
    );
    const market = await call(
      base,
      'POST',
      '/admin/markets',
      { eventId, type: 52, outcomeOneName: `Alpha ${m}`, outcomeTwoName: `Beta ${m}` },
      admin,
    );
    marketHashes.push(market.marketHash as string);
  }
  const metadata = await call(base, 'GET', '/metadata/obv3');
  const domain = metadata.domain as OrderDomain;
  const baseToken = (metadata.activeAsset as { baseToken: string }).baseToken;
  for (const t of traders) {
    const key = await call(base, 'POST', '/admin/api-keys', { address: t.address }, admin);
    t.apiKey = key.apiKey as string;
    await call(base, 'POST', '/user/deploy-proxy', undefined, { 'x-svc-api-key': t.apiKey });
  }
  for (const t of traders) {
    for (;;) {
      const proxy = await call(base, 'GET', '/user/proxy', undefined, { 'x-svc-api-key': t.apiKey });
      if (proxy.deployed) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await call(
      base,
      'POST',
      '/admin/faucet',
      { address: t.address, amount: options.funds.toString() },
      admin,
    );
  }
  return { marketHashes, domain, baseToken };
}
