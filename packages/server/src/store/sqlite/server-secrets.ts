import { randomBytes } from 'node:crypto';
import type { Database } from 'better-sqlite3';

/**
 * A secret generated once per data dir and kept with it (e.g. the realtime token key), so that tokens
 * issued before a restart stay valid after it.
 */
export function serverSecret(db: Database, name: string, now: number): string {
  db.prepare('INSERT OR IGNORE INTO server_secrets (name, value, created_at) VALUES (?, ?, ?)').run(
    name,
    randomBytes(32).toString('base64url'),
    now,
  );
  return db.prepare('SELECT value FROM server_secrets WHERE name = ?').pluck().get(name) as string;
}
