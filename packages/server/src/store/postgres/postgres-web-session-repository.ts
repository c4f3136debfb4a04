import type pg from 'pg';
import type { StoredWebSession, WebSessionRepository } from '../repositories.js';
import { inTransaction } from './transaction.js';

type SessionRow = {
  token_hash: string;
  address: `0x${string}`;
  client: string;
  created_at: number;
  expires_at: number;
};

const toSession = (row: SessionRow): StoredWebSession => ({
  tokenHash: row.token_hash,
  address: row.address,
  client: row.client,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/** Browser sessions and consumed sign-in nonces on PostgreSQL: a write resolves once it is committed. */
export function postgresWebSessionRepository(pool: pg.Pool): WebSessionRepository {
  return {
    async signedIn({ nonce, session, ended }) {
      return inTransaction(pool, async (client) => {
        // The primary key decides between two nodes consuming one nonce: the second inserts nothing.
        const consumed = await client.query(
          'INSERT INTO consumed_siwe_nonces (id, stamp, expires_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
          [nonce.id, nonce.stamp, nonce.expiresAt],
        );
        if (consumed.rowCount === 0) return 'nonce-used' as const;
        if (ended.length > 0)
          await client.query('DELETE FROM web_sessions WHERE token_hash = ANY($1::text[])', [ended]);
        await client.query(
          `INSERT INTO web_sessions (token_hash, address, client, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (token_hash) DO UPDATE SET address = excluded.address, client = excluded.client,
              created_at = excluded.created_at, expires_at = excluded.expires_at`,
          [session.tokenHash, session.address, session.client, session.createdAt, session.expiresAt],
        );
        return 'recorded' as const;
      });
    },
    async session(tokenHash, now) {
      const { rows } = await pool.query<SessionRow>(
        'SELECT * FROM web_sessions WHERE token_hash = $1 AND expires_at > $2',
        [tokenHash, now],
      );
      return rows[0] ? toSession(rows[0]) : null;
    },
    async deleteSession(tokenHash) {
      await pool.query('DELETE FROM web_sessions WHERE token_hash = $1', [tokenHash]);
    },
    async sessions(now, limit) {
      const { rows } = await pool.query<SessionRow>(
        'SELECT * FROM web_sessions WHERE expires_at > $1 ORDER BY expires_at DESC LIMIT $2',
        [now, limit],
      );
      return rows.reverse().map(toSession);
    },
    async consumedNonces(now, limit) {
      const { rows } = await pool.query<{ id: string; stamp: number; expires_at: number }>(
        'SELECT * FROM consumed_siwe_nonces WHERE expires_at > $1 ORDER BY expires_at DESC, stamp DESC LIMIT $2',
        [now, limit],
      );
      const left = await pool.query<{ watermark: number | null }>(
        `SELECT max(stamp) AS watermark FROM (SELECT stamp FROM consumed_siwe_nonces WHERE expires_at > $1
          ORDER BY expires_at DESC, stamp DESC OFFSET $2) AS left_out`,
        [now, limit],
      );
      return {
        nonces: rows.reverse().map((row) => ({ id: row.id, stamp: row.stamp, expiresAt: row.expires_at })),
        watermark: left.rows[0]?.watermark ?? null,
      };
    },
    async deleteExpired(now) {
      await inTransaction(pool, async (client) => {
        await client.query('DELETE FROM web_sessions WHERE expires_at <= $1', [now]);
        await client.query('DELETE FROM consumed_siwe_nonces WHERE expires_at <= $1', [now]);
      });
    },
  };
}
