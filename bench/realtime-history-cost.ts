/**
 * What the realtime hub's history really holds, against what it is charged:
 * `node --expose-gc --import tsx bench/realtime-history-cost.ts` (a few seconds).
 *
 * Appends publications of three kinds (a tiny object, an order row, the deepest book: 1,598 levels) to
 * streams sharing one budget, forces GCs, and prints per kept publication the heap it takes (heap used
 * after minus before), its JSON characters, the rest (the overhead `KEPT_OVERHEAD_BYTES` must cover), the
 * charge (`keptBytes`) over the real use, and the time an append takes (encoding included). Then the heap of
 * a stream that keeps nothing (an idle channel), with its hub topic's set of subscribers.
 */
import { HistoryBudget, KEPT_OVERHEAD_BYTES } from '../packages/server/src/realtime/history-budget.js';
import { ChannelStream, type StreamSettings } from '../packages/server/src/realtime/stream.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const collect = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const SETTINGS: StreamSettings = {
  historySize: 1e9,
  historyBytes: 1e15,
  historyTtlMs: 1e12,
  recoverable: true,
  recovery: 'stream',
};

function measure(label: string, count: number, streams: number, make: (i: number) => unknown): void {
  const before = collect();
  const budget = new HistoryBudget(1e9, 1e15);
  const list = Array.from({ length: streams }, () => new ChannelStream(SETTINGS, 0, undefined, budget));
  const started = performance.now();
  for (let i = 0; i < count; i++) list[i % streams]!.append(make(i), Date.now(), `${1_000_000 + i}:0`);
  const micros = ((performance.now() - started) * 1000) / count;
  const heap = collect() - before;
  let chars = 0;
  for (const stream of list) for (const p of stream.readAfter(0, count, 0)) chars += p.json.length;
  console.log(
    `${label.padEnd(22)} ${String(count).padStart(7)} kept: ${(heap / count).toFixed(0).padStart(6)} B each, ${(chars / count).toFixed(0).padStart(6)} JSON characters, overhead ${((heap - chars) / count).toFixed(0).padStart(4)} B (charged ${KEPT_OVERHEAD_BYTES}), charge / heap ${(budget.bytes / heap).toFixed(2)}, ${micros.toFixed(1)} µs an append`,
  );
}

const row = (i: number) => ({
  id: `0x${i.toString(16).padStart(64, '0')}`,
  marketHash: `0x${'ab'.repeat(32)}`,
  userAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
  wallet: '0x00000000000000000000000000000000000000aa',
  isBettingOutcomeOne: true,
  percentageOdds: '50000000000000000000',
  totalBetSize: '1000000',
  remainingSize: '1000000',
  status: 'ACTIVE',
  createdAt: '2026-11-28T00:00:00.000Z',
});
const levels = Array.from({ length: 799 }, (_, i) => ({
  percentageOdds: (BigInt(i + 1) * 125_000_000_000_000_000n).toString(),
  size: '10000',
}));
const book = (i: number) => ({
  marketHash: `0x${'ab'.repeat(32)}`,
  eventId: 'L1-E1',
  outcomeOne: levels,
  outcomeTwo: levels,
  version: String(i).padStart(20, '0'),
});

measure('tiny, 1 stream', 200_000, 1, (i) => ({ i }));
measure('tiny, 1,000 streams', 200_000, 1_000, (i) => ({ i }));
measure('order row, 100 streams', 100_000, 100, row);
measure('deepest book', 2_000, 16, book);

const before = collect();
const idle = Array.from({ length: 100_000 }, () => ({
  stream: new ChannelStream(SETTINGS, Date.now()),
  subscribers: new Set(),
  idleSince: Date.now(),
}));
const perStream = (collect() - before) / idle.length;
console.log(
  `a stream that keeps nothing, with its topic's subscriber set: ${perStream.toFixed(0)} B (${idle.length} of them)`,
);
