/**
 * NATS as the cluster's transport (issue 37): `npm run bench:cluster-nats` (node --import tsx bench/cluster-nats.ts).
 * Needs nats-server with JetStream (`NATS_URL`, default nats://127.0.0.1:4222). Bounded in count; prints:
 * - request/reply: one intent (a credit) at a time from an API-side connection to a sequencer's intake on
 *   another connection (the journal in memory, so the figure is the transport and the codec): p50/p99;
 *   then 64 requests in flight: requests/s;
 * - the committed stream: real order batches (one order each) published as journal rows by the leader's
 *   publisher (window 256, file storage): batches/s, bytes per batch and the leader's encoding time per
 *   batch; then the rows read back through an ordered consumer and decoded as a follower decodes them
 *   (`decodeRows`), batches/s.
 * Each run makes its own stream and subjects and deletes the stream.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import {
  CommittedPublisher,
  committedMessage,
  decodeRows,
  ensureCommittedStream,
  rowsOf,
  seqsOf,
} from '../packages/server/src/cluster/committed-stream.js';
import { FirstResults } from '../packages/server/src/cluster/first-results.js';
import { RemoteSequencer } from '../packages/server/src/cluster/remote-sequencer.js';
import { SequencerIntake } from '../packages/server/src/cluster/sequencer-intake.js';
import {
  account,
  MemoryJournal,
  orderIntent,
  sequencerOn,
  uniqueNames,
  usd,
} from '../packages/server/src/cluster/test-support.js';
import type { CommittedBatch } from '../packages/server/src/sequencer/committed-batch.js';
import type { Intent } from '../packages/server/src/sequencer/intents.js';

const servers = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const ROUND_TRIPS = 3_000;
const CONCURRENT = 64;
const CONCURRENT_TOTAL = 20_000;
const BATCHES = 20_000;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const credit = (n: number): Intent => ({
  kind: 'input',
  input: { kind: 'engine', command: { type: 'credit', account: account(n), amount: usd(1) } },
});

const leaderNc = await connect({ servers });
const apiNc = await connect({ servers });
const names = uniqueNames();
console.log(`nats-server ${leaderNc.info?.version}, node ${process.version}`);

// ------------------------------------------------------------------ request/reply
{
  const sequencer = sequencerOn(new MemoryJournal());
  const firstResults = new FirstResults();
  const intake = new SequencerIntake({ nc: leaderNc, sequencer, firstResults, subject: names.submit });
  await intake.start();
  const remote = new RemoteSequencer({ nc: apiNc, subject: names.submit });
  for (let i = 0; i < 200; i++) await remote.decideAll([credit(i)])[0]; // warm-up
  const times: number[] = [];
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const t = performance.now();
    await remote.decideAll([credit(i)])[0];
    times.push((performance.now() - t) * 1000);
  }
  times.sort((a, b) => a - b);
  console.log(
    `request/reply, one at a time: p50 ${percentile(times, 0.5).toFixed(0)} µs, p99 ${percentile(times, 0.99).toFixed(0)} µs (${ROUND_TRIPS} requests)`,
  );
  const started = performance.now();
  let sent = 0;
  await Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      while (sent < CONCURRENT_TOTAL) {
        sent += 1;
        await remote.decideAll([credit(sent)])[0];
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `request/reply, ${CONCURRENT} in flight: ${(CONCURRENT_TOTAL / seconds).toFixed(0)} requests/s (${CONCURRENT_TOTAL} requests)`,
  );
  await intake.stop();
}

// ------------------------------------------------------------------ the committed stream
{
  const sequencer = sequencerOn(new MemoryJournal());
  const batches: CommittedBatch[] = [];
  sequencer.onCommitted((batch) => batches.push(batch));
  await Promise.all(
    sequencer.decideAll(
      [1, 2].map((n) => ({
        kind: 'input',
        input: { kind: 'engine', command: { type: 'credit', account: account(n), amount: usd(1_000_000) } },
      })),
    ),
  );
  for (let i = 0; batches.length < BATCHES; i++) {
    await sequencer.decideAll([orderIntent(account(1 + (i % 2)), { one: i % 2 === 0, size: usd(1) })])[0];
    await sequencer.idle();
  }
  // What the leader does per batch besides sending: its rows (payloads as journaled) as one message.
  const encodeStart = performance.now();
  const bytes = batches.reduce((sum, b) => sum + committedMessage(rowsOf(b)).data.length, 0) / batches.length;
  const encodeMicros = ((performance.now() - encodeStart) * 1000) / batches.length;
  const js = jetstream(leaderNc);
  const jsm = await jetstreamManager(leaderNc);
  await ensureCommittedStream(jsm, names);
  try {
    const publisher = new CommittedPublisher({ js, subject: names.subject });
    const started = performance.now();
    for (const batch of batches) publisher.publish(batch);
    await publisher.flushed();
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `committed stream publish (window 256, file): ${(batches.length / seconds).toFixed(0)} batches/s, ` +
        `${bytes.toFixed(0)} bytes per one-order batch, ${encodeMicros.toFixed(1)} µs to encode one, ` +
        `${publisher.counts.dropped} dropped (${batches.length} batches)`,
    );
    const last = batches.at(-1)!.lastSeq;
    const consumer = await jetstream(apiNc).consumers.get(names.stream);
    const readStart = performance.now();
    const messages = await consumer.consume();
    let rows = 0;
    for await (const msg of messages) {
      const seqs = seqsOf(msg.headers);
      if (!seqs) throw new Error('a message without seq headers');
      rows += decodeRows(msg.data, seqs.firstSeq, seqs.lastSeq).length;
      if (seqs.lastSeq >= last) break;
    }
    const readSeconds = (performance.now() - readStart) / 1000;
    await messages.close();
    console.log(
      `committed stream read (ordered consumer, rows decoded): ${(batches.length / readSeconds).toFixed(0)} batches/s (${rows} rows)`,
    );
  } finally {
    await jsm.streams.delete(names.stream).catch(() => {});
  }
}
await leaderNc.close();
await apiNc.close();
