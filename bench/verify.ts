/**
 * Order signature checks per second: in-thread vs the worker_threads pool.
 * Run: node --import tsx bench/verify.ts [orders=2000] [seconds=2]
 */
import { availableParallelism } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { OrderDomain } from '@oddsbook/protocol';
import { hashTypedData, recoverTypedDataAddress } from 'viem';
import { createOrderVerifier } from '../packages/server/src/signing/order-verifier.js';
import { makeSignedOrders } from '../packages/server/src/signing/test-orders.js';
import { createVerifierPool, type VerifyItem } from '../packages/server/src/signing/verifier-pool.js';

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

async function main() {
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
}

await main();
