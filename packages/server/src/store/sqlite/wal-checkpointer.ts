import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';
import {
  CHECKPOINTER_RUNNING,
  GATE_CHECKPOINTER,
  GATE_FREE,
  GATE_WAIT_MS,
  setWriteGate,
  writeGate,
} from '../../sqlite/write-gate.js';

/** How often the background connection copies the WAL back into the database file. */
export const CHECKPOINT_INTERVAL_MS = 250;
/** A WAL of at least this many frames (4 KiB pages) is started over once it is copied back. */
export const RESTART_FRAMES = 4_096;
/** Passive checkpoints a tick may run, each copying what the one before could not see, to catch up. */
export const CHECKPOINT_PASSES = 6;

// CommonJS on purpose: an eval worker runs it as is, from sources and built alike.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
// Wait briefly: RESTART holds writers off while it waits for readers, and a reader on an old snapshot
// (an operator's .backup) would hold it for the whole wait, failing the sequencer's commit after its own
// 5 s. After 10 ms it gives up, and tries again a second later.
db.pragma('busy_timeout = 10');
// The write gate (write-gate.ts): 0 free, 1 held here for a RESTART, 2 held by a write on the event loop
// (a batch commit, an escrow flush: about a millisecond), 3 by the projector's thread (a batch's rows). Taken before the RESTART so
// that the write waits for it off the event loop; if the writer does not let go within GATE_WAIT_MS, the
// RESTART goes on without it.
const gate = new Int32Array(workerData.gate);
const enterGate = () => {
  for (const deadline = Date.now() + ${GATE_WAIT_MS}; Date.now() < deadline; ) {
    if (Atomics.compareExchange(gate, 0, ${GATE_FREE}, ${GATE_CHECKPOINTER}) === ${GATE_FREE}) return true;
    // Held by a write on the event loop or by the projector's thread: woken when it lets go.
    const holder = Atomics.load(gate, 0);
    if (holder !== ${GATE_FREE}) Atomics.wait(gate, 0, holder, 10);
  }
  return false;
};
const leaveGate = () => {
  Atomics.store(gate, 0, ${GATE_FREE});
  Atomics.notify(gate, 0);
};
let restartAfter = 0;
const checkpoint = () => {
  try {
    let [{ log, checkpointed }] = db.pragma('wal_checkpoint(PASSIVE)');
    // Under steady writes a passive checkpoint never catches the frames committed while it ran, and SQLite
    // reuses the WAL from its start only once every frame is back: the file would grow for as long as the
    // load lasts, every frame written past its end (the kernel zeroes each new page) and every page read
    // searching a longer WAL index. Further passes copy what was committed during the one before, each
    // shorter, until one finds nothing new (a write that begins then starts the WAL over by itself).
    for (let pass = 1; pass < workerData.passes && log > 0 && checkpointed === log; pass++) {
      const [next] = db.pragma('wal_checkpoint(PASSIVE)');
      if (next.log === log) break;
      ({ log, checkpointed } = next);
    }
    // A large WAL is started over by a RESTART, which copies the frames the passes left (few) and holds
    // writers off while it runs.
    if (log >= workerData.restartFrames && Date.now() >= restartAfter) {
      const entered = enterGate();
      try {
        const [{ busy }] = db.pragma('wal_checkpoint(RESTART)');
        if (busy) restartAfter = Date.now() + 1000;
      } finally {
        if (entered) leaveGate();
      }
    }
  } catch (error) {
    parentPort.postMessage(String(error));
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export type WalCheckpointer = { stop(): Promise<void> };

/**
 * Runs WAL checkpoints on a second connection in a worker thread, so the writer's commits never pay for
 * them: copying pages into the database file and its fsync happen off the event loop, and a longer
 * interval lets a page written by many commits be copied once. Once the WAL is large, each checkpoint
 * also starts it over (see the worker), so that it stays small under sustained load; the event loop's
 * writes wait for such a restart behind a write gate, off the event loop (write-gate.ts). The writer's own
 * automatic checkpoints are switched off while the worker runs, and back on if it fails; so are those of
 * the projector's connection (projector-worker.ts), which reads whether it runs from the gate's state.
 */
export function startWalCheckpointer(
  db: Database,
  options: {
    intervalMs?: number;
    restartFrames?: number;
    /** Passive checkpoints a tick at most (1: no catching up, only RESTARTs keep the WAL small). */
    passes?: number;
    onError?: (error: unknown) => void;
  } = {},
): WalCheckpointer {
  const onError = options.onError ?? ((error) => console.error('WAL checkpointer failed', error));
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  // The gate, and whether this checkpointer runs (write-gate.ts): the projector's thread reads it.
  const gate = new SharedArrayBuffer(8);
  const state = new Int32Array(gate);
  Atomics.store(state, CHECKPOINTER_RUNNING, 1);
  const stopped = () => Atomics.store(state, CHECKPOINTER_RUNNING, 0);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      driver,
      file: db.name,
      intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS,
      restartFrames: options.restartFrames ?? RESTART_FRAMES,
      passes: options.passes ?? CHECKPOINT_PASSES,
      gate,
    },
  });
  db.pragma('wal_autocheckpoint = 0');
  setWriteGate(db, writeGate(state));
  const fallBack = (error: unknown) => {
    stopped();
    setWriteGate(db, null);
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
    onError(error);
  };
  worker.on('message', (message) => onError(new Error(String(message))));
  worker.on('error', fallBack);
  worker.unref();
  let stopping: Promise<void> | null = null;
  return {
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        worker.off('error', fallBack);
        stopped();
        setWriteGate(db, null);
        // Held while it finishes: an unref'd worker's exit would not keep the process alive to see it.
        worker.ref();
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
      });
      return stopping;
    },
  };
}
