import type pg from 'pg';
import type { EngineSnapshot } from '../../engine/index.js';
import type {
  CommittedState,
  ProjectionReads,
  ProjectionStore,
  ProjectionWrites,
} from '../projection-store.js';
import { FenceGuard, type LeaseFence } from './lease-fence.js';
import type { PostgresDatabase } from './postgres-database.js';
import { type Query, type Row, readCommitted } from './projection-committed-reads.js';
import { engineSnapshotOf } from './projection-engine-snapshot.js';
import { projectionStatements } from './projection-statements.js';

/**
 * The trading projections on PostgreSQL, on a connection of their own in pipeline mode: a batch's reads are
 * a handful of array queries sent at once (projection-committed-reads.ts), and its writes one transaction of
 * one statement per kind of row (`unnest` of arrays; projection-statements.ts), the cursor included, sent at
 * once and committed together. The projector is the only writer of these tables, so its reads between
 * batches see every row it wrote. A projector node writes under its lease (`fence`): each transaction
 * begins with the fence (lease-fence.ts), so once a successor holds the lease nothing more of this one
 * commits (`LeaseFenced`).
 */
export class PostgresProjectionStore implements ProjectionStore {
  private readonly query: Query;

  private readonly guard: FenceGuard | null;

  private constructor(
    private readonly client: pg.Client,
    fence: LeaseFence | undefined,
  ) {
    this.query = async (text, values = []) => (await this.client.query<Row>(text, values)).rows;
    this.guard = fence ? new FenceGuard(fence) : null;
  }

  static async open(
    database: PostgresDatabase,
    options: { fence?: LeaseFence } = {},
  ): Promise<PostgresProjectionStore> {
    return new PostgresProjectionStore(await database.connect({ pipeline: true }), options.fence);
  }

  async cursor(): Promise<number> {
    return (await this.query('SELECT seq FROM projector_cursor WHERE id = 1'))[0]!.seq as number;
  }

  read(reads: ProjectionReads): Promise<CommittedState> {
    return readCommitted(this.query, reads);
  }

  /** The batch's statements in one transaction, sent at once; the first failure (if any) rolls it back. */
  async write(writes: ProjectionWrites): Promise<void> {
    this.guard?.refuseIfDeposed();
    const statements = [
      { text: 'BEGIN', values: [] },
      ...(this.guard ? [this.guard.statement] : []),
      ...projectionStatements(writes),
      { text: 'COMMIT', values: [] },
    ];
    const sent = statements.map((s) => this.client.query(s.text, s.values));
    const settled = await Promise.allSettled(sent);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      // A statement failed: the transaction was aborted and its COMMIT rolled it back (unless the COMMIT
      // itself is what failed); nothing of the batch is written.
      if (this.client.getTransactionStatus?.() === 'E') await this.client.query('ROLLBACK').catch(() => {});
      throw this.guard ? this.guard.failed(failed.reason) : failed.reason;
    }
  }

  engineSnapshot(ladderSize: number, engineLastSeq: number): Promise<EngineSnapshot> {
    return engineSnapshotOf(this.query, ladderSize, engineLastSeq);
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}
