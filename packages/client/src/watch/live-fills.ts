import type { FillRow } from '@oddsbook/protocol';
import type { ChannelSubscription } from '../realtime/connection.js';
import { Follower } from './follower.js';
import { Listeners } from './listeners.js';

/** Fills only move forward: MATCHED, then LOCKED or FAILED, then SETTLED. */
const RANK: Readonly<Record<FillRow['status'], number>> = { MATCHED: 0, LOCKED: 1, FAILED: 1, SETTLED: 2 };

export type LiveFillsDeps = {
  subscription: ChannelSubscription<'account:fills_v3'>;
  /** The account's fills since `since`, from REST (oldest first). */
  fillsSince: (since: string) => AsyncIterable<FillRow>;
  since: string;
  onError?: ((error: unknown) => void) | undefined;
};

/**
 * The account's fills since a moment, kept live from `account:fills_v3` and reseeded from `GET /fills-v3`
 * whenever the channel could not recover what it missed: each fill is reported once when made and once per
 * later status (LOCKED, FAILED, SETTLED), never twice, whatever the reconnects.
 */
export class LiveFills implements AsyncIterable<FillRow> {
  private readonly rows = new Map<string, FillRow>();
  private readonly changes = new Listeners<FillRow>();
  private readonly follower: Follower<'account:fills_v3'>;
  private resolveReady!: () => void;
  private rejectReady!: (error: unknown) => void;
  /** Resolves once seeded; rejects if the subscription is refused for good before. */
  readonly ready: Promise<void>;
  live = false;

  constructor(private readonly deps: LiveFillsDeps) {
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => undefined);
    this.follower = new Follower(deps.subscription, {
      reseed: async () => {
        for await (const row of deps.fillsSince(deps.since)) this.apply(row);
        this.resolveReady();
      },
      apply: ({ messageId: _id, ...row }) => this.apply(row),
      onLive: (live) => {
        this.live = live;
      },
      onError: (error) => {
        if ((error as { name?: string })?.name === 'RealtimeError') this.rejectReady(error);
        deps.onError?.(error);
      },
    });
  }

  private apply(row: FillRow): void {
    if (row.createdAt < this.deps.since) return;
    const held = this.rows.get(row.id);
    if (held && RANK[row.status] <= RANK[held.status]) return;
    this.rows.set(row.id, row);
    this.changes.emit(row);
  }

  /** Every fill since `since`, in the state last seen, oldest first. */
  get fills(): FillRow[] {
    return [...this.rows.values()].sort((a, b) =>
      a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0,
    );
  }

  get reseeds(): number {
    return this.follower.reseeds;
  }

  /** Calls `listener` with each new fill and each status it moves to. */
  on(listener: (fill: FillRow) => void): () => void {
    return this.changes.on(listener);
  }

  [Symbol.asyncIterator](): AsyncIterator<FillRow> {
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
