import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { headers } from '@nats-io/transport-node';
import type { CommittedBatch } from '../sequencer/committed-batch.js';
import { WindowedPublisher } from './windowed-publisher.js';
import { encodeBatch } from './wire-codec.js';

export const COMMITTED_STREAM = 'ODDSBOOK_COMMITTED';
export const COMMITTED_SUBJECT = 'oddsbook.committed';
/** Headers beside each batch, so a consumer finds where to start without decoding payloads. */
export const FIRST_SEQ_HEADER = 'Oddsbook-First-Seq';
export const LAST_SEQ_HEADER = 'Oddsbook-Last-Seq';

/** The message id of a batch: a new leader republishing it within the duplicate window is ignored. */
export const batchMsgId = (batch: CommittedBatch): string => `batch-${batch.lastSeq}`;

export type CommittedStreamNames = { stream: string; subject: string };
const DEFAULT_NAMES: CommittedStreamNames = { stream: COMMITTED_STREAM, subject: COMMITTED_SUBJECT };

/** How long the stream keeps a batch: a consumer further behind repairs from the journal. */
export const COMMITTED_MAX_AGE_MS = 60 * 60_000;

/**
 * Creates the stream when it is missing: file storage, one subject (a stream on few subjects keeps its write
 * rate), batches kept an hour (the journal, not the stream, is the record; no byte limit, which JetStream
 * would reserve up front), and a duplicate window longer than any failover, in which a republished batch
 * is dropped.
 */
export async function ensureCommittedStream(
  jsm: JetStreamManager,
  names: CommittedStreamNames = DEFAULT_NAMES,
  duplicateWindowMs = 120_000,
): Promise<void> {
  try {
    await jsm.streams.info(names.stream);
    return;
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
  }
  await jsm.streams.add({
    name: names.stream,
    subjects: [names.subject],
    storage: 'file',
    max_age: COMMITTED_MAX_AGE_MS * 1_000_000,
    duplicate_window: duplicateWindowMs * 1_000_000,
  });
}

export type CommittedPublisherOptions = {
  js: JetStreamClient;
  subject?: string;
  /** Publishes awaiting their acknowledgement at most (default 256). */
  window?: number;
  /** Batches waiting for the window at most; beyond, the oldest are dropped (default 100,000). */
  maxQueued?: number;
  /** Attempts per batch before it is dropped (default 3). */
  attempts?: number;
  /** A batch was dropped: consumers will repair it from the journal. */
  onDropped?: (batch: CommittedBatch, error: unknown) => void;
};

/**
 * The leader's publisher of committed batches (`WindowedPublisher`): `publish` queues and returns at once
 * (the sequencer calls it after the submitters are answered; no acknowledgement ever waits for the
 * stream). The stream is the fast path, the journal the record: a batch that cannot be published is
 * dropped and reported, and consumers repair the gap from the journal.
 */
export class CommittedPublisher extends WindowedPublisher<CommittedBatch> {
  constructor(o: CommittedPublisherOptions) {
    super({
      js: o.js,
      subject: o.subject ?? COMMITTED_SUBJECT,
      window: o.window ?? 256,
      maxQueued: o.maxQueued ?? 100_000,
      ...(o.attempts ? { attempts: o.attempts } : {}),
      ...(o.onDropped ? { onDropped: o.onDropped } : {}),
      encode: (batch) => {
        const h = headers();
        h.set(FIRST_SEQ_HEADER, String(batch.firstSeq));
        h.set(LAST_SEQ_HEADER, String(batch.lastSeq));
        return { data: encodeBatch(batch), msgID: batchMsgId(batch), headers: h };
      },
    });
  }
}
