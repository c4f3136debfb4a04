import type { ActiveOrdersChannel, OrderRow } from '@oddsbook/protocol';
import type { ChannelSubscription } from '../realtime/connection.js';
import { Follower } from './follower.js';
import { Listeners } from './listeners.js';

export type OrderChange = { type: 'open' | 'update'; order: OrderRow } | { type: 'closed'; order: OrderRow };

/** A newer row wins; at the same time the one with less left (a fill, a cancel) is the later one. */
function isStale(next: OrderRow, held: OrderRow): boolean {
  if (next.updatedAt !== held.updatedAt) return next.updatedAt < held.updatedAt;
  if (held.status === 'INACTIVE' && next.status !== 'INACTIVE') return true;
  return BigInt(next.remainingSize) > BigInt(held.remainingSize);
}

export type LiveOrdersDeps = {
  subscription: ChannelSubscription<ActiveOrdersChannel>;
  /** Every open order of the account, from REST. */
  openOrders: () => AsyncIterable<OrderRow>;
  onError?: ((error: unknown) => void) | undefined;
};

/**
 * The account's open orders (PENDING or ACTIVE) kept live from `active_orders:{maker}` and reseeded from
 * `GET /orders-v3` whenever the channel could not recover what it missed. Rows are replaced by id in the
 * order they come; one older than the row held is skipped (a publication that raced a reseed).
 */
export class LiveOrders implements AsyncIterable<OrderChange> {
  private readonly rows = new Map<string, OrderRow>();
  private readonly changes = new Listeners<OrderChange>();
  private readonly follower: Follower<ActiveOrdersChannel>;
  /** Publications received while a reseed reads REST, applied over its result. */
  private buffered: OrderRow[] | null = null;
  private resolveReady!: () => void;
  private rejectReady!: (error: unknown) => void;
  /** Resolves once seeded; rejects if the subscription is refused for good before. */
  readonly ready: Promise<void>;
  live = false;

  constructor(private readonly deps: LiveOrdersDeps) {
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => undefined);
    this.follower = new Follower(deps.subscription, {
      reseed: () => this.reseedNow(),
      apply: ({ messageId: _id, ...row }) => (this.buffered ? this.buffered.push(row) : this.apply(row)),
      onLive: (live) => {
        this.live = live;
      },
      onError: (error) => {
        if ((error as { name?: string })?.name === 'RealtimeError') this.rejectReady(error);
        deps.onError?.(error);
      },
    });
  }

  private async reseedNow(): Promise<void> {
    this.buffered = [];
    try {
      const fresh = new Map<string, OrderRow>();
      for await (const row of this.deps.openOrders()) fresh.set(row.id, row);
      for (const [id, held] of this.rows) {
        const row = fresh.get(id);
        if (!row) {
          this.rows.delete(id);
          this.changes.emit({ type: 'closed', order: held });
        }
      }
      for (const row of fresh.values()) this.apply(row);
      for (const row of this.buffered) this.apply(row);
    } finally {
      this.buffered = null;
    }
    this.resolveReady();
  }

  private apply(row: OrderRow): void {
    const held = this.rows.get(row.id);
    if (held && isStale(row, held)) return;
    if (row.status === 'INACTIVE') {
      if (!held) return;
      this.rows.delete(row.id);
      this.changes.emit({ type: 'closed', order: row });
      return;
    }
    if (
      held &&
      held.updatedAt === row.updatedAt &&
      held.remainingSize === row.remainingSize &&
      held.status === row.status
    )
      return;
    this.rows.set(row.id, row);
    this.changes.emit({ type: held ? 'update' : 'open', order: row });
  }

  /** The open orders now, oldest first. */
  get orders(): OrderRow[] {
    return [...this.rows.values()].sort((a, b) =>
      a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0,
    );
  }

  get(orderId: string): OrderRow | undefined {
    return this.rows.get(orderId.toLowerCase());
  }

  get reseeds(): number {
    return this.follower.reseeds;
  }

  on(listener: (change: OrderChange) => void): () => void {
    return this.changes.on(listener);
  }

  [Symbol.asyncIterator](): AsyncIterator<OrderChange> {
    return this.changes.iterate();
  }

  reseed(): Promise<void> {
    return this.follower.reseed();
  }

  close(): void {
    this.follower.stop();
    this.deps.subscription.unsubscribe();
    this.changes.end();
  }
}
