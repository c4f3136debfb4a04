import type { AccountRepository, ApiKeyRepository } from './repositories.js';

/** Everything durable, behind one interface: SQLite today, PostgreSQL later. */
export interface Store {
  readonly accounts: AccountRepository;
  readonly apiKeys: ApiKeyRepository;
  close(): Promise<void>;
}
