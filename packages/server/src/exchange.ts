import type { Database } from 'better-sqlite3';
import { ApiKeys } from './auth/api-keys.js';
import { CatalogService } from './catalog/catalog-service.js';
import { seedDemoCatalog } from './catalog/demo-seed.js';
import type { Config } from './config.js';
import { type Clock, systemClock } from './lib/clock.js';
import { openDatabase } from './store/sqlite/open-database.js';
import { serverSecret } from './store/sqlite/server-secrets.js';
import { createSqliteStore } from './store/sqlite/sqlite-store.js';
import type { Store } from './store/store.js';

/** Everything the exchange runs on, opened once and shared by the HTTP app, the CLI and the tests. */
export type Exchange = {
  readonly config: Config;
  readonly clock: Clock;
  readonly db: Database;
  readonly store: Store;
  readonly apiKeys: ApiKeys;
  /** Sports, leagues, fixtures, markets and live scores; market lookups for the order path. */
  readonly catalog: CatalogService;
  /** HMAC key of realtime connection tokens, kept in the data dir. */
  readonly realtimeSecret: string;
  /** Leagues whose live betting delay differs from their sport's (for `GET /metadata/obv3`). */
  leagueLiveDelays(): Promise<{ leagueId: number; delayMs: number }[]>;
  close(): Promise<void>;
};

export async function openExchange(config: Config, options: { clock?: Clock } = {}): Promise<Exchange> {
  const clock = options.clock ?? systemClock;
  const db = openDatabase(config.dataDir);
  const store = createSqliteStore(db);
  const apiKeys = await ApiKeys.load(store);
  const realtimeSecret = serverSecret(db, 'realtime-token', clock.now());
  const catalog = new CatalogService({
    repository: store.catalog,
    clock,
    // A listener's failure never fails the catalog write that triggered it; it is reported here.
    onListenerError: (error) => console.error('catalog change listener failed', error),
  });
  if (config.demo && (await catalog.isEmpty())) await seedDemoCatalog(catalog, { now: clock.now() });
  let closed = false;
  return {
    config,
    clock,
    db,
    store,
    apiKeys,
    catalog,
    realtimeSecret,
    leagueLiveDelays() {
      return catalog.leagueLiveDelays();
    },
    async close() {
      if (closed) return;
      closed = true;
      await store.close();
    },
  };
}
