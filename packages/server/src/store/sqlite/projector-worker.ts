import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { AppliedEntry } from '../../sequencer/inputs.js';
import { checkpointerRuns, enterGateSync, GATE_PROJECTOR, leaveGateSync } from '../../sqlite/write-gate.js';
import { Projector } from '../projector.js';
import { SqliteProjectionStore } from './sqlite-projection-store.js';

/** A batch to project, and its answer (the changes of its entries after the cursor, or why it failed). */
export type ProjectRequest = { id: number; entries: readonly AppliedEntry[] };
export type ProjectReply = { id: number; changes: unknown[] } | { id: number; error: string };

const data = workerData as { file: string; gate: SharedArrayBuffer | null; settlementSince: number };
const db = new BetterSqlite3(data.file);
db.pragma('busy_timeout = 5000');
// The projections are rebuilt from the journal after a crash: no commit of this connection waits for the
// disk (the journal's synced commits carry them, the WAL being one file written in order).
db.pragma('synchronous = NORMAL');
db.pragma('cache_size = -65536');
db.pragma('temp_store = MEMORY');
const projector = await Projector.open(new SqliteProjectionStore(db), {
  settlementSince: data.settlementSince,
});
const gate = data.gate ? new Int32Array(data.gate) : null;

/**
 * SQLite's automatic checkpoint (a PASSIVE one once the WAL passes 1,000 pages) is off while the WAL
 * checkpointer runs, as on the event loop's connection: else nearly every commit of this thread, the
 * file's main writer, ran one under steady load (the WAL seldom under 1,000 pages between the
 * checkpointer's restarts), copying the commit's pages into the database file and syncing both files
 * there and then (bench:orders: half this thread's system time, a sixth of its CPU). Back on once the
 * checkpointer has stopped or failed.
 */
let autoCheckpoints = true;
function followCheckpointer(): void {
  const wanted = !gate || !checkpointerRuns(gate);
  if (wanted === autoCheckpoints) return;
  db.pragma(`wal_autocheckpoint = ${wanted ? 1000 : 0}`);
  autoCheckpoints = wanted;
}
followCheckpointer();
const port = parentPort!;

let queued: ProjectRequest[] = [];
let draining: Promise<void> | null = null;

function schedule(): void {
  draining ??= new Promise<void>((resolve) => setImmediate(resolve)).then(drain).finally(() => {
    draining = null;
    if (queued.length > 0) schedule();
  });
}

/**
 * The batches that arrived while the last were written go in one transaction: behind under load, the
 * projector catches up in fewer, larger commits. Each batch gets its own reply, in order.
 */
async function drain(): Promise<void> {
  const requests = queued;
  queued = [];
  const cursor = projector.cursor();
  const fresh = requests.map((r) => r.entries.filter((e) => e.seq > cursor));
  const entries = fresh.flat();
  let changes: unknown[] = [];
  try {
    if (entries.length > 0) {
      followCheckpointer();
      const entered = gate ? enterGateSync(gate, GATE_PROJECTOR) : false;
      try {
        // The store answers at once (SQLite on this thread): the gate is held for this batch alone.
        changes = await projector.project(entries);
      } finally {
        if (entered && gate) leaveGateSync(gate);
      }
    }
  } catch (error) {
    for (const { id } of requests) port.postMessage({ id, error: String((error as Error)?.stack ?? error) });
    return;
  }
  let at = 0;
  requests.forEach(({ id }, i) => {
    const n = fresh[i]!.length;
    port.postMessage({ id, changes: changes.slice(at, at + n) } satisfies ProjectReply);
    at += n;
  });
}

port.on('message', (message: ProjectRequest | 'stop') => {
  if (message === 'stop') {
    void (draining ?? Promise.resolve()).then(async () => {
      if (queued.length > 0) await drain();
      db.close();
      port.close();
    });
    return;
  }
  queued.push(message);
  schedule();
});
