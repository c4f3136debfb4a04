import type {
  AccountRepository,
  ApiKeyRepository,
  CatalogRepository,
  ServerSecretRepository,
  WebSessionRepository,
} from './repositories.js';

/** A figure of the storage's own, exported as a Prometheus gauge (what to watch differs per storage). */
export type StorageGauge = { name: string; help: string; read(): number };

/** Everything durable, behind one interface: SQLite today, PostgreSQL later. */
export interface Store {
  readonly accounts: AccountRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly catalog: CatalogRepository;
  /** Browser sessions and consumed sign-in nonces (the in-memory tables in auth/ write through to it). */
  readonly webSessions: WebSessionRepository;
  readonly secrets: ServerSecretRepository;
  /** Rejects when the storage does not answer (the health check). */
  ping(): Promise<void>;
  readonly gauges: readonly StorageGauge[];
  close(): Promise<void>;
}
