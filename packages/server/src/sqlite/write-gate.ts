import type { Database } from 'better-sqlite3';

/** The gate's states, in one Int32 shared with the WAL checkpointer's thread. */
export const GATE_FREE = 0;
/** The checkpointer is restarting the WAL (holding SQLite's write lock for milliseconds). */
export const GATE_CHECKPOINTER = 1;
/** The sequencer is writing a batch (synchronously, on the event loop). */
export const GATE_WRITER = 2;
/** The projector's thread is writing a batch's projections. */
export const GATE_PROJECTOR = 3;

/**
 * The slot of the gate's shared state (its second Int32; the first is the gate) that is 1 while the WAL
 * checkpointer runs: while it does, no other connection to the file runs checkpoints of its own.
 */
export const CHECKPOINTER_RUNNING = 1;

/** Whether the WAL checkpointer whose gate this is still runs (a one-slot state: no checkpointer). */
export const checkpointerRuns = (state: Int32Array): boolean =>
  state.length > CHECKPOINTER_RUNNING && Atomics.load(state, CHECKPOINTER_RUNNING) === 1;

/** After this long either side stops waiting for the other to let go, and writes (or restarts) anyway. */
export const GATE_WAIT_MS = 1_000;

/**
 * Keeps the event loop's commits out of the WAL checkpointer's RESTART without blocking the event loop. A
 * commit that meets the restart in SQLite waits in SQLite's busy handler, which sleeps on the event loop in
 * steps of 1, 2, 5, 10 ms...: a 9 ms restart held every request up for 19 ms, four times a second at 1,000
 * orders/s. Behind the gate a write waits asynchronously and goes the moment the restart ends. SQLite's own
 * locks still decide: the gate only spares the event loop the wait. Writers on the event loop take turns
 * through it too (a write is synchronous, so one holds it only from its turn to its end).
 */
export type WriteGate = {
  /** The shared state, for a thread that takes the gate too (`enterGateSync`). */
  readonly state: Int32Array;
  /**
   * A pass at once when the gate is free; else a promise of one once it is (or, after `waitMs`, of a pass
   * that holds nothing: the write goes on and SQLite's locks decide).
   */
  enter(): GatePass | Promise<GatePass>;
};

/** Lets go of the gate (once; a pass that took nothing lets go of nothing) and wakes whoever waits. */
export type GatePass = { leave(): void };

const NOTHING_HELD: GatePass = { leave() {} };

export function writeGate(state: Int32Array, waitMs = GATE_WAIT_MS): WriteGate {
  const take = (): GatePass | null => {
    if (Atomics.compareExchange(state, 0, GATE_FREE, GATE_WRITER) !== GATE_FREE) return null;
    let held = true;
    return {
      leave() {
        if (!held) return;
        held = false;
        Atomics.store(state, 0, GATE_FREE);
        Atomics.notify(state, 0);
      },
    };
  };
  return {
    state,
    enter() {
      const pass = take();
      if (pass) return pass;
      return (async () => {
        // Atomics.waitAsync does not keep Node's event loop alive: a process with nothing else pending (one
        // shutting down, a command-line run) would exit in the middle of the wait, its write not done.
        const keepAlive = setTimeout(() => {}, waitMs);
        try {
          const deadline = performance.now() + waitMs;
          for (;;) {
            const pass = take();
            if (pass) return pass;
            const left = deadline - performance.now();
            if (left <= 0) return NOTHING_HELD;
            // Whoever holds it (the checkpointer, or another write of this thread waiting for its turn)
            // notifies when it lets go.
            const holder = Atomics.load(state, 0);
            if (holder === GATE_FREE) continue;
            const wait = Atomics.waitAsync(state, 0, holder, left);
            if (wait.async) await wait.value;
          }
        } finally {
          clearTimeout(keepAlive);
        }
      })();
    },
  };
}

/**
 * Takes the gate for `holder` from a worker thread, blocking it (never the event loop) while another holds
 * it; after `waitMs` goes on without it (SQLite's locks still decide). Returns whether it was taken.
 */
export function enterGateSync(state: Int32Array, holder: number, waitMs = GATE_WAIT_MS): boolean {
  for (const deadline = Date.now() + waitMs; Date.now() < deadline; ) {
    if (Atomics.compareExchange(state, 0, GATE_FREE, holder) === GATE_FREE) return true;
    const current = Atomics.load(state, 0);
    if (current !== GATE_FREE) Atomics.wait(state, 0, current, 10);
  }
  return false;
}

export function leaveGateSync(state: Int32Array): void {
  Atomics.store(state, 0, GATE_FREE);
  Atomics.notify(state, 0);
}

const gates = new WeakMap<Database, WriteGate>();

/** The gate of the checkpointer running on `db`'s file, if one runs. */
export const writeGateOf = (db: Database): WriteGate | undefined => gates.get(db);

/** Sets (null: removes) the gate of the checkpointer running on `db`'s file. */
export function setWriteGate(db: Database, gate: WriteGate | null): void {
  if (gate) gates.set(db, gate);
  else gates.delete(db);
}

/**
 * Runs `write` (synchronous) holding `db`'s write gate: at once when the gate is free or there is none,
 * else once the checkpointer lets go (a promise of the result).
 */
export function withWriteGate<T>(db: Database, write: () => T): T | Promise<T> {
  const entering = gates.get(db)?.enter();
  const run = (pass: GatePass | undefined) => {
    try {
      return write();
    } finally {
      pass?.leave();
    }
  };
  return entering instanceof Promise ? entering.then(run) : run(entering);
}
