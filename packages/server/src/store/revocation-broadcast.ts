/**
 * What one node changed in who may authenticate, for the others: an API key revoked, browser sessions ended
 * (signed out, or to make room), or an API key issued (the others read it from the store).
 */
export type Revocation =
  | { kind: 'api-key'; id: string }
  | { kind: 'web-sessions'; tokenHashes: string[] }
  | { kind: 'api-key-issued'; id: string };

/**
 * Tells every other node of the exchange what this one revoked, so that a revoked key or an ended
 * session authenticates nothing anywhere and every node closes its open realtime sessions of the key.
 * Published after the revocation is committed; a node that receives one reads nothing back, it forgets.
 * On one process (SQLite) there is no other node: `localRevocations`. On PostgreSQL, LISTEN/NOTIFY
 * (store/postgres/postgres-revocation-broadcast.ts); the cluster's NATS transport can take its place.
 */
export interface RevocationBroadcast {
  publish(revocation: Revocation): Promise<void>;
  /** Calls `listener` with each revocation another node publishes; returns the function that stops it. */
  subscribe(listener: (revocation: Revocation) => void): () => void;
  close(): Promise<void>;
}

/** One process alone: its own revocations already act in-process, and nobody else publishes. */
export const localRevocations: RevocationBroadcast = {
  publish: async () => {},
  subscribe: () => () => {},
  close: async () => {},
};
