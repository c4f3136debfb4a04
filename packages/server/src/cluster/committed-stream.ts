import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { headers, type MsgHdrs } from '@nats-io/transport-node';
import type { CommittedBatch } from '../sequencer/committed-batch.js';
import type { JournalRow } from '../sequencer/journal.js';
import { journalPayload } from '../sequencer/journal-codec.js';
import { WindowedPublisher } from './windowed-publisher.js';

export const COMMITTED_STREAM = 'ODDSBOOK_COMMITTED';
export const COMMITTED_SUBJECT = 'oddsbook.committed';
/** Headers beside each message, so a consumer knows its seqs without reading the rows. */
export const FIRST_SEQ_HEADER = 'Oddsbook-First-Seq';
export const LAST_SEQ_HEADER = 'Oddsbook-Last-Seq';

/**
 * The message id of a batch's rows: a republish (a retry, a leader's late retry after a failover) within
 * the duplicate window is dropped by the server. The last seq names the rows: the fenced journal never
 * holds two versions of a seq.
 */
export const rowsMsgId = (lastSeq: number): string => `batch-${lastSeq}`;

export type CommittedStreamNames = { stream: string; subject: string };
const DEFAULT_NAMES: CommittedStreamNames = { stream: COMMITTED_STREAM, subject: COMMITTED_SUBJECT };

/** How long the stream keeps a batch: a follower further behind repairs from the journal. */
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

// ---------------------------------------------------------------- the rows' format

export class CommittedRowsError extends Error {
  override name = 'CommittedRowsError';
}

/** A batch as the journal holds it: its rows, with the payloads the journal was written with. */
export const rowsOf = (batch: CommittedBatch): JournalRow[] =>
  batch.entries.map((entry) => ({ seq: entry.seq, ts: entry.ts, payload: journalPayload(entry) }));

/**
 * One line per row, `<seq> <ts> <payload>`: the payload is the journal's JSON text as it is (JSON.stringify
 * never writes a raw line break), so nothing is encoded again and a message is about the rows' size.
 */
export function encodeRows(rows: readonly JournalRow[]): string {
  let text = '';
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    text += `${i === 0 ? '' : '\n'}${row.seq} ${row.ts} ${row.payload}`;
  }
  return text;
}

const decoder = new TextDecoder();

/** The rows of a message, checked: consecutive seqs from `firstSeq` through `lastSeq` (its headers). */
export function decodeRows(data: Uint8Array | string, firstSeq: number, lastSeq: number): JournalRow[] {
  const text = typeof data === 'string' ? data : decoder.decode(data);
  const rows: JournalRow[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const space1 = text.indexOf(' ', start);
    const space2 = space1 < 0 ? -1 : text.indexOf(' ', space1 + 1);
    if (space1 < 0 || space2 < 0 || space2 >= end) throw new CommittedRowsError('a row without seq and time');
    const seq = Number(text.slice(start, space1));
    const ts = Number(text.slice(space1 + 1, space2));
    if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(ts) || seq !== firstSeq + rows.length)
      throw new CommittedRowsError(`row ${rows.length} of seqs ${firstSeq}..${lastSeq} is seq ${seq}`);
    rows.push({ seq, ts, payload: text.slice(space2 + 1, end) });
    start = end + 1;
  }
  if (rows.length === 0 || rows.at(-1)!.seq !== lastSeq)
    throw new CommittedRowsError(`not the rows of seqs ${firstSeq}..${lastSeq}`);
  return rows;
}

/** The seqs a message's headers say it holds; null when they are missing or not seqs. */
export function seqsOf(h: MsgHdrs | undefined): { firstSeq: number; lastSeq: number } | null {
  const firstSeq = Number(h?.get(FIRST_SEQ_HEADER));
  const lastSeq = Number(h?.get(LAST_SEQ_HEADER));
  if (!Number.isSafeInteger(firstSeq) || !Number.isSafeInteger(lastSeq) || firstSeq < 1 || lastSeq < firstSeq)
    return null;
  return { firstSeq, lastSeq };
}

/** A message of the stream: the rows, their id and seq headers. */
export function committedMessage(rows: readonly JournalRow[]) {
  const firstSeq = rows[0]!.seq;
  const lastSeq = rows.at(-1)!.seq;
  const h = headers();
  h.set(FIRST_SEQ_HEADER, String(firstSeq));
  h.set(LAST_SEQ_HEADER, String(lastSeq));
  return { data: encodeRows(rows), msgID: rowsMsgId(lastSeq), headers: h };
}

// ---------------------------------------------------------------- the leader's publisher

export type CommittedPublisherOptions = {
  js: JetStreamClient;
  subject?: string;
  /** Publishes awaiting their acknowledgement at most (default 256). */
  window?: number;
  /** Batches waiting for the window at most; beyond, the oldest are dropped (default 100,000). */
  maxQueued?: number;
  /** Attempts per batch before it is dropped (default 3). */
  attempts?: number;
  /** A batch was dropped: followers will repair it from the journal. */
  onDropped?: (rows: readonly JournalRow[], error: unknown) => void;
};

/**
 * The leader's publisher of committed batches as journal rows (`WindowedPublisher`): `publish` queues and
 * returns at once (the sequencer calls it after the submitters are answered; no acknowledgement ever waits
 * for the stream). The stream is the fast path, the journal the record: a batch that cannot be published
 * is dropped and reported, and followers repair the gap from the journal.
 */
export class CommittedPublisher {
  readonly #publisher: WindowedPublisher<readonly JournalRow[]>;

  constructor(o: CommittedPublisherOptions) {
    this.#publisher = new WindowedPublisher({
      js: o.js,
      subject: o.subject ?? COMMITTED_SUBJECT,
      window: o.window ?? 256,
      maxQueued: o.maxQueued ?? 100_000,
      ...(o.attempts ? { attempts: o.attempts } : {}),
      ...(o.onDropped ? { onDropped: o.onDropped } : {}),
      encode: committedMessage,
    });
  }

  /** A committed batch: its rows taken now (their payloads as journaled), sent when the window lets them. */
  publish(batch: CommittedBatch): void {
    this.#publisher.publish(rowsOf(batch));
  }

  /** Rows read from the journal (a test, a tool): sent as they are. */
  publishRows(rows: readonly JournalRow[]): void {
    if (rows.length > 0) this.#publisher.publish(rows);
  }

  get counts() {
    return this.#publisher.counts;
  }

  flushed(): Promise<void> {
    return this.#publisher.flushed();
  }
}
