/**
 * The storage contract. Every repository method is asynchronous so that a PostgreSQL implementation
 * can satisfy the same interface; the embedded SQLite implementation answers synchronously underneath.
 */

export type Account = { address: `0x${string}`; createdAt: number };

export type ApiKeyRecord = {
  id: string;
  address: `0x${string}`;
  /** sha-256 of the key, hex. The key itself is never stored. */
  keyHash: string;
  label: string | null;
  createdAt: number;
  revokedAt: number | null;
};

export interface AccountRepository {
  /** Creates the account when it does not exist yet; returns it either way. */
  ensure(address: `0x${string}`, now: number): Promise<Account>;
  get(address: `0x${string}`): Promise<Account | null>;
}

export interface ApiKeyRepository {
  insert(record: ApiKeyRecord): Promise<void>;
  /** Every key that is not revoked, for the in-memory authenticator. */
  listActive(): Promise<ApiKeyRecord[]>;
  listForAccount(address: `0x${string}`): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; returns the record, or null when there is no such key. */
  revoke(id: string, now: number): Promise<ApiKeyRecord | null>;
}
