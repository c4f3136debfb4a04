/** A stream and its subscribers, keyed by stream key (the channel, or channel#user for per-user channels). */
import type { ChannelStream } from './stream.js';

/** What a topic needs from a subscribed connection: a place to queue an encoded line. */
export type Subscriber = { enqueue(line: string): void };

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
  readonly stream: ChannelStream;
  readonly pushPrefix: string;
  readonly subscribers: Set<Subscription>;
  /** When its last subscriber left (clock ms); 0 while it has subscribers or was just opened. */
  idleSince: number;
};
