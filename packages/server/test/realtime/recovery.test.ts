import type { Centrifuge, PublicationContext, SubscribedContext, Subscription } from 'centrifuge';
import { afterEach, describe, expect, it } from 'vitest';
import { createChannelPolicy, DEFAULT_STREAM_SETTINGS } from '../../src/realtime/channel-policy.js';
import {
  ALICE,
  BOB,
  BOOK,
  closeAll,
  MARKET,
  officialClient,
  startHub,
  TAPE,
  type TestHub,
  tokenFor,
  until,
} from './helpers.js';

let t: TestHub | undefined;
const clients: Centrifuge[] = [];

afterEach(async () => {
  await closeAll(t, clients);
  t = undefined;
});

type Watched = { sub: Subscription; subscribed: SubscribedContext[]; pubs: PublicationContext[] };

async function subscribedClient(channel: string): Promise<{ c: Centrifuge } & Watched> {
  const c = officialClient(t!.url, { token: tokenFor(ALICE) });
  clients.push(c);
  const sub = c.newSubscription(channel, { positioned: true, recoverable: true });
  const subscribed: SubscribedContext[] = [];
  const pubs: PublicationContext[] = [];
  sub.on('subscribed', (ctx) => subscribed.push(ctx));
  sub.on('publication', (ctx) => pubs.push(ctx));
  sub.subscribe();
  c.connect();
  await until(() => subscribed.length === 1, 5000, 'subscribed');
  return { c, sub, subscribed, pubs };
}

/** Cuts every connection at the TCP level, as a network failure would (the client sees 1006 and reconnects). */
function cutConnections(): void {
  for (const socket of t!.sockets) socket.destroy();
}

const offsets = (pubs: PublicationContext[]) => pubs.map((p) => p.offset);

describe('recovery after a reconnect', () => {
  it('recovers the publications missed while disconnected, exactly once and in order', async () => {
    t = await startHub();
    const w = await subscribedClient(TAPE);
    for (let i = 1; i <= 3; i++) t.hub.publish(TAPE, { i });
    await until(() => w.pubs.length === 3);

    cutConnections();
    await until(() => w.sub.state === 'subscribing', 5000, 'subscription interrupted');
    for (let i = 4; i <= 8; i++) t.hub.publish(TAPE, { i });
    await until(() => w.subscribed.length === 2, 5000, 'resubscribed');
    await until(() => w.pubs.length === 8, 5000, 'recovered publications');
    t.hub.publish(TAPE, { i: 9 });
    await until(() => w.pubs.length === 9);

    expect(w.subscribed[1]).toMatchObject({
      wasRecovering: true,
      recovered: true,
      hasRecoveredPublications: true,
    });
    expect(offsets(w.pubs)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(w.pubs.map((p) => (p.data as { i: number }).i)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const ids = w.pubs.map((p) => (p.data as { messageId: string }).messageId);
    expect(new Set(ids).size).toBe(9);
  });

  it('keeps nothing for a channel nobody follows; once followed, keeps it for recovery after its subscribers left', async () => {
    t = await startHub();
    expect(t.hub.observed(TAPE)).toBe(false);
    expect(t.hub.publish(TAPE, { i: 0 })).toMatchObject({ offset: 0, epoch: '' });
    expect(t.hub.stats()).toMatchObject({ topics: 0, historyKept: 0, publications: 0 });

    const w = await subscribedClient(TAPE);
    expect(t.hub.observed(TAPE)).toBe(true);
    expect(t.hub.observed('account:fills_v3', ALICE)).toBe(false); // per user: nobody follows Alice's
    t.hub.publish(TAPE, { i: 1 });
    await until(() => w.pubs.length === 1);
    w.c.disconnect();
    await until(() => t!.hub.stats().subscriptions === 0, 5000, 'left');
    expect(t.hub.observed(TAPE)).toBe(true);
    t.hub.publish(TAPE, { i: 2 });
    expect(t.hub.stats()).toMatchObject({ topics: 1, historyKept: 2, publications: 2 });

    w.c.connect();
    await until(() => w.subscribed.length === 2, 5000, 'resubscribed');
    expect(w.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: true });
    await until(() => w.pubs.length === 2, 5000, 'recovered');
    expect(w.pubs.map((p) => p.data)).toMatchObject([{ i: 1 }, { i: 2 }]);
    expect(offsets(w.pubs)).toEqual([1, 2]);
  });

  it('recovers what a channel got after its only follower left, even its first publication', async () => {
    t = await startHub();
    const w = await subscribedClient(TAPE);
    expect(w.subscribed[0]).toMatchObject({ recoverable: true, streamPosition: { offset: 0 } });
    cutConnections();
    await until(() => t!.hub.stats().subscriptions === 0, 5000, 'left');
    // Nobody follows it now, but the follower that left holds its epoch and offset 0.
    expect(t.hub.observed(TAPE)).toBe(true);
    t.hub.publish(TAPE, { i: 1 });
    await until(() => w.subscribed.length === 2, 5000, 'resubscribed');
    expect(w.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: true });
    await until(() => w.pubs.length === 1, 5000, 'recovered');
    expect(w.pubs.map((p) => p.data)).toMatchObject([{ i: 1 }]);
  });

  it('forgets a channel nobody followed for its history TTL, and keeps at most maxIdleStreams', async () => {
    let now = Date.now();
    t = await startHub({ clock: { now: () => now }, sweepIntervalMs: 10, maxIdleStreams: 2 });
    const w = await subscribedClient(TAPE);
    w.c.disconnect();
    await until(() => t!.hub.stats().subscriptions === 0, 5000, 'left');
    now += DEFAULT_STREAM_SETTINGS.recent_trades.historyTtlMs - 1000;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(t.hub.observed(TAPE)).toBe(true);
    now += 1000;
    await until(() => !t!.hub.observed(TAPE), 5000, 'forgotten after the window');
    expect(t.hub.stats()).toMatchObject({ topics: 0, idleTopics: 0 });

    // Three channels left behind: the one left first goes, whatever the window says.
    for (const channel of ['markets:global', 'fixtures:global', 'main_line:global']) {
      t.hub.position(channel);
      expect(t.hub.observed(channel)).toBe(true);
    }
    expect(t.hub.stats()).toMatchObject({ topics: 2, idleTopics: 2 });
    expect(t.hub.observed('markets:global')).toBe(false);
  });

  it('recovers with nothing missed (recovered, no publications)', async () => {
    t = await startHub();
    const w = await subscribedClient(TAPE);
    t.hub.publish(TAPE, { i: 1 });
    await until(() => w.pubs.length === 1);
    cutConnections();
    await until(() => w.subscribed.length === 2, 5000, 'resubscribed');
    expect(w.subscribed[1]).toMatchObject({
      wasRecovering: true,
      recovered: true,
      hasRecoveredPublications: false,
    });
    expect(w.pubs).toHaveLength(1);
  });

  it('fails over cleanly when the history no longer covers the gap: recovered false, no stale publications', async () => {
    t = await startHub({
      channelPolicy: createChannelPolicy({
        streams: { recent_trades: { ...DEFAULT_STREAM_SETTINGS.recent_trades, historySize: 5 } },
      }),
    });
    const w = await subscribedClient(TAPE);
    t.hub.publish(TAPE, { i: 1 });
    await until(() => w.pubs.length === 1);

    cutConnections();
    await until(() => w.sub.state === 'subscribing');
    for (let i = 2; i <= 10; i++) t.hub.publish(TAPE, { i });
    await until(() => w.subscribed.length === 2, 5000, 'resubscribed');
    expect(w.subscribed[1]).toMatchObject({
      wasRecovering: true,
      recovered: false,
      hasRecoveredPublications: false,
    });
    expect(w.subscribed[1]!.streamPosition?.offset).toBe(10);
    expect(w.pubs).toHaveLength(1);

    // The client reseeds from REST; later publications arrive normally.
    t.hub.publish(TAPE, { i: 11 });
    await until(() => w.pubs.length === 2);
    expect(offsets(w.pubs)).toEqual([1, 11]);
  });

  it('fails recovery when the hub-wide history cap dropped the gap for other channels, and says so in its stats', async () => {
    t = await startHub({ maxHistoryPublications: 5 });
    const w = await subscribedClient(TAPE);
    t.hub.publish(TAPE, { i: 1 });
    await until(() => w.pubs.length === 1);

    cutConnections();
    await until(() => w.sub.state === 'subscribing');
    t.hub.publish(TAPE, { i: 2 }); // missed; then another user's channel pushes it out of the hub's 5
    const bobs = `account:orders_v3_#${BOB}`;
    t.hub.position(bobs); // followed: a channel nobody follows keeps nothing
    for (let n = 0; n < 5; n++) t.hub.publish(bobs, { n });
    expect(t.hub.stats()).toMatchObject({ historyKept: 5, historyEvicted: 2 });
    await until(() => w.subscribed.length === 2, 5000, 'resubscribed');
    expect(w.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: false });
    expect(w.subscribed[1]!.streamPosition?.offset).toBe(2);
    expect(w.pubs).toHaveLength(1);
  });

  it('fails recovery when the missed publications are older than the history TTL (5 minutes)', async () => {
    let now = Date.now();
    t = await startHub({ clock: { now: () => now } });
    const w = await subscribedClient(TAPE);
    t.hub.publish(TAPE, { i: 1 });
    await until(() => w.pubs.length === 1);

    cutConnections();
    await until(() => w.sub.state === 'subscribing');
    t.hub.publish(TAPE, { i: 2 });
    now += 5 * 60_000 + 1;
    await until(() => w.subscribed.length === 2, 5000, 'resubscribed');
    expect(w.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: false });
    expect(w.subscribed[1]!.streamPosition?.offset).toBe(2);
    expect(w.pubs).toHaveLength(1);
  });

  it('fails recovery when the stream is a new one (server restart: a new epoch)', async () => {
    t = await startHub();
    const w = await subscribedClient(TAPE);
    t.hub.publish(TAPE, { i: 1 });
    await until(() => w.pubs.length === 1);
    const oldEpoch = w.subscribed[0]!.streamPosition!.epoch;

    // A restart: a new hub (new streams) on the same port.
    const { port } = new URL(t.url);
    await t.close();
    t = await startHub({}, Number(port));
    await until(() => w.subscribed.length === 2, 10_000, 'resubscribed to the new server');
    expect(w.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: false });
    expect(w.subscribed[1]!.streamPosition!.epoch).not.toBe(oldEpoch);
  });

  it('answers 112 to a getState client whose position is unrecoverable, which reloads its state and recovers', async () => {
    t = await startHub();
    t.hub.position(TAPE); // handed out with a snapshot: the stream keeps what follows
    for (let i = 1; i <= 3; i++) t.hub.publish(TAPE, { i });
    const c = officialClient(t.url, { token: tokenFor(ALICE) });
    clients.push(c);
    let calls = 0;
    const sub = c.newSubscription(TAPE, {
      positioned: true,
      recoverable: true,
      // The first state is stale (another epoch); the second comes with a fresh snapshot.
      getState: async () => (++calls === 1 ? { offset: 1, epoch: 'stale' } : t!.hub.position(TAPE)),
    });
    const subscribed: SubscribedContext[] = [];
    const errors: number[] = [];
    const pubs: PublicationContext[] = [];
    sub.on('subscribed', (ctx) => subscribed.push(ctx));
    sub.on('error', (ctx) => errors.push(ctx.error.code));
    sub.on('publication', (ctx) => pubs.push(ctx));
    sub.subscribe();
    c.connect();
    await until(() => subscribed.length === 1, 5000, 'subscribed');
    expect(calls).toBe(2);
    expect(subscribed[0]).toMatchObject({ wasRecovering: true, recovered: true });
    expect(t.hub.position(TAPE).offset).toBe(3);
    t.hub.publish(TAPE, { i: 4 });
    await until(() => pubs.length === 1);
    expect(pubs[0]!.offset).toBe(4);
  });

  it('does not try to recover a channel without history', async () => {
    t = await startHub();
    const w = await subscribedClient('best_odds:global');
    t.hub.publish('best_odds:global', { i: 1 });
    await until(() => w.pubs.length === 1);
    cutConnections();
    await until(() => w.subscribed.length === 2, 5000, 'resubscribed');
    expect(w.subscribed[1]).toMatchObject({ recoverable: false, wasRecovering: false, recovered: false });
  });
});

describe('book channels recover in cache mode', () => {
  const EVENT_BOOKS = 'order_book:event_L1-E1';
  const OTHER = `0x${'cd'.repeat(32)}`;
  const book = (marketHash: string, version: number) => ({
    marketHash,
    version: String(version).padStart(20, '0'),
    outcomeOne: [{ percentageOdds: '50000000000000000000', size: String(version) }],
  });
  const versions = (pubs: PublicationContext[]) =>
    pubs.map((p) => Number((p.data as { version: string }).version));

  it('gives a client that missed several books only the latest, recovered, and it takes it (offsets not contiguous)', async () => {
    t = await startHub();
    const w = await subscribedClient(BOOK);
    for (let v = 1; v <= 3; v++) t.hub.publish(BOOK, book(MARKET, v), { key: MARKET });
    await until(() => w.pubs.length === 3);

    cutConnections();
    await until(() => w.sub.state === 'subscribing', 5000, 'subscription interrupted');
    for (let v = 4; v <= 8; v++) t.hub.publish(BOOK, book(MARKET, v), { key: MARKET });
    expect(t.hub.stats().historyKept).toBe(1);
    await until(() => w.subscribed.length === 2, 5000, 'resubscribed');
    await until(() => w.pubs.length === 4, 5000, 'the latest book');
    expect(w.subscribed[1]).toMatchObject({
      wasRecovering: true,
      recovered: true,
      hasRecoveredPublications: true,
    });
    t.hub.publish(BOOK, book(MARKET, 9), { key: MARKET });
    await until(() => w.pubs.length === 5);
    expect(offsets(w.pubs)).toEqual([1, 2, 3, 8, 9]);
    expect(versions(w.pubs)).toEqual([1, 2, 3, 8, 9]);
    expect(w.sub.state).toBe('subscribed');

    // Its position moved with the latest book: another cut with nothing missed recovers nothing.
    cutConnections();
    await until(() => w.subscribed.length === 3, 5000, 'resubscribed again');
    expect(w.subscribed[2]).toMatchObject({ recovered: true, hasRecoveredPublications: false });
    expect(w.pubs).toHaveLength(5);
  });

  it('recovers the latest book of each market of an event channel, in publication order', async () => {
    t = await startHub();
    const w = await subscribedClient(EVENT_BOOKS);
    t.hub.publish(EVENT_BOOKS, book(MARKET, 1), { key: MARKET });
    t.hub.publish(EVENT_BOOKS, book(OTHER, 1), { key: OTHER });
    await until(() => w.pubs.length === 2);

    cutConnections();
    await until(() => w.sub.state === 'subscribing', 5000, 'subscription interrupted');
    t.hub.publish(EVENT_BOOKS, book(MARKET, 2), { key: MARKET }); // 3, superseded by 5
    t.hub.publish(EVENT_BOOKS, book(OTHER, 2), { key: OTHER }); // 4
    t.hub.publish(EVENT_BOOKS, book(MARKET, 3), { key: MARKET }); // 5
    await until(() => w.subscribed.length === 2, 5000, 'resubscribed');
    await until(() => w.pubs.length === 4, 5000, 'the latest books');
    expect(w.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: true });
    expect(offsets(w.pubs)).toEqual([1, 2, 4, 5]);
    expect(w.pubs.slice(2).map((p) => p.data)).toMatchObject([
      { marketHash: OTHER, version: book(OTHER, 2).version },
      { marketHash: MARKET, version: book(MARKET, 3).version },
    ]);
  });

  it('answers history on a book channel with the latest book of each market only', async () => {
    t = await startHub();
    const w = await subscribedClient(EVENT_BOOKS);
    for (let v = 1; v <= 4; v++) {
      t.hub.publish(EVENT_BOOKS, book(MARKET, v), { key: MARKET });
      t.hub.publish(EVENT_BOOKS, book(OTHER, v), { key: OTHER });
    }
    const history = await w.sub.history({ limit: 100 });
    expect(history.offset).toBe(8);
    expect(
      history.publications.map((p) => [p.offset, (p.data as { marketHash: string }).marketHash]),
    ).toEqual([
      [7, MARKET],
      [8, OTHER],
    ]);
    const newest = await w.sub.history({ limit: 1, reverse: true });
    expect(newest.publications.map((p) => p.offset)).toEqual([8]);
  });

  it('reseeds (recovered false) when the latest book it missed is gone: past its age, or dropped for room', async () => {
    let now = Date.now();
    t = await startHub({ clock: { now: () => now }, maxHistoryBytes: 64 * 1024 });
    const w = await subscribedClient(BOOK);
    t.hub.publish(BOOK, book(MARKET, 1), { key: MARKET });
    await until(() => w.pubs.length === 1);
    cutConnections();
    await until(() => w.sub.state === 'subscribing', 5000, 'subscription interrupted');
    t.hub.publish(BOOK, book(MARKET, 2), { key: MARKET });
    // Other channels' history pushes the missed book out of the hub's 64 KiB.
    t.hub.position(TAPE);
    for (let n = 0; n < 40; n++) t.hub.publish(TAPE, { n, pad: 'p'.repeat(1000) });
    expect(t.hub.stats().historyBytes).toBeLessThanOrEqual(64 * 1024);
    await until(() => w.subscribed.length === 2, 5000, 'resubscribed');
    expect(w.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: false });
    expect(w.pubs).toHaveLength(1);

    // Past its age (5 minutes), a missed book is as gone.
    t.hub.publish(BOOK, book(MARKET, 3), { key: MARKET });
    await until(() => w.pubs.length === 2);
    cutConnections();
    await until(() => w.sub.state === 'subscribing', 5000, 'subscription interrupted');
    t.hub.publish(BOOK, book(MARKET, 4), { key: MARKET });
    now += 5 * 60_000 + 1;
    await until(() => w.subscribed.length === 3, 5000, 'resubscribed');
    expect(w.subscribed[2]).toMatchObject({ wasRecovering: true, recovered: false });
    expect(w.pubs).toHaveLength(2);
  });
});
