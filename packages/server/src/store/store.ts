import type {
  AccountRepository,
  ApiKeyRepository,
  CatalogRepository,
  WebSessionRepository,
} from './repositories.js';

/** Everything durable, behind one interface: SQLite today, PostgreSQL later. */
export interface Store {
  readonly accounts: AccountRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly catalog: CatalogRepository;
  /** Browser sessions and consumed sign-in nonces (the in-memory tables in auth/ write through to it). */
  readonly webSessions: WebSessionRepository;
  /** Throws when the storage does not answer (the health check). */
  ping(): void;
  /** Bytes of write-ahead log not yet checkpointed into the database (0 when there is none). */
  walBytes(): number;
  close(): Promise<void>;
}
