import type { ConsumerMessages, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { type CommittedBatch, committedBatch } from '../sequencer/committed-batch.js';
import type { AppliedEntry } from '../sequencer/inputs.js';
import type { Journal, JournalRow } from '../sequencer/journal.js';
import { recoverEngine } from '../sequencer/recovery.js';
import { COMMITTED_STREAM, LAST_SEQ_HEADER } from './committed-stream.js';
import { decodeBatch } from './wire-codec.js';

/** What a consumer does with each batch, in seq order (the pipeline's steps: project, publish, chain). */
export type BatchHandler = (batch: CommittedBatch) => void | Promise<void>;

export type CommittedConsumerOptions = {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream?: string;
  /** Where gaps are read from: the journal of record. */
  journal: Pick<Journal, 'after' | 'latestCheckpoint' | 'features'>;
  /** The engine's ladder size (to rebuild events when repairing a gap). */
  ladderSize: number;
  /** The last seq already handled: batches from the next one on are delivered. */
  after: number;
  handler: BatchHandler;
  /** The consumer stopped: the handler failed, or a gap could not be repaired. */
  onFatal?: (error: unknown) => void;
};

export class GapRepairError extends Error {
  override name = 'GapRepairError';
}

/**
 * Follows the committed stream from the seq after `after` and hands each batch to the handler in journal
 * seq order, each seq exactly once (the next batch waits for the handler). Where the stream skips seqs (a
 * leader died between the journal and the stream, a publish was dropped, the stream begins after `after`),
 * the missing entries are read from the journal. A batch or its head already delivered (a republish after
 * a failover) is dropped.
 *
 * The journal holds the inputs only, not the events they made; events are what every consumer needs
 * (fills, balances, outcomes). A repair therefore rebuilds them as recovery does: the engine from the newest
 * checkpoint at or before the gap, then the journal replayed through the gap's end. That costs the entries
 * since that checkpoint, which is acceptable for what only a failover or a lost publish causes; keeping a
 * replica engine in every consumer would cost memory and CPU all the time instead.
 */
export class CommittedConsumer {
  readonly #stream: string;
  #delivered: number;
  #messages: ConsumerMessages | null = null;
  #stopped = false;
  #done: Promise<void> | null = null;
  #repairs = 0;

  constructor(private readonly o: CommittedConsumerOptions) {
    this.#stream = o.stream ?? COMMITTED_STREAM;
    this.#delivered = o.after;
  }

  /** Seq of the last entry handed to the handler. */
  get deliveredSeq(): number {
    return this.#delivered;
  }

  /** Gaps repaired from the journal so far. */
  get repairs(): number {
    return this.#repairs;
  }

  /** Starts following; resolves once the consumer is set up (batches then arrive on their own). */
  async start(): Promise<void> {
    const startSeq = await this.#startSeq();
    const consumer = await this.o.js.consumers.get(this.#stream, { opt_start_seq: startSeq });
    this.#messages = await consumer.consume();
    this.#done = this.#follow(this.#messages);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#messages?.close();
    await this.#done;
  }

  /** Delivers the journal's entries after the last delivered through `seq` (the stream may never bring them). */
  async repairTo(seq: number): Promise<void> {
    if (seq <= this.#delivered) return;
    const from = this.#delivered;
    const entries: AppliedEntry[] = [];
    const through = {
      after: (s: number) => pagesThrough(this.o.journal.after(s), seq),
      latestCheckpoint: () => this.o.journal.latestCheckpoint(),
      features: this.o.journal.features,
    };
    await recoverEngine(through, this.o.ladderSize, {
      after: from,
      onEntries: (page) => {
        entries.push(...page);
      },
    });
    if (entries.length !== seq - from || entries[0]?.seq !== from + 1)
      throw new GapRepairError(
        `the journal does not hold seqs ${from + 1}..${seq} (read ${entries.length} entries)`,
      );
    this.#repairs += 1;
    for (const batch of batchesOf(entries)) await this.#deliver(batch);
  }

  async #follow(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const msg of messages) {
        if (this.#stopped) break;
        const batch = decodeBatch(msg.data);
        if (batch.lastSeq <= this.#delivered) continue;
        if (batch.firstSeq > this.#delivered + 1) await this.repairTo(batch.firstSeq - 1);
        await this.#deliver(batch);
      }
    } catch (error) {
      if (this.#stopped) return;
      this.#stopped = true;
      await messages.close().catch(() => {});
      this.o.onFatal?.(error);
    }
  }

  async #deliver(batch: CommittedBatch): Promise<void> {
    // A batch whose head was delivered (republished with other bounds): its tail only.
    const fresh =
      batch.firstSeq > this.#delivered
        ? batch
        : committedBatch(batch.entries.filter((entry) => entry.seq > this.#delivered));
    await this.o.handler(fresh);
    this.#delivered = fresh.lastSeq;
  }

  /**
   * The stream sequence of the first batch that ends after `after`: a binary search on the seq headers
   * (the leader publishes in seq order). Any doubt starts from the stream's first message; batches
   * delivered already are skipped, so the search only saves time.
   */
  async #startSeq(): Promise<number> {
    const { state } = await this.o.jsm.streams.info(this.#stream);
    let lo = state.first_seq;
    let hi = state.last_seq + 1;
    if (state.messages === 0) return hi;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const msg = await this.o.jsm.streams.getMessage(this.#stream, { seq: mid }).catch(() => null);
      const lastSeq = Number(msg?.header.get(LAST_SEQ_HEADER));
      if (!msg || !Number.isSafeInteger(lastSeq)) return state.first_seq;
      if (lastSeq <= this.o.after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Entries regrouped as batches: runs of one time (the journal does not keep batch bounds; a batch has one time). */
function batchesOf(entries: readonly AppliedEntry[]): CommittedBatch[] {
  const batches: CommittedBatch[] = [];
  let start = 0;
  for (let i = 1; i <= entries.length; i++) {
    if (i === entries.length || entries[i]!.ts !== entries[start]!.ts) {
      batches.push(committedBatch(entries.slice(start, i)));
      start = i;
    }
  }
  return batches;
}

async function* pagesThrough(
  pages: AsyncIterable<readonly JournalRow[]>,
  throughSeq: number,
): AsyncIterable<readonly JournalRow[]> {
  for await (const rows of pages) {
    const kept = rows.filter((row) => row.seq <= throughSeq);
    if (kept.length > 0) yield kept;
    if (kept.length < rows.length) return;
  }
}
