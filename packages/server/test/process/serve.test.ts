import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runCli } from '../helpers/cli-process.js';
import { removeDataDir } from '../helpers/test-exchange.js';
import { withTestStore } from '../helpers/test-store.js';

const serverDir = fileURLToPath(new URL('../..', import.meta.url));
const cli = ['--import', 'tsx', 'src/cli.ts'];

/** Runs the CLI without blocking this worker: a loaded machine takes seconds per start. */
const run = (args: string[], env: Record<string, string>) => runCli(args, env);

/** Starts `oddsbook serve` as a real process and resolves once it listens. */
async function serve(env: Record<string, string>): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [...cli, 'serve'], {
    cwd: serverDir,
    env: { ...process.env, ...(await withTestStore(env)) },
  });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 90_000);
    const check = setInterval(() => {
      if (output.includes('oddsbook is up')) {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      }
    }, 50);
    child.once('exit', () => reject(new Error(`server exited:\n${output}`)));
  });
  return { child, output: () => output };
}

describe('the oddsbook process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-process-'));
  afterAll(() => removeDataDir(dataDir));

  it('rejects bad configuration with a clear message and exit code 2', async () => {
    const result = await run(['serve', '--port', 'eighty'], {});
    expect(result.status).toBe(2);
    // Named as the operator gave it: the flag, or the variable.
    expect(result.stderr).toMatch(/--port must be an integer, got "eighty"/);
    expect((await run(['serve'], { PORT: 'eighty' })).stderr).toMatch(
      /PORT must be an integer, got "eighty"/,
    );
    expect((await run(['serve', '--admin-token', 'short'], {})).stderr).toMatch(
      /--admin-token must be at least 16/,
    );
    const network = await run(['serve'], { NETWORK: 'moon' });
    expect(network.stderr).toMatch(/NETWORK must be mainnet or testnet/);
    const history = await run(['serve'], { REALTIME_HISTORY_MAX: '10' });
    expect(history.status).toBe(2);
    expect(history.stderr).toMatch(/REALTIME_HISTORY_MAX must be/);
    const flag = await run(['serve', '--bogus'], {});
    expect(flag.status).toBe(2);
    expect((await run(['serve', '--help'], {})).stdout).toMatch(/--data-dir\s+DATA_DIR/);
  }, 180_000);

  it('creates, lists and revokes keys from the CLI', async () => {
    const env = { DATA_DIR: dataDir, DEMO: '0' };
    const created = await run(
      ['keys', 'create', '0x52908400098527886e0f7030069857d2e4169ee7', '--label', 'cli'],
      env,
    );
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/0x52908400098527886E0F7030069857D2E4169EE7/);
    const keyId = /key id: (\S+)/.exec(created.stdout)![1]!;
    expect((await run(['keys', 'list', '0x52908400098527886E0F7030069857D2E4169EE7'], env)).stdout).toMatch(
      new RegExp(`${keyId}.*active.*cli`),
    );
    expect((await run(['keys', 'revoke', keyId], env)).stdout).toMatch(/Revoked/);
    expect((await run(['keys', 'revoke', 'nope'], env)).status).toBe(1);
    expect((await run(['keys', 'create', '0x1234'], env)).stderr).toMatch(/not a valid address/);
  }, 180_000);

  it('serves, prints a generated admin token at its creation, and drains on SIGTERM', async () => {
    const port = String(await freePort());
    const { child, output } = await serve({ DATA_DIR: dataDir, PORT: port, DEMO: '0', ADMIN_TOKEN: '' });
    const token = /ADMIN_TOKEN was not set; generated the operator token.*\n(\S+)/.exec(output())?.[1];
    expect(token).toBeTruthy();
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    const key = await fetch(`http://127.0.0.1:${port}/admin/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-token': token! },
      body: JSON.stringify({ address: '0x52908400098527886E0F7030069857D2E4169EE7' }),
    });
    expect(key.status).toBe(200);
    // A second exchange on the same data dir refuses to start, and the first goes on serving.
    const second = await run(['serve'], {
      DATA_DIR: dataDir,
      PORT: String(Number(port) + 1),
      DEMO: '0',
      ADMIN_TOKEN: '',
    });
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(/data dir .* is in use by another oddsbook process/);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    // Keys are written through the running server, which authenticates from the keys it holds in memory.
    const cliCreate = await run(['keys', 'create', '0x52908400098527886E0F7030069857D2E4169EE7'], {
      DATA_DIR: dataDir,
    });
    expect(cliCreate.status).toBe(1);
    expect(cliCreate.stderr).toMatch(/An exchange is running on .*: create the key through its admin API/);
    expect(
      (await run(['keys', 'list', '0x52908400098527886E0F7030069857D2E4169EE7'], { DATA_DIR: dataDir }))
        .status,
    ).toBe(0);
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(output()).toMatch(/stopped cleanly/);
  }, 180_000);
});
