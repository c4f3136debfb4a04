import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** What `oddsbook-client login` keeps per exchange URL. */
export type StoredLogin = { apiKey: string; address?: string; keyId?: string };
type Stored = { defaultUrl?: string; logins: Record<string, StoredLogin> };

/**
 * The CLI's credential file: `ODDSBOOK_CONFIG`, else `$XDG_CONFIG_HOME/oddsbook/client.json`, else
 * `~/.config/oddsbook/client.json`. It holds API keys (never private keys) and is written mode 0600.
 */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ODDSBOOK_CONFIG) return env.ODDSBOOK_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'oddsbook', 'client.json');
}

export function readConfig(path = configPath()): Stored {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<Stored>;
    return { ...parsed, logins: parsed.logins ?? {} };
  } catch {
    return { logins: {} };
  }
}

/** Writes the file whole (a temporary file renamed over it), readable by its owner only. */
export function writeConfig(config: Stored, path = configPath()): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/** Exchange URLs are kept without a trailing slash, so that one exchange has one entry. */
export const urlKey = (url: string) => url.replace(/\/+$/, '');
