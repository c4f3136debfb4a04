import type pg from 'pg';
import type {
  Account,
  AccountRepository,
  ApiKeyRecord,
  ApiKeyRepository,
  ServerSecretRepository,
} from '../repositories.js';
import type { Store } from '../store.js';
import { holdsNul } from './named-parameters.js';
import { postgresCatalogRepository } from './postgres-catalog-repository.js';
import type { PostgresDatabase } from './postgres-database.js';
import { postgresWebSessionRepository } from './postgres-web-session-repository.js';

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

function accountRepository(pool: pg.Pool): AccountRepository {
  const get = async (address: string): Promise<Account | null> => {
    const { rows } = await pool.query<{ address: `0x${string}`; created_at: number }>(
      'SELECT address, created_at FROM accounts WHERE address = $1',
      [address],
    );
    return rows[0] ? { address: rows[0].address, createdAt: rows[0].created_at } : null;
  };
  return {
    async ensure(address, now) {
      await pool.query(
        'INSERT INTO accounts (address, created_at) VALUES ($1, $2) ON CONFLICT (address) DO NOTHING',
        [address, now],
      );
      return (await get(address))!;
    },
    get,
  };
}

function apiKeyRepository(pool: pg.Pool): ApiKeyRepository {
  const rows = async (text: string, values: unknown[] = []) =>
    (await pool.query<ApiKeyRow>(text, values)).rows.map(toApiKey);
  return {
    async insert(r) {
      await pool.query(
        'INSERT INTO api_keys (id, address, key_hash, label, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [r.id, r.address, r.keyHash, r.label, r.createdAt, r.revokedAt],
      );
    },
    listActive: () => rows('SELECT * FROM api_keys WHERE revoked_at IS NULL'),
    listForAccount: (address) =>
      rows('SELECT * FROM api_keys WHERE address = $1 ORDER BY created_at, id', [address]),
    async get(id) {
      if (holdsNul([id])) return null;
      return (await rows('SELECT * FROM api_keys WHERE id = $1', [id]))[0] ?? null;
    },
    async revoke(id, now) {
      // PostgreSQL text cannot hold NUL: no key has such an id.
      if (holdsNul([id])) return null;
      await pool.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, id]);
      return (await rows('SELECT * FROM api_keys WHERE id = $1', [id]))[0] ?? null;
    },
  };
}

function serverSecretRepository(pool: pg.Pool): ServerSecretRepository {
  return {
    async keep(name, fresh, now) {
      await pool.query(
        'INSERT INTO server_secrets (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
        [name, fresh, now],
      );
      // A statement of its own: it sees the row whichever start inserted it.
      const { rows } = await pool.query<{ value: string }>(
        'SELECT value FROM server_secrets WHERE name = $1',
        [name],
      );
      return rows[0]!.value;
    },
  };
}

/** Everything the Store holds, on PostgreSQL; its pool's connections are what to watch. */
export function createPostgresStore(database: PostgresDatabase): Store {
  const { pool } = database;
  return {
    accounts: accountRepository(pool),
    apiKeys: apiKeyRepository(pool),
    catalog: postgresCatalogRepository(pool),
    webSessions: postgresWebSessionRepository(pool),
    secrets: serverSecretRepository(pool),
    async ping() {
      await pool.query('SELECT 1');
    },
    gauges: [
      {
        name: 'oddsbook_postgres_pool_connections',
        help: "Connections of the store's pool to PostgreSQL",
        read: () => pool.totalCount,
      },
      {
        name: 'oddsbook_postgres_pool_waiting',
        help: 'Queries waiting for a connection of the pool',
        read: () => pool.waitingCount,
      },
    ],
    async close() {
      await database.close();
    },
  };
}
