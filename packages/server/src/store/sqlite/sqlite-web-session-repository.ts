import type { Database } from 'better-sqlite3';
import { walSync } from '../../sqlite/wal-sync.js';
import { withWriteGate } from '../../sqlite/write-gate.js';
import { writeTransaction } from '../../sqlite/write-transaction.js';
import type { ConsumedNonce, StoredWebSession, WebSessionRepository } from '../repositories.js';

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

/**
 * Browser sessions and consumed sign-in nonces. A write resolves once it is on the disk, and neither its
 * wait for the WAL checkpointer nor its flush holds up the event loop (the journal's way: an unsynced
 * commit, then fdatasync of the WAL on the thread pool).
 */
export function sqliteWebSessionRepository(db: Database): WebSessionRepository & { close(): void } {
  const wal = walSync(db);
  const durably = async (write: () => unknown): Promise<void> => {
    await withWriteGate(db, () => (wal ? wal.unsynced(write) : write()));
    await wal?.sync();
  };
  const consume = db.prepare(
    'INSERT OR IGNORE INTO consumed_siwe_nonces (id, stamp, expires_at) VALUES (@id, @stamp, @expiresAt)',
  );
  const save = db.prepare(
    `INSERT OR REPLACE INTO web_sessions (token_hash, address, client, created_at, expires_at)
      VALUES (@tokenHash, @address, @client, @createdAt, @expiresAt)`,
  );
  const remove = db.prepare('DELETE FROM web_sessions WHERE token_hash = ?');
  const oneSession = db.prepare<[string, number], SessionRow>(
    'SELECT * FROM web_sessions WHERE token_hash = ? AND expires_at > ?',
  );
  const signedIn = writeTransaction(
    db,
    (nonce: ConsumedNonce, session: StoredWebSession, ended: readonly string[]) => {
      if (consume.run(nonce).changes === 0) return 'nonce-used' as const;
      for (const tokenHash of ended) remove.run(tokenHash);
      save.run(session);
      return 'recorded' as const;
    },
  );
  // Both walk their expiry index from the end; a nonce's expiry follows its stamp (a fixed lifetime).
  const lastToEnd = db.prepare<[number, number], SessionRow>(
    'SELECT * FROM web_sessions WHERE expires_at > ? ORDER BY expires_at DESC LIMIT ?',
  );
  const highestNonces = db.prepare<[number, number], { id: string; stamp: number; expires_at: number }>(
    'SELECT * FROM consumed_siwe_nonces WHERE expires_at > ? ORDER BY expires_at DESC, stamp DESC LIMIT ?',
  );
  const leftOutWatermark = db
    .prepare<[number, number], number | null>(
      `SELECT max(stamp) FROM (SELECT stamp FROM consumed_siwe_nonces WHERE expires_at > ?
        ORDER BY expires_at DESC, stamp DESC LIMIT -1 OFFSET ?)`,
    )
    .pluck();
  const expiredSessions = db.prepare('DELETE FROM web_sessions WHERE expires_at <= ?');
  const expiredNonces = db.prepare('DELETE FROM consumed_siwe_nonces WHERE expires_at <= ?');
  const deleteExpired = writeTransaction(db, (now: number) => {
    expiredSessions.run(now);
    expiredNonces.run(now);
  });
  return {
    async signedIn({ nonce, session, ended }) {
      let outcome: 'recorded' | 'nonce-used' = 'recorded';
      await durably(() => {
        outcome = signedIn(nonce, session, ended);
      });
      return outcome;
    },
    async session(tokenHash, now) {
      const row = oneSession.get(tokenHash, now);
      return row ? toSession(row) : null;
    },
    async deleteSession(tokenHash) {
      await durably(() => remove.run(tokenHash));
    },
    async sessions(now, limit) {
      return lastToEnd.all(now, limit).reverse().map(toSession);
    },
    async consumedNonces(now, limit) {
      const nonces = highestNonces
        .all(now, limit)
        .reverse()
        .map((row) => ({ id: row.id, stamp: row.stamp, expiresAt: row.expires_at }));
      return { nonces, watermark: leftOutWatermark.get(now, limit) ?? null };
    },
    async deleteExpired(now) {
      await durably(() => deleteExpired(now));
    },
    /** Releases the WAL's descriptor. */
    close() {
      wal?.close();
    },
  };
}
