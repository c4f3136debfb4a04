import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Revocation, RevocationBroadcast } from '../revocation-broadcast.js';
import type { PostgresDatabase } from './postgres-database.js';

/** The channel every node LISTENs on. */
export const REVOCATIONS_CHANNEL = 'revocations';
/** Wait before connecting again after the listening connection failed. */
const RECONNECT_MS = 1_000;

type Message = { from: string; revocation: Revocation };

/**
 * Revocations over PostgreSQL's LISTEN/NOTIFY on the exchange's own database: each node holds one
 * connection of its own that LISTENs on `revocations`; publishing is a `pg_notify` after the revocation
 * committed (a notification is delivered only to sessions listening at that time, at most 8000 bytes: a
 * key id, or the few session hashes one sign-in ends). A node does not act on its own notifications.
 * When the listening connection fails it connects again, and `onReconnect` lets the owner catch up on
 * what it may have missed meanwhile.
 */
export async function openPostgresRevocations(
  database: PostgresDatabase,
  options: { onReconnect?: () => void } = {},
): Promise<RevocationBroadcast> {
  const node = randomUUID();
  const listeners = new Set<(revocation: Revocation) => void>();
  let client: pg.Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const deliver = (payload: string | undefined) => {
    let message: Message;
    try {
      message = JSON.parse(payload ?? '') as Message;
    } catch {
      return;
    }
    if (message.from === node) return;
    for (const listener of listeners) listener(message.revocation);
  };
  const listen = async (): Promise<void> => {
    const next = await database.connect();
    next.on('notification', (notification) => {
      if (notification.channel === REVOCATIONS_CHANNEL) deliver(notification.payload);
    });
    next.on('error', () => {
      next.end().catch(() => {});
      if (client === next) client = null;
      if (!closed) retry();
    });
    await next.query(`LISTEN ${REVOCATIONS_CHANNEL}`);
    client = next;
  };
  const retry = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      listen().then(
        () => options.onReconnect?.(),
        () => !closed && retry(),
      );
    }, RECONNECT_MS);
    timer.unref();
  };
  await listen();

  return {
    async publish(revocation) {
      const message: Message = { from: node, revocation };
      await database.pool.query('SELECT pg_notify($1, $2)', [REVOCATIONS_CHANNEL, JSON.stringify(message)]);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      const last = client;
      client = null;
      await last?.end().catch(() => {});
    },
  };
}
