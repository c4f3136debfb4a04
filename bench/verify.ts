/**
 * Order signature checks per second: in-thread vs the worker_threads pool, and what dispatching to the pool
 * costs the main thread.
 * Run: node --import tsx bench/verify.ts [orders=2000] [seconds=2]
 * VERIFY_BENCH=dispatch runs only the dispatch section (the main thread's cost per item).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { OrderDomain } from '@oddsbook/protocol';
import { hashTypedData, recoverTypedDataAddress } from 'viem';
import { createOrderVerifier } from '../packages/server/src/signing/order-verifier.js';
import { makeSignedOrders } from '../packages/server/src/signing/test-orders.js';
import { createVerifierPool, type VerifyItem } from '../packages/server/src/signing/verifier-pool.js';
import {
  decodeReply,
  decodeRequest,
  encodeReply,
  encodeRequest,
} from '../packages/server/src/signing/verifier-wire.js';

const count = Math.max(512, Number(process.argv[2] ?? 2000));
const seconds = Number(process.argv[3] ?? 2);
// A literal domain, so the bench runs from sources without a built @oddsbook/protocol.
const domain: OrderDomain = {
  name: 'oddsbook',
  version: '1',
  chainId: 4162,
  verifyingContract: '0xa70B8BddF7B752f3756BecCB7710584d47597fC3',
};

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** This thread's CPU time in ns (Linux schedstat), else the process's. */
function threadCpuNs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) * 1000;
  }
}

/**
 * The main thread's cost of dispatching to the pool, as in the exchange at peak: every event-loop turn
 * asks for `perTurn` single checks (as `perTurn` one-order requests would), then does other work for longer
 * than the worker needs, so the main thread stays busy and the replies arrive during later turns.
 * - CPU per item: the main thread's CPU time (Linux schedstat) against the same turns without checks:
 *   encoding, postMessage (which wakes the worker: a syscall), taking the reply, resolving the promises.
 * - postMessage wall clock per call (timed around `Worker.prototype.postMessage`): when no core is free,
 *   the woken worker can take the main thread's core until its batch is done; that stall shows here (mean,
 *   p99), not in CPU time, and it is what a wall-clock CPU profile of the exchange charges to postMessage.
 * - The messages alone: encode, structured clone and decode, with nobody to wake.
 */
async function dispatchCost(items: readonly VerifyItem[]) {
  let sink = 0;
  const spin = (n: number) => {
    let x = 0;
    for (let i = 0; i < n; i++) x = (x * 31 + i) | 0;
    sink ^= x;
  };
  // Calibrate the spin to about 1 µs per unit.
  let units = 1e6;
  for (;;) {
    const t = performance.now();
    spin(units);
    const ms = performance.now() - t;
    if (ms > 20) {
      units = Math.round((units / ms) * 1e-3);
      break;
    }
    units *= 2;
  }
  const posts: number[] = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (this: Worker, ...args: Parameters<Worker['postMessage']>) {
    const t = performance.now();
    post.apply(this, args);
    posts.push(performance.now() - t);
  };
  const turns = (perTurn: number, seconds: number, pool: ReturnType<typeof createVerifierPool> | null) =>
    new Promise<{ cpuNs: number; turns: number }>((resolve) => {
      const workUs = Math.max(250, perTurn * 100);
      let n = 0;
      let cursor = 0;
      let outstanding = 0;
      const cpu0 = threadCpuNs();
      const end = performance.now() + seconds * 1000;
      const finish = () => resolve({ cpuNs: threadCpuNs() - cpu0, turns: n });
      const turn = () => {
        if (performance.now() >= end) {
          if (outstanding === 0) finish();
          else setTimeout(turn, 1);
          return;
        }
        if (pool) {
          for (let i = 0; i < perTurn; i++) {
            outstanding++;
            void pool.verify(items[cursor]!).then((r) => {
              outstanding--;
              if (!r.ok) throw new Error('bad fixture');
            });
            cursor = (cursor + 1) % items.length;
          }
        }
        spin(workUs * units);
        n++;
        setImmediate(turn);
      };
      turn();
    });
  console.log(
    `dispatch cost on the main thread (pool size 1; per turn: N checks asked, then ~max(250 µs, N x 100 µs) of other work); load avg ${loadavg()[0]!.toFixed(2)}`,
  );
  const seconds = Math.max(2, Number(process.argv[3] ?? 2));
  for (const perTurn of [1, 4, 16]) {
    const pool = createVerifierPool({ domain, size: 1 });
    await pool.verifyBatch(items.slice(0, 256)); // warm-up (worker started, code optimised)
    await turns(perTurn, 0.5, pool);
    await turns(perTurn, 0.5, null);
    posts.length = 0;
    const cpuPerItem: number[] = [];
    for (let run = 0; run < 3; run++) {
      const base = await turns(perTurn, seconds / 2, null);
      const with_ = await turns(perTurn, seconds / 2, pool);
      cpuPerItem.push((with_.cpuNs / with_.turns - base.cpuNs / base.turns) / perTurn / 1000);
    }
    if (pool.stats().inThread !== 0) throw new Error('the pool fell back to in-thread checks');
    await pool.close();
    posts.sort((a, b) => a - b);
    const mean = posts.reduce((a, b) => a + b, 0) / posts.length;
    const p = (q: number) => posts[Math.min(posts.length - 1, Math.floor(q * posts.length))]! * 1000;
    console.log(
      `  ${String(perTurn).padStart(2)} per turn: main thread ${cpuPerItem.sort((a, b) => a - b)[1]!.toFixed(1)} µs CPU per item (median of 3);` +
        ` postMessage wall µs per call: mean ${(mean * 1000).toFixed(1)}, p50 ${p(0.5).toFixed(1)}, p99 ${p(0.99).toFixed(1)},` +
        ` max ${p(1).toFixed(0)} (${fmt(posts.length)} calls)`,
    );
    posts.length = 0;
  }
  Worker.prototype.postMessage = post;
  if (sink === 42) console.log('');

  // The messages alone, without waking anyone: encode + postMessage + receive + decode on one thread,
  // through a MessageChannel read with receiveMessageOnPort (the worker's side is not timed).
  const local = createOrderVerifier(domain);
  const results = items.map((i) => local.verify(i.order, i.signature));
  const { port1, port2 } = new MessageChannel();
  for (const batch of [1, 16]) {
    const rounds = Math.round(40_000 / batch);
    let sendMs = 0;
    let receiveMs = 0;
    for (let pass = 0; pass < 2; pass++) {
      sendMs = 0;
      receiveMs = 0;
      for (let i = 0; i < rounds; i++) {
        const start = (i * batch) % (items.length - batch);
        const t0 = performance.now();
        port1.postMessage(encodeRequest(i, items.slice(start, start + batch)));
        const t1 = performance.now();
        decodeRequest(receiveMessageOnPort(port2)!.message as string);
        port2.postMessage(encodeReply(i, results.slice(start, start + batch)));
        const t2 = performance.now();
        if (decodeReply(receiveMessageOnPort(port1)!.message as string).results.length !== batch)
          throw new Error('bad reply');
        receiveMs += performance.now() - t2;
        sendMs += t1 - t0;
      }
    }
    const perItem = (ms: number) => ((ms * 1000) / rounds / batch).toFixed(2);
    console.log(
      `  messages alone, batch ${String(batch).padStart(2)}: main thread ${perItem(sendMs)} µs per item to send, ` +
        `${perItem(receiveMs)} µs per item to receive the reply`,
    );
  }
  port1.close();
}

async function main() {
  if (process.env.VERIFY_BENCH === 'dispatch') {
    const orders = await makeSignedOrders(domain, 512, 1, 16);
    await dispatchCost(orders.map((o) => ({ order: o.order, signature: o.signature })));
    return;
  }
  console.log(
    `node ${process.version}, ${availableParallelism()} cores; signing ${count} orders with viem...`,
  );
  const orders = await makeSignedOrders(domain, count, 1, 16);
  const items: VerifyItem[] = orders.map((o) => ({ order: o.order, signature: o.signature }));

  // viem baseline on a small sample (it is ~25x slower).
  {
    const sample = orders.slice(0, 200);
    const types = {
      Order: [
        { name: 'marketHash', type: 'bytes32' },
        { name: 'baseToken', type: 'address' },
        { name: 'totalBetSize', type: 'uint256' },
        { name: 'percentageOdds', type: 'uint256' },
        { name: 'salt', type: 'uint256' },
        { name: 'expiry', type: 'uint256' },
        { name: 'maker', type: 'address' },
        { name: 'isMakerBettingOutcomeOne', type: 'bool' },
      ],
    } as const;
    const t0 = performance.now();
    for (const o of sample) {
      const message = {
        ...o.order,
        totalBetSize: BigInt(o.order.totalBetSize),
        percentageOdds: BigInt(o.order.percentageOdds),
        salt: BigInt(o.order.salt),
        expiry: BigInt(o.order.expiry),
      } as never;
      await recoverTypedDataAddress({ domain, types, primaryType: 'Order', message, signature: o.signature });
      hashTypedData({ domain, types, primaryType: 'Order', message });
    }
    console.log(
      `viem recoverTypedDataAddress (+hash), in-thread: ${fmt((sample.length / (performance.now() - t0)) * 1000)}/s`,
    );
  }

  // In-thread, synchronous: the ceiling of one core, and what the event loop pays for it.
  const verifier = createOrderVerifier(domain);
  const runs: number[] = [];
  const perCpuSecond: number[] = [];
  for (let run = 0; run < 4; run++) {
    let done = 0;
    const cpu = process.cpuUsage();
    const start = performance.now();
    const end = start + seconds * 1000;
    while (performance.now() < end) {
      for (let i = 0; i < items.length; i++) {
        const r = verifier.verify(items[i]!.order, items[i]!.signature);
        if (!r.ok) throw new Error('bad fixture');
      }
      done += items.length;
    }
    const used = process.cpuUsage(cpu);
    if (run > 0) {
      runs.push((done / (performance.now() - start)) * 1000);
      perCpuSecond.push((done / (used.user + used.system)) * 1e6);
    }
  }
  runs.sort((a, b) => a - b);
  perCpuSecond.sort((a, b) => a - b);
  console.log(
    `in-thread (custom encoder + native keccak + libsecp256k1): ${fmt(runs[1]!)}/s wall clock, ` +
      `${fmt(perCpuSecond[1]!)} per CPU-second (medians of 3; the second ignores other load on the machine)`,
  );

  // Pool: keep `inflight` batches outstanding and count completed checks; watch the main loop's delay.
  for (const size of [1, 2]) {
    for (const batch of [1, 16, 128]) {
      const pool = createVerifierPool({ domain, size, maxBatch: batch });
      await pool.verifyBatch(items.slice(0, 256)); // warm-up
      const histogram = monitorEventLoopDelay({ resolution: 10 });
      let done = 0;
      let cursor = 0;
      const start = performance.now();
      const end = start + seconds * 1000;
      histogram.enable();
      const elu = performance.eventLoopUtilization();
      await new Promise<void>((resolve) => {
        let outstanding = 0;
        const pump = () => {
          while (outstanding < size * 4 && performance.now() < end) {
            const slice = items.slice(cursor, cursor + batch);
            cursor = (cursor + batch) % (items.length - batch);
            outstanding++;
            void pool.verifyBatch(slice).then((results) => {
              outstanding--;
              done += results.length;
              if (performance.now() < end) pump();
              else if (outstanding === 0) resolve();
            });
          }
        };
        pump();
      });
      histogram.disable();
      const busy = performance.eventLoopUtilization(elu).utilization;
      const rate = (done / (performance.now() - start)) * 1000;
      const stats = pool.stats();
      await pool.close();
      console.log(
        `pool size ${size}, batch ${String(batch).padStart(3)}: ${fmt(rate)}/s` +
          `  (main thread busy ${(busy * 100).toFixed(0)}%, event-loop delay p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms;` +
          ` ${fmt(stats.onWorkers)} on workers, ${stats.inThread} in-thread)`,
      );
    }
  }

  await dispatchCost(items);
}

await main();
