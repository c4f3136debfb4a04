import type { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';
import { spawnWorker } from '../../lib/spawn-worker.js';
import type { AppliedEntry } from '../../sequencer/inputs.js';
import { writeGateOf } from '../../sqlite/write-gate.js';
import type { EntryChanges } from '../batch-projection.js';
import type { ProjectionWriter } from '../projection.js';
import type { ProjectReply } from './projector-worker.js';

/**
 * The projector on its own thread with its own connection to the database (projector-worker.ts): the
 * projection writes leave the event loop. Batches go in order and their changes come back in order. The
 * worker takes the same write gate as the WAL checkpointer, so a write on the event loop that meets one of
 * its transactions waits off the event loop.
 */
export class ThreadedProjector implements ProjectionWriter {
  readonly ordered = true;
  private readonly worker: Worker;
  private readonly pending = new Map<
    number,
    { lastSeq: number; resolve: (c: EntryChanges[]) => void; reject: (e: unknown) => void }
  >();
  private nextId = 0;
  private projected: number;
  private failure: Error | null = null;
  private stopped: Promise<void> | null = null;

  constructor(db: Database, cursor: number, settlementSince: number) {
    this.projected = cursor;
    this.worker = spawnWorker(import.meta.url, 'projector-worker', {
      file: db.name,
      gate: writeGateOf(db)?.state.buffer ?? null,
      settlementSince,
    });
    this.worker.unref();
    this.worker.on('message', (reply: ProjectReply) => this.answer(reply));
    this.worker.on('error', (error) => this.failAll(error));
    this.worker.on('exit', (code) => {
      if (!this.stopped) this.failAll(new Error(`the projector's thread exited (${code})`));
    });
  }

  cursor(): number {
    return this.projected;
  }

  project(entries: readonly AppliedEntry[]): Promise<EntryChanges[]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const lastSeq = entries[entries.length - 1]?.seq ?? this.projected;
    return new Promise<EntryChanges[]>((resolve, reject) => {
      // Kept alive while a batch is out: an unref'd worker's reply would not hold a stopping process.
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { lastSeq, resolve, reject });
      this.worker.postMessage({ id, entries });
    });
  }

  /** Waits for the batches sent so far, then ends the thread. */
  close(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      this.worker.ref();
      this.worker.once('exit', () => resolve());
      this.worker.postMessage('stop');
    });
    return this.stopped;
  }

  private answer(reply: ProjectReply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0 && !this.stopped) this.worker.unref();
    if ('error' in reply) {
      this.failAll(new Error(`the projector failed: ${reply.error}`));
      waiting.reject(this.failure);
      return;
    }
    this.projected = Math.max(this.projected, waiting.lastSeq);
    waiting.resolve(reply.changes as EntryChanges[]);
  }

  private failAll(error: Error): void {
    this.failure ??= error;
    for (const { reject } of this.pending.values()) reject(this.failure);
    this.pending.clear();
  }
}
