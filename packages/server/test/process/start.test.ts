import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN_FILE } from '../../src/auth/admin-token-file.js';
import { type CliResult, runCli, startServe } from '../helpers/cli-process.js';
import { removeDataDir } from '../helpers/test-exchange.js';

const noNativeCrypto = fileURLToPath(new URL('./fixtures/no-native-crypto.cjs', import.meta.url));

/** The status of an operator request (an API key issued) with `token`. */
async function adminStatus(url: string, token: string): Promise<number> {
  const response = await fetch(`${url}/admin/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-admin-token': token },
    body: JSON.stringify({ address: '0x52908400098527886E0F7030069857D2E4169EE7' }),
  });
  return response.status;
}

/** One line on stderr naming the setting, and exit code 2. */
function expectRefused(result: CliResult, message: RegExp): void {
  expect(result.signal, result.stderr).toBeNull();
  expect(result.status, result.stderr).toBe(2);
  expect(result.stderr.split('\n')[0]).toMatch(/^oddsbook: /);
  expect(result.stderr).toMatch(message);
}

describe('starting the oddsbook process', () => {
  const root = mkdtempSync(join(tmpdir(), 'oddsbook-start-'));
  afterAll(() => removeDataDir(root));

  it('refuses a data dir under /proc at once (it spun a core forever, printing nothing)', async () => {
    // mkdir answers ENOENT there, and Node's recursive mkdir retried it without end (checked).
    const result = await runCli(['serve'], { DATA_DIR: '/proc/nope/data' }, { timeoutMs: 60_000 });
    expectRefused(result, /DATA_DIR \/proc\/nope\/data cannot be created/);
  }, 90_000);

  it('keeps a generated admin token in the data dir (mode 0600) and says where it is on later starts', async () => {
    const dataDir = join(root, 'admin-token');
    const first = await startServe({ DATA_DIR: dataDir, ADMIN_TOKEN: '' });
    const file = join(dataDir, ADMIN_TOKEN_FILE);
    let token: RegExpExecArray | null;
    try {
      token = /generated the operator token, kept in (\S+) \(mode 0600\).*\n(\S+)/.exec(first.output());
      expect(token?.[1]).toBe(file);
      expect(readFileSync(file, 'utf8').trim()).toBe(token?.[2]);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // Which signature crypto runs is said at start.
      expect(first.output()).toMatch(
        /"crypto":\{"secp256k1":"native","keccak":"native"\}.*"msg":"oddsbook is up"/,
      );
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const second = await startServe({ DATA_DIR: dataDir, ADMIN_TOKEN: '' });
    try {
      expect(second.output()).toContain(`the operator token is the one kept in ${file}`);
      expect(second.output()).not.toContain(token![2]!);
      expect(await adminStatus(second.url, token![2]!)).toBe(200);
      expect(await adminStatus(second.url, '')).toBe(401);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  }, 240_000);

  it('refuses to start on pure-JS secp256k1 or keccak unless ALLOW_SLOW_CRYPTO is set', async () => {
    const dataDir = join(root, 'slow-crypto');
    const refused = await runCli(['serve'], { DATA_DIR: dataDir }, { preload: noNativeCrypto });
    expectRefused(refused, /secp256k1 and keccak would run on pure JavaScript .*No native build was found/);
    expect(refused.stderr).toMatch(/set ALLOW_SLOW_CRYPTO=1 to start anyway/);
    expect(existsSync(dataDir)).toBe(false);

    const allowed = await startServe(
      { DATA_DIR: dataDir, ALLOW_SLOW_CRYPTO: '1' },
      { preload: noNativeCrypto },
    );
    try {
      expect(allowed.output()).toMatch(/"crypto":\{"secp256k1":"js","keccak":"js"\}.*"msg":"oddsbook is up"/);
      expect(allowed.output()).toMatch(/pure-JS signature crypto allowed by ALLOW_SLOW_CRYPTO/);
    } finally {
      expect(await allowed.stop()).toBe(0);
    }
  }, 240_000);
});
