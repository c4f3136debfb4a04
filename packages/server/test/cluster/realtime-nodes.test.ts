import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { ACCOUNT_FILLS_CHANNEL, accountOrdersChannel } from '@oddsbook/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PublicationsFeed } from '../../src/cluster/publications-feed.js';
import { ensurePublicationsStream, StampedPublisher } from '../../src/cluster/publications-stream.js';
import { connectNats, deleteStreams, natsClients } from '../../src/cluster/test-support.js';
import { createChannelPolicy } from '../../src/realtime/channel-policy.js';
import type { RealtimeHubOptions } from '../../src/realtime/options.js';
import type { Publication } from '../../src/realtime/publication.js';
import { PublicationStamper } from '../../src/realtime/publication-stamper.js';
import {
  ALICE,
  BOB,
  connectedRawClient,
  pubsOf,
  type RawClient,
  startHub,
  TAPE,
  type TestHub,
  until,
} from '../realtime/helpers.js';

/**
 * Realtime nodes fed by the leader's stamped publications over the real NATS (ADR 0018): the leader's
 * stamper and publisher as `serve --role sequencer` runs them, each node a stamped hub and its feed as
 * `serve --role realtime` runs them.
 */
let nc: NatsConnection;
let clients: Awaited<ReturnType<typeof natsClients>>;
const nodes: { hub: TestHub; feed: PublicationsFeed }[] = [];
const raws: RawClient[] = [];

beforeAll(async () => {
  nc = await connectNats();
  clients = await natsClients(nc);
});
const streams: string[] = [];
afterAll(async () => {
  if (nc) await deleteStreams(nc, streams);
  await nc?.close();
});
afterEach(async () => {
  for (const raw of raws.splice(0)) raw.ws.terminate();
  for (const node of nodes.splice(0)) {
    await node.feed.stop();
    await node.hub.close();
  }
});

function uniqueStream() {
  const id = randomBytes(4).toString('hex');
  streams.push(`TEST_PUBS_${id.toUpperCase()}`);
  return { publicationsStream: `TEST_PUBS_${id.toUpperCase()}`, publications: `test.${id}.publications` };
}

type Names = ReturnType<typeof uniqueStream>;

function leader(names: Names, leaderEpoch: number, maxChannels?: number) {
  const stamper = new PublicationStamper({
    leaderEpoch,
    channelPolicy: createChannelPolicy(),
    ...(maxChannels ? { maxChannels } : {}),
  });
  const publisher = new StampedPublisher({ js: clients.js, subject: names.publications, leaderEpoch });
  return {
    stamper,
    publisher,
    /** Stamps and publishes one message; resolves once the stream has it. */
    async publish(list: Publication[]) {
      publisher.publish(stamper.stamp(list));
      await publisher.flushed();
    },
  };
}

async function node(names: Names, options: Partial<RealtimeHubOptions> = {}, skipped?: string[]) {
  const hub = await startHub({ numbering: 'stamped', pingIntervalMs: 0, ...options });
  const feed = new PublicationsFeed({
    ...clients,
    stream: names.publicationsStream,
    handler: (publications) => hub.hub.publishStamped(publications),
    onSkipped: (_seq, reason) => skipped?.push(reason),
  });
  await feed.start();
  const started = { hub, feed };
  nodes.push(started);
  return started;
}

async function client(hub: TestHub, user = ALICE): Promise<RawClient> {
  const raw = await connectedRawClient(hub.url, user);
  raws.push(raw);
  return raw;
}

let ids = 10;
/** Subscribes (recovering from `since` if given) and returns the subscribe result. */
async function subscribe(raw: RawClient, channel: string, since?: { offset: number; epoch: string }) {
  const id = ids++;
  raw.send({
    id,
    subscribe: {
      channel,
      recoverable: true,
      positioned: true,
      ...(since ? { recover: true, offset: since.offset, epoch: since.epoch } : {}),
    },
  });
  const reply = await raw.reply(id);
  if (!reply.subscribe) throw new Error(`subscribe failed: ${JSON.stringify(reply)}`);
  return reply.subscribe as {
    epoch: string;
    offset: number;
    recovered?: boolean;
    publications?: { offset: number; data: { n: number } }[];
  };
}

const tape = (from: number, to: number): Publication[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({
    channel: TAPE,
    data: { n: from + i },
    messageId: `t${from + i}`,
  }));

/** The offset a node's stream of the channel reached (it may lag the stream a moment). */
const reached = (n: { hub: TestHub }, channel: string, offset: number) =>
  until(() => n.hub.hub.position(channel).offset === offset, 5000, `${channel} at ${offset}`);

describe('realtime nodes on the stamped publications (real NATS)', () => {
  it('a client moving from node A to node B recovers exactly what it missed, from the offset and epoch A gave it; a node started later fills from the stream and recovers it too', async () => {
    const names = uniqueStream();
    await ensurePublicationsStream(clients.jsm, names);
    const lead = leader(names, 1);
    const a = await node(names);
    const b = await node(names);
    await lead.publish(tape(1, 3));
    await reached(a, TAPE, 3);
    const onA = await client(a.hub);
    const first = await subscribe(onA, TAPE);
    expect(first.offset).toBe(3);
    await lead.publish(tape(4, 5));
    await until(() => pubsOf(onA, TAPE).length === 2, 5000, 'live publications on A');
    expect(pubsOf(onA, TAPE).map((p) => p.offset)).toEqual([4, 5]);
    onA.ws.terminate();
    // Missed while moving, in three messages.
    await lead.publish(tape(6, 7));
    await lead.publish(tape(8, 8));
    await lead.publish(tape(9, 9));
    await reached(b, TAPE, 9);

    const onB = await client(b.hub);
    const recovered = await subscribe(onB, TAPE, { offset: 5, epoch: first.epoch });
    expect(recovered).toMatchObject({ recovered: true, epoch: first.epoch });
    expect(recovered.publications!.map((p) => [p.offset, p.data.n])).toEqual([
      [6, 6],
      [7, 7],
      [8, 8],
      [9, 9],
    ]);
    // Live after the recovery, on B.
    await lead.publish(tape(10, 10));
    await until(() => pubsOf(onB, TAPE).length === 1, 5000, 'live on B');
    expect(pubsOf(onB, TAPE)[0]).toMatchObject({ offset: 10, data: { n: 10 } });

    // A node started now, nobody ever connected to it: the same history from the stream.
    const c = await node(names);
    expect(c.hub.hub.position(TAPE)).toEqual({ offset: 10, epoch: first.epoch });
    const onC = await client(c.hub);
    const fromC = await subscribe(onC, TAPE, { offset: 2, epoch: first.epoch });
    expect(fromC.recovered).toBe(true);
    expect(fromC.publications!.map((p) => [p.offset, p.data.n])).toEqual(
      Array.from({ length: 8 }, (_, i) => [i + 3, i + 3]),
    );
    // Each node holds the same (offset, epoch, data) history.
    const history = async (n: { hub: TestHub }) => {
      const raw = await client(n.hub);
      return (await subscribe(raw, TAPE, { offset: 0, epoch: first.epoch })).publications;
    };
    expect(await history(a)).toEqual(await history(c));
    expect(await history(b)).toEqual(await history(c));
  });

  it('serves account channels to their owner only, each user of a per-user channel with a numbering of its own', async () => {
    const names = uniqueStream();
    await ensurePublicationsStream(clients.jsm, names);
    const lead = leader(names, 1);
    await lead.publish([
      { channel: accountOrdersChannel(ALICE), data: { n: 1 }, messageId: 'o1' },
      { channel: ACCOUNT_FILLS_CHANNEL, user: ALICE, data: { n: 1 }, messageId: 'fa1' },
      { channel: ACCOUNT_FILLS_CHANNEL, user: BOB, data: { n: 1 }, messageId: 'fb1' },
      { channel: ACCOUNT_FILLS_CHANNEL, user: ALICE, data: { n: 2 }, messageId: 'fa2' },
    ]);
    const b = await node(names);
    const bob = await client(b.hub, BOB);
    bob.send({ id: 5, subscribe: { channel: accountOrdersChannel(ALICE), recoverable: true } });
    expect((await bob.reply(5)).error).toMatchObject({ code: 103 });
    const bobFills = await subscribe(bob, ACCOUNT_FILLS_CHANNEL, { offset: 0, epoch: '' });
    expect(bobFills.recovered).toBe(true);
    expect(bobFills.publications!.map((p) => p.data)).toEqual([{ messageId: 'fb1', n: 1 }]);
    const alice = await client(b.hub, ALICE);
    const aliceFills = await subscribe(alice, ACCOUNT_FILLS_CHANNEL, { offset: 0, epoch: '' });
    expect(aliceFills.publications!.map((p) => [p.offset, p.data.n])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(aliceFills.epoch).not.toBe(bobFills.epoch);
    const orders = await subscribe(alice, accountOrdersChannel(ALICE), { offset: 0, epoch: '' });
    expect(orders.publications!.map((p) => p.data.n)).toEqual([1]);
  });

  it('a new leader: its publications begin new epochs, followers of the old numbering subscribe again and recover as reseed; a deposed leader’s late message is skipped', async () => {
    const names = uniqueStream();
    await ensurePublicationsStream(clients.jsm, names);
    const one = leader(names, 1);
    const skipped: string[] = [];
    const a = await node(names, {}, skipped);
    await one.publish(tape(1, 2));
    await reached(a, TAPE, 2);
    const raw = await client(a.hub);
    const before = await subscribe(raw, TAPE);
    expect(before.offset).toBe(2);
    // Counted from here: `reached` reading the position before the first message arrived made a stream of
    // the hub's own numbering, which that message restarted.
    const restarts = a.hub.hub.stats().streamsRestarted;

    const two = leader(names, 2);
    await two.publish(tape(3, 3));
    // The subscription ends with 2500 "insufficient state": the client subscribes again.
    const unsubscribe = await until(
      () => raw.lines.find((l) => (l.push as { unsubscribe?: unknown } | undefined)?.unsubscribe),
      5000,
      'unsubscribe push',
    );
    expect(unsubscribe).toEqual({
      push: { channel: TAPE, unsubscribe: { code: 2500, reason: 'insufficient state' } },
    });
    const again = await subscribe(raw, TAPE, { offset: 2, epoch: before.epoch });
    // `recovered: false` is left out of the reply, as Centrifugo leaves out every false field.
    expect(again.recovered ?? false).toBe(false);
    expect(again.epoch).not.toBe(before.epoch);
    expect(again.offset).toBe(1);
    expect(a.hub.hub.stats().streamsRestarted).toBe(restarts + 1);

    // The old leader's publish landing late changes nothing.
    await one.publish(tape(100, 100));
    await two.publish(tape(4, 4));
    await until(() => pubsOf(raw, TAPE).some((p) => (p.data as { n: number }).n === 4), 5000, 'n 4');
    // The new leader's first publication is in the state the client reseeds; only what follows is pushed.
    expect(pubsOf(raw, TAPE).map((p) => [p.offset, (p.data as { n: number }).n])).toEqual([[2, 4]]);
    expect(skipped).toEqual(['stamped by leader 1 after 2']);
  });

  it('a message that never arrived (a gap in a channel) makes its followers subscribe again, and a recovery from before it reseeds', async () => {
    const names = uniqueStream();
    await ensurePublicationsStream(clients.jsm, names);
    const lead = leader(names, 1);
    const a = await node(names);
    await lead.publish(tape(1, 2));
    await reached(a, TAPE, 2);
    const raw = await client(a.hub);
    const sub = await subscribe(raw, TAPE);
    lead.stamper.stamp(tape(3, 4)); // stamped, never published
    await lead.publish(tape(5, 5));
    await until(
      () => raw.lines.some((l) => (l.push as { unsubscribe?: unknown })?.unsubscribe),
      5000,
      'resubscribe',
    );
    const again = await subscribe(raw, TAPE, { offset: 2, epoch: sub.epoch });
    expect(again.recovered ?? false).toBe(false);
    expect(again).toMatchObject({ epoch: sub.epoch, offset: 5 });
    // From the gap on, recovery works again.
    await lead.publish(tape(6, 6));
    const other = await client(a.hub);
    const from5 = await subscribe(other, TAPE, { offset: 5, epoch: sub.epoch });
    expect(from5.recovered).toBe(true);
    expect(from5.publications!.map((p) => p.offset)).toEqual([6]);
  });

  it('a flood of channels: the leader remembers maxChannels numberings, the node maxStreams streams and its history budget', async () => {
    const names = uniqueStream();
    await ensurePublicationsStream(clients.jsm, names);
    const lead = leader(names, 1, 300);
    const a = await node(names, { maxStreams: 200, maxIdleStreams: 150, maxHistoryPublications: 400 });
    const account = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}`;
    for (let m = 0; m < 10; m++) {
      const list: Publication[] = [];
      for (let i = 0; i < 500; i++) {
        const n = m * 500 + i;
        list.push({ channel: accountOrdersChannel(account(n)), data: { n, pad: 'x'.repeat(100) } });
      }
      await lead.publish(list);
    }
    await until(() => a.feed.counts.handled === 10, 10_000, 'the flood handled');
    const stats = a.hub.hub.stats();
    expect(stats.topics).toBeLessThanOrEqual(200);
    expect(stats.idleTopics).toBeLessThanOrEqual(150);
    expect(stats.historyKept).toBeLessThanOrEqual(400);
    expect(lead.stamper.counts).toEqual({ channels: 300, forgotten: 4_700 });
    // The newest channels are the ones held, and recover.
    const last = accountOrdersChannel(account(4_999));
    expect(a.hub.hub.position(last).offset).toBe(1);
    const owner = await client(a.hub, account(4_999));
    const got = await subscribe(owner, last, { offset: 0, epoch: a.hub.hub.position(last).epoch });
    expect(got.recovered).toBe(true);
    expect(got.publications!.map((p) => p.data.n)).toEqual([4_999]);
  });
});
