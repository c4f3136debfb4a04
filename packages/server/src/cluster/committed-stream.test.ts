import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommittedBatch } from '../sequencer/committed-batch.js';
import type { AppliedEntry } from '../sequencer/inputs.js';
import type { Intent } from '../sequencer/intents.js';
import type { JournalRow } from '../sequencer/journal.js';
import { openPostgres } from '../store/postgres/postgres-database.js';
import { PostgresJournal } from '../store/postgres/postgres-journal.js';
import {
  createTestDatabase,
  requirePostgres,
  type TestDatabase,
} from '../store/test-support/postgres-test-database.js';
import {
  CommittedPublisher,
  CommittedRowsError,
  committedMessage,
  decodeRows,
  ensureCommittedStream,
  rowsOf,
} from './committed-stream.js';
import { type CommittedStreamSource, JournalFollower } from './journal-follower.js';
import {
  account,
  connectNats,
  LADDER_SIZE,
  natsClients,
  orderIntent,
  privateNatsServer,
  sequencerOn,
  uniqueNames,
  usd,
} from './test-support.js';

await requirePostgres();
let database: TestDatabase;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
beforeAll(async () => {
  nc = await connectNats();
  ({ js, jsm } = await natsClients(nc));
  database = await createTestDatabase();
});
afterAll(async () => {
  await nc?.close();
  await database?.drop();
});

/** Neither the journal's notifications nor its poll read it within a test: rows come from the stream or a gap. */
const STREAM_ONLY = { graceMs: 600_000 };
const NO_POLL = 600_000;

/** What a follower of the rig's stream is given, besides the stream. */
type FollowedStream = Omit<CommittedStreamSource, 'stream' | 'js'> & { js?: JetStreamClient };

/**
 * A leader as the cluster runs one: a sequencer appending to a fenced PostgreSQL journal (which notifies
 * each append) and publishing each committed batch on a stream of its own (unless `withhold` says not), and
 * followers of it.
 */
async function leader(o: { js?: JetStreamClient; jsm?: JetStreamManager } = {}) {
  const db = await openPostgres({ url: await database.schema(), poolSize: 3 });
  const base = await PostgresJournal.open(db.pool);
  const { rows } = await db.pool.query<{ epoch: string }>(
    `UPDATE sequencer_leader SET epoch = epoch + 1, node = 'test', since = 0 WHERE id = 1 RETURNING epoch::text AS epoch`,
  );
  const sequencer = sequencerOn(base.fencedBy(Number(rows[0]!.epoch)));
  const names = uniqueNames();
  const streams = o.jsm ?? jsm;
  await ensureCommittedStream(streams, names);
  const publisher = new CommittedPublisher({ js: o.js ?? js, subject: names.subject, attempts: 1 });
  const batches: CommittedBatch[] = [];
  const rig = {
    db,
    names,
    sequencer,
    publisher,
    batches,
    withhold: (_batch: CommittedBatch): boolean => false,
    /** `count` batches of one order each, crossing the one before. */
    async commit(count: number) {
      for (let i = 0; i < count; i++) {
        const who = account(1 + (batches.length % 2));
        await Promise.all(sequencer.decideAll([orderIntent(who, { one: batches.length % 2 === 0 })]));
        await sequencer.idle();
      }
    },
    /** The journal's rows of seqs `from`..`to`. */
    async rows(from: number, to: number): Promise<JournalRow[]> {
      const rows: JournalRow[] = [];
      for await (const page of base.after(from - 1)) rows.push(...page.filter((row) => row.seq <= to));
      return rows;
    },
    async follow(stream: FollowedStream, pollMs = NO_POLL) {
      const listener = await db.connect();
      const entries: AppliedEntry[] = [];
      const errors: unknown[] = [];
      const follower = await JournalFollower.start({
        journal: base,
        listener,
        ladderSize: LADDER_SIZE,
        pollMs,
        stream: { js: o.js ?? js, stream: names.stream, ...stream },
        onEntries: (page) => entries.push(...page),
        onError: (error) => errors.push(error),
      });
      closing.push(async () => {
        await follower.stop();
        await listener.end();
      });
      return { follower, entries, errors };
    },
    /** `follow`, once the follower consumes the stream; `start` is its seq then. */
    async followStreaming(stream: FollowedStream) {
      const followed = await rig.follow(stream);
      await until(() => followed.follower.streaming, 'the follower consumes the stream');
      return { ...followed, start: followed.follower.lastSeq };
    },
    /** Until the follower has every seq the leader committed. */
    async caughtUp(follower: JournalFollower, what = 'the follower is at the end') {
      await until(() => follower.lastSeq === sequencer.lastSeq, what);
    },
    async close() {
      for (const close of closing.splice(0).reverse()) await close();
      await publisher.flushed();
      await streams.streams.delete(names.stream).catch(() => {});
      await db.close();
    },
  };
  const closing: (() => Promise<void>)[] = [];
  sequencer.onCommitted((batch) => {
    batches.push(batch);
    if (!rig.withhold(batch)) publisher.publish(batch);
  });
  const fund: Intent[] = [1, 2].map((n) => ({
    kind: 'input',
    input: { kind: 'engine', command: { type: 'credit', account: account(n), amount: usd(1_000) } },
  }));
  await Promise.all(sequencer.decideAll(fund));
  await sequencer.idle();
  return rig;
}

/** `test` on a leader of its own, closed after it. */
async function withLeader(test: (rig: Rig) => Promise<void>): Promise<void> {
  const rig = await leader();
  try {
    await test(rig);
  } finally {
    await rig.close();
  }
}
type Rig = Awaited<ReturnType<typeof leader>>;

/** The follower has each seq after `start` once, in order, as the leader made it: all from the stream. */
function expectAllStreamed(
  rig: Rig,
  follower: JournalFollower,
  entries: AppliedEntry[],
  start: number,
): void {
  expect(follower.counts).toEqual({ fromStream: rig.sequencer.lastSeq - start, fromJournal: 0, repairs: 0 });
  expect(entries).toEqual(entriesAfter(rig.batches, start));
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const entriesAfter = (batches: readonly CommittedBatch[], seq: number) =>
  batches.flatMap((b) => b.entries).filter((entry) => entry.seq > seq);

describe('the committed stream', () => {
  it('carries the journal rows of a batch, checked against its seq headers', async () => {
    await withLeader(async (rig) => {
      await rig.commit(2);
      const batch = rig.batches.at(-1)!;
      const message = committedMessage(rowsOf(batch));
      expect([message.headers.get('Oddsbook-First-Seq'), message.headers.get('Oddsbook-Last-Seq')]).toEqual([
        String(batch.firstSeq),
        String(batch.lastSeq),
      ]);
      // The very rows the journal holds (the payloads it was written with, not encoded again).
      const rows = decodeRows(message.data, batch.firstSeq, batch.lastSeq);
      expect(rows).toEqual(await rig.rows(batch.firstSeq, batch.lastSeq));
      expect(() => decodeRows(message.data, batch.firstSeq + 1, batch.lastSeq + 1)).toThrow(
        CommittedRowsError,
      );
      expect(() => decodeRows('1 2', 1, 1)).toThrow(CommittedRowsError);
    });
  });

  it('feeds a follower: each seq from the stream, once, in order, with the events the leader made', async () => {
    await withLeader(async (rig) => {
      await rig.commit(2);
      const { follower, entries, errors, start } = await rig.followStreaming(STREAM_ONLY);
      expect(start).toBe(rig.sequencer.lastSeq);
      await rig.commit(6);
      await rig.caughtUp(follower);
      expectAllStreamed(rig, follower, entries, start);
      expect(errors).toEqual([]);
    });
  });

  it('repairs a batch the stream never got from the journal (a leader dead between the two)', async () => {
    await withLeader(async (rig) => {
      const { follower, entries, start } = await rig.followStreaming(STREAM_ONLY);
      const lost = rig.batches.length + 1;
      rig.withhold = () => rig.batches.length === lost;
      await rig.commit(4);
      await rig.caughtUp(follower);
      const { fromStream, fromJournal, repairs } = follower.counts;
      expect(repairs).toBe(1);
      expect(fromJournal).toBeGreaterThanOrEqual(rig.batches[lost - 1]!.entries.length);
      expect(fromStream + fromJournal).toBe(rig.sequencer.lastSeq - start);
      expect(entries).toEqual(entriesAfter(rig.batches, start));
    });
  });

  it('follows a stream deleted and made again: what was published meanwhile is lost, and read from the journal', async () => {
    await withLeader(async (rig) => {
      const { follower, entries, start } = await rig.followStreaming({ ...STREAM_ONLY, retryMs: 100 });
      await rig.commit(2);
      await jsm.streams.delete(rig.names.stream);
      await until(() => !follower.streaming, 'the follower notices the stream is gone');
      await rig.commit(2);
      await rig.publisher.flushed();
      expect(rig.publisher.counts.dropped).toBe(2);
      await ensureCommittedStream(jsm, rig.names);
      await until(() => follower.streaming, 'the follower consumes the new stream');
      await rig.commit(2);
      await rig.caughtUp(follower);
      expect(follower.counts.repairs).toBeGreaterThanOrEqual(1);
      expect(follower.counts.fromStream).toBeGreaterThanOrEqual(2);
      expect(entries).toEqual(entriesAfter(rig.batches, start));
    });
  });

  it('stores a republished batch once (its message id), and a follower applies no seq twice', async () => {
    await withLeader(async (rig) => {
      rig.withhold = () => true; // published by hand below
      const { follower, entries, start } = await rig.followStreaming(STREAM_ONLY);
      await rig.commit(2);
      const [two, three] = rig.batches.slice(-2);
      const stored = async () => (await jsm.streams.info(rig.names.stream)).state.messages;
      const before = await stored();
      const first = committedMessage(rowsOf(two!));
      const sent = await js.publish(rig.names.subject, first.data, first);
      // A retry, or a new leader's publisher, sends the same rows again: the server keeps one.
      const again = await js.publish(rig.names.subject, first.data, first);
      expect([sent.duplicate, again.duplicate, again.seq]).toEqual([false, true, sent.seq]);
      // ... and rows of other bounds that overlap (two and three read back from the journal, as one).
      rig.publisher.publishRows(await rig.rows(two!.firstSeq, three!.lastSeq));
      await rig.publisher.flushed();
      expect((await stored()) - before).toBe(2);
      await rig.caughtUp(follower);
      expectAllStreamed(rig, follower, entries, start);
    });
  });

  it('keeps following from the journal while NATS is stopped, and from the stream once it is back', async () => {
    const server = await privateNatsServer();
    const own = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    const clients = { js: jetstream(own), jsm: await jetstreamManager(own) };
    const rig = await leader(clients);
    try {
      const { follower, entries, start } = await rig.followStreaming({
        js: clients.js,
        graceMs: 100,
        retryMs: 100,
      });
      await rig.commit(2);
      await rig.caughtUp(follower);
      expect(follower.counts.fromStream).toBeGreaterThan(0);

      await server.stop();
      const fromJournal = follower.counts.fromJournal;
      await rig.commit(3);
      await rig.caughtUp(follower, 'the follower follows the journal alone');
      expect(follower.counts.fromJournal).toBeGreaterThan(fromJournal);

      await server.start();
      const fromStream = follower.counts.fromStream;
      const deadline = Date.now() + 30_000;
      while (follower.counts.fromStream === fromStream) {
        if (Date.now() > deadline) throw new Error('no rows from the stream once NATS is back');
        await rig.commit(1);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await rig.caughtUp(follower);
      expect(entries).toEqual(entriesAfter(rig.batches, start));
    } finally {
      await rig.close();
      await own.close();
      await server.close();
    }
  });
});
