import type { ProjectionWriter } from '../projection.js';
import { Projector, type ProjectorOptions } from '../projector.js';
import type { TradingStorage } from '../trading-storage.js';
import type { PostgresDatabase } from './postgres-database.js';
import { PostgresProjectionStore } from './postgres-projection-store.js';
import { PostgresTradingQueries } from './postgres-trading-queries.js';

/**
 * Trading's projections on PostgreSQL: reads on the pool; the catch-up and then the live projector on the
 * event loop, on the projection store's own connection (its database work is asynchronous already: no
 * thread of its own is needed to keep the sequencer's loop free).
 */
export async function openPostgresTradingStorage(
  database: PostgresDatabase,
  options: ProjectorOptions,
): Promise<TradingStorage> {
  const projections = await PostgresProjectionStore.open(database);
  const catchUp = await Projector.open(projections, options);
  let last: Promise<unknown> = Promise.resolve();
  const live: ProjectionWriter = {
    ordered: true,
    cursor: () => catchUp.cursor(),
    project(entries) {
      const projected = catchUp.project(entries);
      last = projected.catch(() => undefined);
      return projected;
    },
  };
  return {
    reads: new PostgresTradingQueries(database.pool),
    catchUp,
    projector: () => live,
    async close() {
      await last;
      await projections.close();
    },
  };
}
