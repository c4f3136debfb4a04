import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const webDir = fileURLToPath(new URL('..', import.meta.url));
const packagesDir = fileURLToPath(new URL('../..', import.meta.url));
const LOCK = join(webDir, '.build-lock');
/** A lock older than this was left by a test process that died mid-build. */
const STALE_LOCK_MS = 5 * 60_000;
const WAIT_MS = 10 * 60_000;

/** What the pages are built from: their own sources and the workspace packages Vite bundles from source. */
const SOURCES = [
  join(webDir, 'src'),
  join(webDir, 'index.html'),
  join(webDir, 'vite.config.ts'),
  join(packagesDir, 'client/src'),
  join(packagesDir, 'protocol/src'),
];

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, name)));
  return newest;
}

function builtFromCurrentSources(): boolean {
  const index = join(webDir, 'dist/index.html');
  return existsSync(index) && statSync(index).mtimeMs > Math.max(...SOURCES.map(newestChange));
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Builds packages/web (vite) so that the server serves the current pages, unless the build is newer than
 * every source. Test files run in parallel processes and each starts servers on `dist`: a build empties
 * `dist` first, and a server started meanwhile would serve no pages, so builds take a lock (a directory,
 * made atomically) and a build already current is left alone.
 */
export function buildWeb(): void {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const held = statSync(LOCK, { throwIfNoEntry: false });
      if (held === undefined) continue;
      if (Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`${LOCK} held for over ${WAIT_MS / 60_000} minutes`);
      else sleep(200);
    }
  }
  try {
    if (builtFromCurrentSources()) return;
    const result = spawnSync(
      process.execPath,
      [join(packagesDir, '../node_modules/vite/bin/vite.js'), 'build'],
      {
        cwd: webDir,
        encoding: 'utf8',
      },
    );
    if (result.status !== 0) throw new Error(`vite build failed:\n${result.stdout}\n${result.stderr}`);
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
