import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { GATE_CHECKPOINTER, GATE_FREE, GATE_WRITER, type GatePass, writeGate } from './write-gate.js';

const sharedState = () => new Int32Array(new SharedArrayBuffer(4));

describe('write gate', () => {
  it('is taken at once when free, and given back', () => {
    const state = sharedState();
    const pass = writeGate(state).enter();
    expect(pass).not.toBeInstanceOf(Promise);
    expect(Atomics.load(state, 0)).toBe(GATE_WRITER);
    (pass as GatePass).leave();
    expect(Atomics.load(state, 0)).toBe(GATE_FREE);
  });

  it('waits for the checkpointer without blocking the event loop, and takes the gate when it lets go', async () => {
    const state = sharedState();
    Atomics.store(state, 0, GATE_CHECKPOINTER);
    const gate = writeGate(state);
    const entering = gate.enter();
    expect(entering).toBeInstanceOf(Promise);
    // The gate is let go only after the event loop has turned five times while the writer waited: counted
    // turns, not elapsed time, so a loaded machine cannot fail the test.
    let turns = 0;
    const ticker = setInterval(() => {
      turns++;
      if (turns === 5) {
        // As the checkpointer's thread does after its RESTART.
        Atomics.store(state, 0, GATE_FREE);
        Atomics.notify(state, 0);
      }
    }, 1);
    const pass = await entering;
    clearInterval(ticker);
    expect(turns).toBeGreaterThanOrEqual(5);
    expect(Atomics.load(state, 0)).toBe(GATE_WRITER);
    pass.leave();
    expect(Atomics.load(state, 0)).toBe(GATE_FREE);
  });

  it('gives up waiting for a checkpointer that never lets go, and then leaves its gate alone', async () => {
    const state = sharedState();
    Atomics.store(state, 0, GATE_CHECKPOINTER);
    const gate = writeGate(state, 20);
    const started = performance.now();
    const pass = await gate.enter();
    expect(performance.now() - started).toBeGreaterThanOrEqual(19);
    pass.leave();
    expect(Atomics.load(state, 0)).toBe(GATE_CHECKPOINTER);
  });

  it('lets writes of this thread that wait for the checkpointer through one at a time, in turn', async () => {
    const state = sharedState();
    Atomics.store(state, 0, GATE_CHECKPOINTER);
    const gate = writeGate(state);
    const order: string[] = [];
    const write = async (name: string) => {
      const pass = await gate.enter();
      order.push(`${name} in ${Atomics.load(state, 0)}`);
      // The holder keeps it across turns of the event loop; the other waits without spinning.
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push(`${name} out`);
      pass.leave();
      pass.leave(); // a second leave lets go of nothing the other holds
    };
    const both = Promise.all([write('a'), write('b')]);
    setTimeout(() => {
      Atomics.store(state, 0, GATE_FREE);
      Atomics.notify(state, 0);
    }, 10);
    await both;
    expect(order).toEqual([`a in ${GATE_WRITER}`, 'a out', `b in ${GATE_WRITER}`, 'b out']);
    expect(Atomics.load(state, 0)).toBe(GATE_FREE);
  });

  it('keeps the process alive while it waits, though nothing else would', () => {
    // The checkpointer's thread is unref'd and Atomics.waitAsync holds nothing: only the gate keeps the
    // process running until the checkpointer lets go and the batch is written.
    const script = `
      import { Worker } from 'node:worker_threads';
      import { writeGate } from ${JSON.stringify(new URL('./write-gate.ts', import.meta.url).href)};
      const state = new Int32Array(new SharedArrayBuffer(4));
      Atomics.store(state, 0, ${GATE_CHECKPOINTER});
      // An eval worker's code is a module here, as the script is (--input-type=module).
      const checkpointer = new Worker(
        \`import { workerData } from 'node:worker_threads';
         const state = new Int32Array(workerData);
         Atomics.wait(state, 0, ${GATE_CHECKPOINTER}, 100);
         Atomics.store(state, 0, ${GATE_FREE});
         Atomics.notify(state, 0);\`,
        { eval: true, workerData: state.buffer },
      );
      checkpointer.unref();
      // A wait far longer than the worker takes to start on a loaded machine: the pass must be a real one.
      await writeGate(state, 30_000).enter();
      console.log('entered', Atomics.load(state, 0));
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(child.stdout.trim(), child.stderr).toBe(`entered ${GATE_WRITER}`);
    expect(child.status).toBe(0);
  });
});
