import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The data dir cannot hold the exchange's files. The message reads after the setting's name. */
export class DataDirUnusable extends Error {
  override name = 'DataDirUnusable';
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Makes sure `dataDir` is a directory the exchange can write to, creating it and its missing parents.
 * They are created one level at a time: Node's `mkdirSync(dir, { recursive: true })` never returns when
 * mkdir answers ENOENT for a directory whose parent exists (under /proc), spinning a core.
 */
export function ensureDataDir(dataDir: string): void {
  const missing: string[] = [];
  for (let dir = dataDir; ; dir = dirname(dir)) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(dir).isDirectory();
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT' && dirname(dir) !== dir) {
        missing.unshift(dir);
        continue;
      }
      throw new DataDirUnusable(`${dataDir} cannot be used (${reason(error)})`);
    }
    if (!isDirectory)
      throw new DataDirUnusable(
        dir === dataDir ? `${dataDir} is not a directory` : `${dataDir} cannot be created: ${dir} is a file`,
      );
    break;
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir);
    } catch (error) {
      if ((error as { code?: string }).code === 'EEXIST' && statSync(dir).isDirectory()) continue;
      throw new DataDirUnusable(`${dataDir} cannot be created (${reason(error)})`);
    }
  }
  // Permission bits say nothing for root, nor for a read-only mount: a file is written and removed.
  const probe = join(dataDir, `.write-check-${process.pid}`);
  try {
    writeFileSync(probe, '');
  } catch (error) {
    throw new DataDirUnusable(`${dataDir} is not writable (${reason(error)})`);
  }
  rmSync(probe, { force: true });
}
