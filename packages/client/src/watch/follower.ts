import type { Channel } from '@oddsbook/protocol';
import type { ChannelEvent, ChannelSubscription } from '../realtime/connection.js';

export type FollowerHandlers<C extends Channel> = {
  /** Reloads the state from REST (the first time, after a failed recovery, after a gap). */
  reseed: () => Promise<void>;
  apply: (data: Extract<ChannelEvent<C>, { type: 'publication' }>['data']) => void;
  /** The subscription is (re)established (`true`) or interrupted (`false`). */
  onLive?: (live: boolean) => void;
  /** A reseed failed (it is tried again with backoff), or the subscription ended for good. */
  onError?: (error: unknown) => void;
};

/**
 * Keeps a REST-seeded state in step with a channel: publications are applied as they come; whenever the
 * subscription could not recover what it missed (the first subscribe, history gone, a restart) or an offset
 * jumped, the state is reseeded from REST. One reseed runs at a time; one asked for while another runs
 * runs again after it (the first may have read before the gap).
 */
export class Follower<C extends Channel> {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private failures = 0;
  /** How many reseeds completed. */
  reseeds = 0;
  private readonly off: () => void;

  constructor(
    sub: ChannelSubscription<C>,
    private readonly handlers: FollowerHandlers<C>,
  ) {
    this.off = sub.on((event) => this.onEvent(event));
    // A subscription that is already live (shared) reports no new `subscribed`: seed now.
    if (sub.state === 'subscribed') {
      handlers.onLive?.(true);
      this.reseed();
    }
  }

  private onEvent(event: ChannelEvent<C>): void {
    if (this.stopped) return;
    switch (event.type) {
      case 'subscribed':
        this.handlers.onLive?.(true);
        if (!event.recovered) this.reseed();
        break;
      case 'gap':
        this.reseed();
        break;
      case 'interrupted':
        this.handlers.onLive?.(false);
        break;
      case 'publication':
        this.handlers.apply(event.data);
        break;
      case 'unsubscribed':
        this.handlers.onLive?.(false);
        this.handlers.onError?.(event.error);
        break;
    }
  }

  /** Runs a reseed now, or once more after the running one. */
  reseed(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.handlers.reseed();
          this.reseeds++;
          this.failures = 0;
        } catch (error) {
          if (this.stopped) return;
          this.handlers.onError?.(error);
          this.again = true;
          const wait = Math.min(10_000, 250 * 2 ** this.failures++);
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  stop(): void {
    this.stopped = true;
    this.off();
  }
}
