/** A stream and its subscribers, keyed by stream key (the channel, or channel#user for per-user channels). */
import type { ChannelStream } from './stream.js';

/** What a topic needs from a subscribed connection: a place to queue an encoded line. */
export type Subscriber = {
  enqueue(line: string): void;
  /**
   * The stream this subscription followed was replaced (a new epoch, or a gap in what arrived): the
   * subscription ends with an unsubscribe push whose code makes the client subscribe again, recovering
   * what it can (else it reseeds).
   */
  resubscribe(subscription: Subscription): void;
};

export type Subscription = {
  readonly subscriber: Subscriber;
  readonly topic: Topic;
  /** Offset of the last publication this subscriber got (or was told about in its subscribe reply). */
  offset: number;
};

export type Topic = {
  readonly key: string;
  /** The channel name on the wire (shared by every user of a per-user channel). */
  readonly channel: string;
  /** Replaced when the channel's numbering changes under it (a stamped stream's new epoch or a gap, ADR 0018). */
  stream: ChannelStream;
  readonly pushPrefix: string;
  readonly subscribers: Set<Subscription>;
  /** When its last subscriber left (clock ms); 0 while it has subscribers or was just opened. */
  idleSince: number;
};
