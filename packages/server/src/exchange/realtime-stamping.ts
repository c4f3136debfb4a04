import type { JetStreamClient } from '@nats-io/jetstream';
import { StampedPublisher } from '../cluster/publications-stream.js';
import { PublicationStamper } from '../realtime/publication-stamper.js';
import {
  followExchangePublications,
  type PublishingExchange,
  realtimeLoggerOf,
} from './exchange-publications.js';
import { exchangeChannelPolicy } from './exchange-realtime.js';

export type RealtimeStampingLog = { info(o: object, msg: string): void; error(o: object, msg: string): void };

export type RealtimeStamping = {
  readonly stamper: PublicationStamper;
  readonly publisher: StampedPublisher;
  /** Stops making publications and waits until those made are published (or dropped). */
  stop(): Promise<void>;
};

/**
 * The stamping side of the realtime nodes (ADR 0018), on the node that projects (a projector node, or a
 * sequencer carrying the projector): the exchange's publications (each committed batch once projected,
 * books due, catalog changes; every channel, followed anywhere or not, since it cannot know who follows
 * what on which node) numbered per channel under `leaderEpoch` (the epoch of the lease it projects under)
 * and published on the publications stream, one message per list.
 */
export function startRealtimeStamping(
  exchange: PublishingExchange,
  o: { js: JetStreamClient; subject: string; leaderEpoch: number; log: RealtimeStampingLog },
): RealtimeStamping {
  const stamper = new PublicationStamper({
    leaderEpoch: o.leaderEpoch,
    channelPolicy: exchangeChannelPolicy({
      config: exchange.config,
      legacyChannelsOpen: () => exchange.legacy.channelsOpen,
    }),
  });
  const publisher = new StampedPublisher({
    js: o.js,
    subject: o.subject,
    leaderEpoch: o.leaderEpoch,
    onDropped: (message, error) =>
      o.log.error({ err: error, n: message.n }, 'stamped publications were not published'),
  });
  const stopFollowing = followExchangePublications(
    exchange,
    {
      publish(list) {
        try {
          publisher.publish(stamper.stamp(list));
        } catch (error) {
          o.log.error({ err: error }, 'realtime publications not stamped; their followers reseed');
        }
      },
    },
    { logger: realtimeLoggerOf(o.log) },
  );
  return {
    stamper,
    publisher,
    async stop() {
      stopFollowing();
      await publisher.flushed();
    },
  };
}
