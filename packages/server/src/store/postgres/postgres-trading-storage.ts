import { CoalescingProjector } from '../coalescing-projector.js';
import { Projector, type ProjectorOptions } from '../projector.js';
import type { TradingStorage } from '../trading-storage.js';
import type { LeaseFence } from './lease-fence.js';
import type { PostgresDatabase } from './postgres-database.js';
import { PostgresProjectionStore } from './postgres-projection-store.js';
import { PostgresTradingQueries } from './postgres-trading-queries.js';

/**
 * Trading's projections on PostgreSQL: reads on the pool; the catch-up and then the live projector on the
 * event loop, on the projection store's own connection (its database work is asynchronous already: no
 * thread of its own is needed to keep the sequencer's loop free). The live projector writes the batches
 * that came while it wrote the last one together (CoalescingProjector): each projection costs round trips
 * and a commit's fsync, so under load it keeps up with fewer, larger transactions. A projector node passes
 * its lease (`fence`): its projections commit only while it holds it.
 */
export async function openPostgresTradingStorage(
  database: PostgresDatabase,
  options: ProjectorOptions,
  store: { fence?: LeaseFence } = {},
): Promise<TradingStorage> {
  const projections = await PostgresProjectionStore.open(database, store);
  const catchUp = await Projector.open(projections, options);
  const live = new CoalescingProjector(catchUp);
  return {
    reads: new PostgresTradingQueries(database.pool),
    catchUp,
    projector: () => live,
    async close() {
      await live.idle();
      await projections.close();
    },
  };
}
