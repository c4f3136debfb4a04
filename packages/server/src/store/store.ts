import type { AccountRepository, ApiKeyRepository, CatalogRepository } from './repositories.js';

/** Everything durable, behind one interface: SQLite today, PostgreSQL later. */
export interface Store {
  readonly accounts: AccountRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly catalog: CatalogRepository;
  close(): Promise<void>;
}
