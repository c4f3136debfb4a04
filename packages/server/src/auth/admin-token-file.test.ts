import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config/config.js';
import { openExchange } from '../exchange/exchange.js';
import { ADMIN_TOKEN_FILE, storedAdminToken } from './admin-token-file.js';

const root = mkdtempSync(join(tmpdir(), 'oddsbook-admin-token-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the admin token kept in the data dir', () => {
  it('is generated once, readable by its owner only, and the same at every later start', () => {
    const dataDir = mkdtempSync(join(root, 'dir-'));
    const first = storedAdminToken(dataDir);
    expect(first).toMatchObject({ file: join(dataDir, ADMIN_TOKEN_FILE), created: true });
    expect(first.token.length).toBeGreaterThanOrEqual(16);
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    expect(storedAdminToken(dataDir)).toEqual({ ...first, created: false });
  });

  it('refuses a file that holds no usable token', () => {
    const dataDir = mkdtempSync(join(root, 'dir-'));
    writeFileSync(join(dataDir, ADMIN_TOKEN_FILE), 'short\n');
    expect(() => storedAdminToken(dataDir)).toThrow(ConfigError);
    expect(() => storedAdminToken(dataDir)).toThrow(/set ADMIN_TOKEN, or delete the file/);
  });

  it('is what the exchange runs on when ADMIN_TOKEN is unset, and ADMIN_TOKEN wins when set', async () => {
    const dataDir = mkdtempSync(join(root, 'dir-'));
    const env = { DATA_DIR: dataDir, DEMO: '0', LOG_LEVEL: 'silent' };
    const unset = await openExchange(loadConfig([], env), { verifyWorkers: 0 });
    await unset.close();
    const file = join(dataDir, ADMIN_TOKEN_FILE);
    expect(unset.storedAdminToken).toEqual({ file, created: true });
    expect(unset.config.adminToken).toBe(readFileSync(file, 'utf8').trim());

    const given = 'an-operator-token-0123456789';
    const set = await openExchange(loadConfig([], { ...env, ADMIN_TOKEN: given }), { verifyWorkers: 0 });
    await set.close();
    expect(set.config.adminToken).toBe(given);
    expect(set.storedAdminToken).toBeUndefined();
  });
});
