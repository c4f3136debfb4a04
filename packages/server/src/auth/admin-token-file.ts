import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/config.js';

/** Where the operator token generated for a data dir is kept (when ADMIN_TOKEN is not set). */
export const ADMIN_TOKEN_FILE = 'admin-token';

export type StoredAdminToken = {
  token: string;
  /** The file that holds it. */
  file: string;
  /** True when this call generated it (the first start on this data dir). */
  created: boolean;
};

/**
 * The operator token of a data dir: generated at the first start without ADMIN_TOKEN and kept in a file
 * only its owner may read (mode 0600), so that it stays the same across restarts.
 */
export function storedAdminToken(dataDir: string): StoredAdminToken {
  const file = join(dataDir, ADMIN_TOKEN_FILE);
  const generated = randomBytes(24).toString('base64url');
  try {
    // Exclusive: of two processes starting on a fresh data dir, one writes it and the other reads it.
    writeFileSync(file, `${generated}\n`, { mode: 0o600, flag: 'wx' });
    return { token: generated, file, created: true };
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
  }
  const token = readFileSync(file, 'utf8').trim();
  if (token.length < 16)
    throw new ConfigError(
      `${file} holds no operator token of at least 16 characters: set ADMIN_TOKEN, or delete the file to generate a new one`,
    );
  return { token, file, created: false };
}
