import type { Database } from 'better-sqlite3';

export type Migration = { version: number; name: string; up: (db: Database) => void };

/**
 * Versioned schema migrations, applied in order at start inside one transaction each.
 * Append new migrations; never edit one that has shipped.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts and api keys',
    up: (db) =>
      db.exec(`
        CREATE TABLE accounts (
          address    TEXT PRIMARY KEY,
          created_at INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE api_keys (
          id         TEXT PRIMARY KEY,
          address    TEXT NOT NULL REFERENCES accounts(address),
          key_hash   TEXT NOT NULL UNIQUE,
          label      TEXT,
          created_at INTEGER NOT NULL,
          revoked_at INTEGER
        ) STRICT;
        CREATE INDEX api_keys_by_address ON api_keys(address);
      `),
  },
  {
    version: 3,
    name: 'server secrets',
    up: (db) =>
      db.exec(`
        CREATE TABLE server_secrets (
          name       TEXT PRIMARY KEY,
          value      TEXT NOT NULL,
          created_at INTEGER NOT NULL
        ) STRICT;
      `),
  },
];

export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  ) STRICT`);
  const applied = new Set(
    db
      .prepare('SELECT version FROM schema_migrations')
      .pluck()
      .all()
      .map((v) => Number(v)),
  );
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const ran: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      migration.up(db);
      record.run(migration.version, migration.name, Date.now());
    })();
    ran.push(migration.version);
  }
  return ran;
}
