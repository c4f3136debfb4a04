import { statSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import type {
  Account,
  AccountRepository,
  ApiKeyRecord,
  ApiKeyRepository,
  ServerSecretRepository,
} from '../repositories.js';
import type { Store } from '../store.js';
import { sqliteCatalogRepository } from './sqlite-catalog-repository.js';
import { sqliteWebSessionRepository } from './sqlite-web-session-repository.js';
import { startWalCheckpointer } from './wal-checkpointer.js';

type ApiKeyRow = {
  id: string;
  address: `0x${string}`;
  key_hash: string;
  label: string | null;
  created_at: number;
  revoked_at: number | null;
};

const toApiKey = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  address: row.address,
  keyHash: row.key_hash,
  label: row.label,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

function accountRepository(db: Database): AccountRepository {
  const insert = db.prepare('INSERT OR IGNORE INTO accounts (address, created_at) VALUES (?, ?)');
  const select = db.prepare<[string], { address: `0x${string}`; created_at: number }>(
    'SELECT address, created_at FROM accounts WHERE address = ?',
  );
  const get = (address: string): Account | null => {
    const row = select.get(address);
    return row ? { address: row.address, createdAt: row.created_at } : null;
  };
  return {
    async ensure(address, now) {
      insert.run(address, now);
      return get(address)!;
    },
    async get(address) {
      return get(address);
    },
  };
}

function apiKeyRepository(db: Database): ApiKeyRepository {
  const insert = db.prepare(
    'INSERT INTO api_keys (id, address, key_hash, label, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const active = db.prepare<[], ApiKeyRow>('SELECT * FROM api_keys WHERE revoked_at IS NULL');
  const forAccount = db.prepare<[string], ApiKeyRow>(
    'SELECT * FROM api_keys WHERE address = ? ORDER BY created_at, id',
  );
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const byId = db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE id = ?');
  return {
    async insert(r) {
      insert.run(r.id, r.address, r.keyHash, r.label, r.createdAt, r.revokedAt);
    },
    async listActive() {
      return active.all().map(toApiKey);
    },
    async listForAccount(address) {
      return forAccount.all(address).map(toApiKey);
    },
    async get(id) {
      const row = byId.get(id);
      return row ? toApiKey(row) : null;
    },
    async revoke(id, now) {
      revoke.run(now, id);
      const row = byId.get(id);
      return row ? toApiKey(row) : null;
    },
  };
}

function serverSecretRepository(db: Database): ServerSecretRepository {
  const insert = db.prepare(
    'INSERT OR IGNORE INTO server_secrets (name, value, created_at) VALUES (?, ?, ?)',
  );
  const select = db.prepare('SELECT value FROM server_secrets WHERE name = ?').pluck();
  return {
    async keep(name, fresh, now) {
      insert.run(name, fresh, now);
      return select.get(name) as string;
    },
  };
}

/** Size of the database's WAL file in bytes (0 when there is none: just truncated, or not in WAL mode). */
function walFileBytes(databaseFile: string): number {
  try {
    return statSync(`${databaseFile}-wal`).size;
  } catch {
    return 0;
  }
}

/** The embedded store: one SQLite database holds everything (a WAL file is checkpointed in the background). */
export function createSqliteStore(db: Database): Store {
  const wal = !db.memory && db.pragma('journal_mode', { simple: true }) === 'wal';
  const checkpointer = wal ? startWalCheckpointer(db) : null;
  const webSessions = sqliteWebSessionRepository(db);
  return {
    accounts: accountRepository(db),
    apiKeys: apiKeyRepository(db),
    catalog: sqliteCatalogRepository(db),
    webSessions,
    secrets: serverSecretRepository(db),
    async ping() {
      db.prepare('SELECT 1').get();
    },
    gauges: [
      {
        name: 'oddsbook_sqlite_wal_bytes',
        help: "Size of the database's write-ahead log",
        read: () => (db.memory ? 0 : walFileBytes(db.name)),
      },
    ],
    async close() {
      await checkpointer?.stop();
      webSessions.close();
      if (db.open) db.close();
    },
  };
}
