import type { ChannelPolicy } from './channel-policy.js';
import { messageIdOf } from './hub.js';
import type { Publication } from './publication.js';
import type { StampedPublication } from './stamped.js';
import { encodeData } from './stream.js';

/** Channels numbered at once by default: about 150 bytes each, so 250,000 hold about 40 MB. */
export const DEFAULT_MAX_STAMPED_CHANNELS = 250_000;

export type PublicationStamperOptions = {
  /** The leader's epoch (ADR 0018): every channel's numbering under this leader is an epoch of its own. */
  leaderEpoch: number;
  /** The channel policy the realtime nodes serve (stream keys: per-user channels are numbered per user). */
  channelPolicy: ChannelPolicy;
  /** Channels whose numbering is remembered at most; past it the one that published last longest ago is forgotten. */
  maxChannels?: number;
};

type Counter = { readonly epoch: string; offset: number };

/**
 * Numbers publications per channel where they are made, the leading sequencer (ADR 0018), so that every
 * realtime node fed the numbered publications holds the same (channel, offset, epoch) history. A
 * channel's offsets are contiguous from 1 within its epoch. The epoch is `<leaderEpoch>-<n>`, `n` the
 * count of numberings this stamper began before it (base 36): a new leader begins every channel anew
 * (clients recovering across a failover reseed), and a channel forgotten to bound memory begins a new
 * epoch when it publishes again, never reusing an offset. Deterministic: the same publications in the
 * same order get the same stamps; nothing has to outlive the leader.
 */
export class PublicationStamper {
  readonly leaderEpoch: number;
  readonly #policy: ChannelPolicy;
  readonly #max: number;
  /** By stream key, the least recently published first (a publication moves its channel to the end). */
  readonly #counters = new Map<string, Counter>();
  #begun = 0;
  #forgotten = 0;

  constructor(options: PublicationStamperOptions) {
    if (!Number.isSafeInteger(options.leaderEpoch) || options.leaderEpoch < 1)
      throw new RangeError('a leader epoch is a positive integer');
    this.leaderEpoch = options.leaderEpoch;
    this.#policy = options.channelPolicy;
    this.#max = options.maxChannels ?? DEFAULT_MAX_STAMPED_CHANNELS;
    if (!Number.isSafeInteger(this.#max) || this.#max < 1) throw new RangeError('maxChannels must be >= 1');
  }

  /** Channels numbered now, and forgotten so far (to stay within `maxChannels`). */
  get counts(): { channels: number; forgotten: number } {
    return { channels: this.#counters.size, forgotten: this.#forgotten };
  }

  /**
   * The publications, in order, with their data encoded and their offsets and epochs. Throws, stamping
   * none, for a publication the channel policy or JSON refuses.
   */
  stamp(list: readonly Publication[]): StampedPublication[] {
    const prepared = list.map((publication) => {
      const target = this.#policy.publishTarget(publication.channel, publication.user);
      const messageId = messageIdOf(publication.data, publication.messageId);
      return { publication, target, messageId, dataJson: encodeData(publication.data, messageId) };
    });
    return prepared.map(({ publication, target, messageId, dataJson }) => {
      const stamped: StampedPublication = {
        channel: publication.channel,
        messageId,
        dataJson,
        offset: 0,
        epoch: '',
      };
      if (publication.user !== undefined) stamped.user = publication.user;
      if (publication.key !== undefined) stamped.key = publication.key;
      if (target.settings.historySize === 0) return stamped;
      const counter = this.#next(target.key);
      stamped.offset = counter.offset;
      stamped.epoch = counter.epoch;
      return stamped;
    });
  }

  #next(key: string): Counter {
    let counter = this.#counters.get(key);
    if (counter === undefined) {
      counter = { epoch: `${this.leaderEpoch}-${(this.#begun++).toString(36)}`, offset: 0 };
      this.#counters.set(key, counter);
      if (this.#counters.size > this.#max) {
        this.#counters.delete(this.#counters.keys().next().value!);
        this.#forgotten++;
      }
    } else {
      this.#counters.delete(key);
      this.#counters.set(key, counter);
    }
    counter.offset++;
    return counter;
  }
}
