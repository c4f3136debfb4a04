import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommittedBatch } from '../sequencer/committed-batch.js';
import type { Intent } from '../sequencer/intents.js';
import { openPostgres, type PostgresDatabase } from '../store/postgres/postgres-database.js';
import { PostgresJournal } from '../store/postgres/postgres-journal.js';
import {
  createTestDatabase,
  requirePostgres,
  type TestDatabase,
} from '../store/test-support/postgres-test-database.js';
import { CommittedConsumer } from './committed-consumer.js';
import { batchMsgId, CommittedPublisher, ensureCommittedStream } from './committed-stream.js';
import {
  account,
  connectNats,
  LADDER_SIZE,
  natsClients,
  orderIntent,
  sequencerOn,
  uniqueNames,
  usd,
} from './test-support.js';
import { encodeBatch } from './wire-codec.js';

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

/**
 * A sequencer on a fresh PostgreSQL journal that commits `count` batches of real trading (funding, then
 * orders that cross), each kept in order, and its own stream to publish them on.
 */
async function committed(count: number) {
  const db: PostgresDatabase = await openPostgres({ url: await database.schema(), poolSize: 2 });
  const journal = await PostgresJournal.open(db.pool);
  const sequencer = sequencerOn(journal);
  const batches: CommittedBatch[] = [];
  sequencer.onCommitted((batch) => batches.push(batch));
  const fund: Intent[] = [1, 2].map((n) => ({
    kind: 'input',
    input: { kind: 'engine', command: { type: 'credit', account: account(n), amount: usd(1_000) } },
  }));
  await Promise.all(sequencer.decideAll(fund));
  for (let i = 1; i < count; i++) {
    await Promise.all(sequencer.decideAll([orderIntent(account(1 + (i % 2)), { one: i % 2 === 0 })]));
  }
  await sequencer.idle();
  const names = uniqueNames();
  await ensureCommittedStream(jsm, names);
  return {
    journal,
    batches,
    names,
    async close() {
      await jsm.streams.delete(names.stream).catch(() => {});
      await db.close();
    },
  };
}

/** A consumer of the stream from `after`, collecting what it is handed. */
function collector(
  rig: Awaited<ReturnType<typeof committed>>,
  after: number,
): { consumer: CommittedConsumer; got: CommittedBatch[]; fatal: unknown[] } {
  const got: CommittedBatch[] = [];
  const fatal: unknown[] = [];
  const consumer = new CommittedConsumer({
    js,
    jsm,
    stream: rig.names.stream,
    journal: rig.journal,
    ladderSize: LADDER_SIZE,
    after,
    handler: (batch) => {
      got.push(batch);
    },
    onFatal: (error) => fatal.push(error),
  });
  return { consumer, got, fatal };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const entriesOf = (batches: readonly CommittedBatch[]) => batches.flatMap((b) => b.entries);

describe('the committed stream', () => {
  it('delivers the batches in seq order, and repairs a batch the stream missed from the journal, events and all', async () => {
    const rig = await committed(3);
    try {
      const [one, two, three] = rig.batches;
      expect(two!.entries.some((e) => e.events.length > 0)).toBe(true);
      const publisher = new CommittedPublisher({ js, subject: rig.names.subject });
      publisher.publish(one!);
      publisher.publish(three!); // two is lost: the leader died between the journal and the stream
      await publisher.flushed();
      const { consumer, got, fatal } = collector(rig, 0);
      await consumer.start();
      await until(() => consumer.deliveredSeq === three!.lastSeq, 'the third batch is delivered');
      await consumer.stop();
      expect(fatal).toEqual([]);
      expect(consumer.repairs).toBe(1);
      // Each seq once, in order, with the events the sequencer made (rebuilt for the repaired batch).
      expect(entriesOf(got)).toEqual(entriesOf(rig.batches));
      expect(got[1]).toEqual(two);
    } finally {
      await rig.close();
    }
  });

  it('starts a late consumer after its last seq, and it follows what comes next', async () => {
    const rig = await committed(6);
    try {
      const publisher = new CommittedPublisher({ js, subject: rig.names.subject, window: 2 });
      for (const batch of rig.batches.slice(0, 4)) publisher.publish(batch);
      await publisher.flushed();
      const after = rig.batches[1]!.lastSeq;
      const { consumer, got } = collector(rig, after);
      await consumer.start();
      for (const batch of rig.batches.slice(4)) publisher.publish(batch);
      const last = rig.batches.at(-1)!.lastSeq;
      await until(() => consumer.deliveredSeq === last, 'the last batch is delivered');
      await consumer.stop();
      expect(consumer.repairs).toBe(0);
      expect(got).toEqual(rig.batches.slice(2));
    } finally {
      await rig.close();
    }
  });

  it('stores a republished batch once (its message id), and a consumer never delivers a seq twice', async () => {
    const rig = await committed(3);
    try {
      const [one, two, three] = rig.batches;
      const first = await js.publish(rig.names.subject, encodeBatch(one!), { msgID: batchMsgId(one!) });
      // A new leader republishes the same batch: deduplicated by the server.
      const again = await js.publish(rig.names.subject, encodeBatch(one!), { msgID: batchMsgId(one!) });
      expect([first.duplicate, again.duplicate, again.seq]).toEqual([false, true, first.seq]);
      // ... and the tail as one batch of other bounds (two and three together): only what is new is delivered.
      const publisher = new CommittedPublisher({ js, subject: rig.names.subject });
      publisher.publish(two!);
      publisher.publish({
        ...three!,
        firstSeq: two!.firstSeq,
        entries: [...two!.entries, ...three!.entries],
      });
      await publisher.flushed();
      expect((await jsm.streams.info(rig.names.stream)).state.messages).toBe(3);
      const { consumer, got } = collector(rig, 0);
      await consumer.start();
      await until(() => consumer.deliveredSeq === three!.lastSeq, 'the third batch is delivered');
      await consumer.stop();
      expect(entriesOf(got).map((e) => e.seq)).toEqual(entriesOf(rig.batches).map((e) => e.seq));
      expect(entriesOf(got)).toEqual(entriesOf(rig.batches));
    } finally {
      await rig.close();
    }
  });
});
