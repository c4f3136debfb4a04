import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUse, LOCK_FILE, lockDataDir } from './data-dir-lock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir() {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbook-lock-'));
  dirs.push(dir);
  return dir;
}

describe('data dir lock', () => {
  it('refuses a second holder with a clear error, and is free again once released', () => {
    const dir = dataDir();
    const release = lockDataDir(dir);
    // One file, no journal beside it: with DATABASE_URL it is all the data dir holds.
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    expect(() => lockDataDir(dir)).toThrow(DataDirInUse);
    expect(() => lockDataDir(dir)).toThrow(/in use by another oddsbook process/);
    release();
    release();
    lockDataDir(dir)();
  });

  it('is dropped by the operating system when its process is killed (SIGKILL)', async () => {
    const dir = dataDir();
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    // Another process takes the lock as the exchange does, says so, and stays.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D = require(${JSON.stringify(driver)});
         const db = new D(${JSON.stringify(join(dir, LOCK_FILE))}, { timeout: 0 });
         db.exec('BEGIN EXCLUSIVE');
         console.log('locked');
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    expect(() => lockDataDir(dir)).toThrow(DataDirInUse);
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    lockDataDir(dir)();
  });
});
