import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import type { StampedPublication } from '../realtime/stamped.js';
import { WindowedPublisher } from './windowed-publisher.js';

/** The leader's message of stamped publications: one batch's (its seq range), the books due, or a catalog change's. */
export type StampedMessage = {
  /** The epoch of the leader that stamped it; a node drops messages of a leader older than one it has seen. */
  leaderEpoch: number;
  /** Its number among this leader's messages, from 1: the message id (`pubs-<leaderEpoch>-<n>`). */
  n: number;
  publications: StampedPublication[];
};

export type PublicationsStreamNames = { publicationsStream: string; publications: string };

export const stampedMsgId = (message: Pick<StampedMessage, 'leaderEpoch' | 'n'>): string =>
  `pubs-${message.leaderEpoch}-${message.n}`;

/**
 * Creates the stream when it is missing. It only needs to reach as far back as a realtime node's history
 * (5 minutes): messages older than `maxAgeMs` or past `maxBytes` go, so it never grows without bound.
 * A retried publish carries the same message id and is stored once.
 */
export async function ensurePublicationsStream(
  jsm: JetStreamManager,
  names: PublicationsStreamNames,
  o: { maxAgeMs?: number; maxBytes?: number } = {},
): Promise<void> {
  try {
    await jsm.streams.info(names.publicationsStream);
    return;
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
  }
  await jsm.streams.add({
    name: names.publicationsStream,
    subjects: [names.publications],
    storage: 'file',
    max_age: (o.maxAgeMs ?? 10 * 60_000) * 1_000_000,
    max_bytes: o.maxBytes ?? 1024 * 1_048_576,
    duplicate_window: 120_000 * 1_000_000,
  });
}

type WirePublication = [
  channel: string,
  user: string | null,
  messageId: string,
  key: string | null,
  offset: number,
  epoch: string,
  dataJson: string,
];
type WireMessage = { l: number; n: number; p: WirePublication[] };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeStampedMessage(message: StampedMessage): Uint8Array {
  const wire: WireMessage = {
    l: message.leaderEpoch,
    n: message.n,
    p: message.publications.map((p) => [
      p.channel,
      p.user ?? null,
      p.messageId,
      p.key ?? null,
      p.offset,
      p.epoch,
      p.dataJson,
    ]),
  };
  return encoder.encode(JSON.stringify(wire));
}

const isInt = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isString = (v: unknown): v is string => typeof v === 'string';

/** The message, or undefined for bytes that are not one (a node skips it: its channels show a gap). */
export function decodeStampedMessage(bytes: Uint8Array): StampedMessage | undefined {
  let wire: WireMessage;
  try {
    wire = JSON.parse(decoder.decode(bytes)) as WireMessage;
  } catch {
    return undefined;
  }
  if (typeof wire !== 'object' || wire === null || !isInt(wire.l) || !isInt(wire.n) || !Array.isArray(wire.p))
    return undefined;
  const publications: StampedPublication[] = [];
  for (const p of wire.p) {
    if (!Array.isArray(p) || p.length !== 7) return undefined;
    const [channel, user, messageId, key, offset, epoch, dataJson] = p;
    if (
      !isString(channel) ||
      !isString(messageId) ||
      !isInt(offset) ||
      !isString(epoch) ||
      !isString(dataJson)
    )
      return undefined;
    if ((user !== null && !isString(user)) || (key !== null && !isString(key))) return undefined;
    const stamped: StampedPublication = { channel, messageId, dataJson, offset, epoch };
    if (user !== null) stamped.user = user;
    if (key !== null) stamped.key = key;
    publications.push(stamped);
  }
  return { leaderEpoch: wire.l, n: wire.n, publications };
}

export type StampedPublisherOptions = {
  js: JetStreamClient;
  subject: string;
  leaderEpoch: number;
  /** Publishes awaiting their acknowledgement at most (default 64). */
  window?: number;
  /** Messages waiting for the window at most; beyond, the oldest are dropped (default 10,000). */
  maxQueued?: number;
  /** Attempts per message before it is dropped (default 3). */
  attempts?: number;
  /** A message was dropped: its channels show a gap on the nodes, whose followers reseed. */
  onDropped?: (message: StampedMessage, error: unknown) => void;
  /** Bytes of publication data per message at most (default 256 KiB; NATS refuses a message over 1 MB). */
  maxMessageBytes?: number;
};

/** What a publication adds to a message besides its strings (the tuple's punctuation, offset, epoch). */
const PUBLICATION_OVERHEAD = 64;

const sizeOf = (p: StampedPublication): number =>
  PUBLICATION_OVERHEAD + p.channel.length + p.messageId.length + p.dataJson.length + (p.user?.length ?? 0);

/** The list cut into runs of at most `limit` bytes each (a publication larger than that alone), in order. */
export function splitBySize(publications: StampedPublication[], limit: number): StampedPublication[][] {
  const runs: StampedPublication[][] = [];
  let run: StampedPublication[] = [];
  let bytes = 0;
  for (const p of publications) {
    const size = sizeOf(p);
    if (run.length > 0 && bytes + size > limit) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
    run.push(p);
    bytes += size;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/**
 * The leader's publisher of stamped publications (`WindowedPublisher`): `publish` queues the list and
 * returns at once; NATS keeps their order (only a retried one can land after a later one,
 * which the nodes see as a gap). A message that cannot be published is dropped and reported.
 */
export class StampedPublisher {
  #n = 0;
  readonly #out: WindowedPublisher<StampedMessage>;

  constructor(private readonly o: StampedPublisherOptions) {
    this.#out = new WindowedPublisher({
      js: o.js,
      subject: o.subject,
      window: o.window ?? 64,
      maxQueued: o.maxQueued ?? 10_000,
      ...(o.attempts ? { attempts: o.attempts } : {}),
      ...(o.onDropped ? { onDropped: o.onDropped } : {}),
      encode: (message) => ({ data: encodeStampedMessage(message), msgID: stampedMsgId(message) }),
    });
  }

  get counts(): { published: number; dropped: number; pending: number } {
    return this.#out.counts;
  }

  /**
   * Queues these publications, in order, as one message or, for a list too large for one (a batch of many
   * orders makes hundreds), as several (none is sent for an empty list).
   */
  publish(publications: StampedPublication[]): void {
    for (const run of splitBySize(publications, this.o.maxMessageBytes ?? 256 * 1024)) {
      this.#n += 1;
      this.#out.publish({ leaderEpoch: this.o.leaderEpoch, n: this.#n, publications: run });
    }
  }

  /** Resolves once every message queued so far is published or dropped. */
  flushed(): Promise<void> {
    return this.#out.flushed();
  }
}
