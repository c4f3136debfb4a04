import type { Database } from 'better-sqlite3';
import type { ProjectionWriter } from '../projection.js';
import { Projector } from '../projector.js';
import type { TradingStorage } from '../trading-storage.js';
import { SqliteProjectionStore } from './sqlite-projection-store.js';
import { SqliteTradingQueries } from './sqlite-trading-queries.js';
import { ThreadedProjector } from './threaded-projector.js';

/**
 * Trading's projections on the exchange's database: reads and the catch-up on this connection, the live
 * projector on a thread with its own (a worker needs the database file: an in-memory database is
 * projected on the event loop).
 */
export async function openSqliteTradingStorage(
  db: Database,
  options: { /** The journal's `chainSettlement` feature seq. */ settlementSince: number },
): Promise<TradingStorage> {
  const catchUp = await Projector.open(new SqliteProjectionStore(db), options);
  let threaded: ThreadedProjector | null = null;
  let projector: ProjectionWriter | null = null;
  return {
    reads: new SqliteTradingQueries(db),
    catchUp,
    projector() {
      if (!projector) {
        threaded = db.memory ? null : new ThreadedProjector(db, catchUp.cursor(), options.settlementSince);
        projector = threaded ?? catchUp;
      }
      return projector;
    },
    async close() {
      await threaded?.close();
    },
  };
}
