import type { Database } from 'better-sqlite3';

/** The gate's states, in one Int32 shared with the WAL checkpointer's thread. */
export const GATE_FREE = 0;
/** The checkpointer is restarting the WAL (holding SQLite's write lock for milliseconds). */
export const GATE_CHECKPOINTER = 1;
/** The sequencer is writing a batch (synchronously, on the event loop). */
export const GATE_WRITER = 2;

/** After this long either side stops waiting for the other to let go, and writes (or restarts) anyway. */
export const GATE_WAIT_MS = 1_000;

/**
 * Keeps the sequencer's batch commits out of the WAL checkpointer's RESTART without blocking the event
 * loop. A commit that meets the restart in SQLite waits in SQLite's busy handler, which sleeps on the event
 * loop in steps of 1, 2, 5, 10 ms...: a 9 ms restart held every request up for 19 ms, four times a second
 * at 1,000 orders/s. Behind the gate the batch waits asynchronously and goes the moment the restart ends.
 * SQLite's own locks still decide: the gate only spares the event loop the wait. Other writers (rare)
 * do not take it.
 */
export type WriteGate = {
  /** Null when the gate was free and is now held; else a promise of holding it (or of giving up waiting). */
  enter(): Promise<void> | null;
  /** Lets go of the gate, if held, and wakes the checkpointer. */
  leave(): void;
};

export function writeGate(state: Int32Array, waitMs = GATE_WAIT_MS): WriteGate {
  let held = false;
  const take = () => {
    held = Atomics.compareExchange(state, 0, GATE_FREE, GATE_WRITER) === GATE_FREE;
    return held;
  };
  return {
    enter() {
      if (take()) return null;
      return (async () => {
        // Atomics.waitAsync does not keep Node's event loop alive: a process with nothing else pending (one
        // shutting down, a command-line run) would exit in the middle of the wait, its batch unwritten.
        const keepAlive = setTimeout(() => {}, waitMs);
        try {
          const deadline = performance.now() + waitMs;
          while (!take()) {
            const left = deadline - performance.now();
            if (left <= 0) return;
            const wait = Atomics.waitAsync(state, 0, GATE_CHECKPOINTER, left);
            if (wait.async) await wait.value;
          }
        } finally {
          clearTimeout(keepAlive);
        }
      })();
    },
    leave() {
      if (!held) return;
      held = false;
      Atomics.store(state, 0, GATE_FREE);
      Atomics.notify(state, 0);
    },
  };
}

const gates = new WeakMap<Database, WriteGate>();

/** The gate of the checkpointer running on `db`'s file, if one runs. */
export const writeGateOf = (db: Database): WriteGate | undefined => gates.get(db);

export function setWriteGate(db: Database, gate: WriteGate | null): void {
  if (gate) gates.set(db, gate);
  else gates.delete(db);
}
