import { accountOrdersChannel } from '@oddsbook/protocol';
import type { Centrifuge } from 'centrifuge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, createTrader, postOrders, signOrder, USDC } from '../helpers/trading.js';
import { exchangeClient, until } from '../realtime/helpers.js';

/** The value of one sample of a Prometheus text exposition (labels exactly as written, e.g. `{thread="main"}`). */
function sample(body: string, name: string, labels = ''): number {
  const line = body.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  if (!line) throw new Error(`no sample ${name}${labels}`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('exchange metrics on /metrics', () => {
  let t: TestExchange;
  let client: Centrifuge | undefined;
  const scrape = async () => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  beforeAll(async () => {
    t = await startTestExchange();
  });
  afterAll(async () => {
    client?.disconnect();
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('counts every sequenced input in a committed batch, the queue, signature checks, chain and WAL', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t, 1_000n * USDC);
    // The maker follows its orders over the realtime WebSocket: that channel's publications are kept.
    const api = await t.app.listen({ port: 0, host: '127.0.0.1' });
    client = exchangeClient(api, maker.headers);
    const orderUpdates: unknown[] = [];
    const sub = client.newSubscription(accountOrdersChannel(maker.address), {
      positioned: true,
      recoverable: true,
    });
    sub.on('publication', (ctx) => orderUpdates.push(ctx.data));
    let subscribed = false;
    sub.on('subscribed', () => {
      subscribed = true;
    });
    sub.subscribe();
    client.connect();
    await until(() => subscribed, 5000, 'subscribed');
    const before = await scrape();
    const checksBefore =
      sample(before, 'oddsbook_signature_checks_total', '{thread="worker"}') +
      sample(before, 'oddsbook_signature_checks_total', '{thread="main"}');

    const orders = await Promise.all(
      [400, 410, 420].map((tick) => signOrder(t, maker, { marketHash, tick, size: 10n * USDC })),
    );
    const posted = await postOrders(t, maker, orders, { waitForOutcome: true });
    expect(posted.statusCode).toBe(200);
    const single = await postOrders(t, maker, [
      await signOrder(t, maker, { marketHash, tick: 430, size: USDC }),
    ]);
    expect(single.statusCode).toBe(200);
    await t.exchange.trading.idle();

    const after = await scrape();
    const { lastSeq } = t.exchange.trading.sequencer;
    // A fresh exchange starts at seq 0: every input since is in exactly one durable batch.
    expect(sample(after, 'oddsbook_sequencer_last_seq')).toBe(lastSeq);
    expect(sample(after, 'oddsbook_sequencer_batch_inputs_sum')).toBe(lastSeq);
    const batches = sample(after, 'oddsbook_sequencer_batch_inputs_count');
    expect(batches).toBeGreaterThan(sample(before, 'oddsbook_sequencer_batch_inputs_count'));
    expect(batches).toBeLessThanOrEqual(lastSeq);
    expect(sample(after, 'oddsbook_sequencer_batch_inputs_bucket', '{le="+Inf"}')).toBe(batches);
    expect(sample(after, 'oddsbook_sequencer_commit_seconds_count')).toBe(batches);
    expect(sample(after, 'oddsbook_sequencer_commit_seconds_sum')).toBeGreaterThan(0);
    expect(sample(after, 'oddsbook_sequencer_queue_inputs')).toBe(0);
    // Every committed batch is projected once the pipeline is idle.
    expect(sample(after, 'oddsbook_projector_lag_seq')).toBe(0);
    expect(sample(after, 'oddsbook_projector_lag_seconds')).toBe(0);
    // The 4 orders' rows at least (each written when admitted, then again when it rests), once per batch.
    expect(
      sample(after, 'oddsbook_projector_rows_total') - sample(before, 'oddsbook_projector_rows_total'),
    ).toBeGreaterThanOrEqual(4);
    expect(sample(after, 'oddsbook_projector_delay_seconds_count')).toBe(batches);
    // A fresh exchange: nothing replayed at its start.
    expect(sample(after, 'oddsbook_start_replayed_inputs')).toBe(0);
    expect(sample(after, 'oddsbook_start_replay_seconds')).toBeGreaterThanOrEqual(0);

    const checksAfter =
      sample(after, 'oddsbook_signature_checks_total', '{thread="worker"}') +
      sample(after, 'oddsbook_signature_checks_total', '{thread="main"}');
    expect(checksAfter - checksBefore).toBe(4);

    expect(sample(after, 'oddsbook_chain_block_number')).toBe(await t.exchange.chain.blockNumber());
    expect(sample(after, 'oddsbook_chain_block_number')).toBeGreaterThan(0);
    // What to watch of the store: the WAL of SQLite, the pool of PostgreSQL.
    if (t.exchange.storeKind === 'sqlite')
      expect(sample(after, 'oddsbook_sqlite_wal_bytes')).toBeGreaterThan(0);
    else expect(sample(after, 'oddsbook_postgres_pool_connections')).toBeGreaterThan(0);
    expect(sample(after, 'oddsbook_realtime_connections')).toBe(1);
    expect(sample(after, 'oddsbook_realtime_subscriptions')).toBe(1);
    expect(sample(after, 'oddsbook_realtime_publications_total')).toBeGreaterThan(0);
    // Kept for recovery: the four order updates of the followed channel only (the book, the active orders
    // and the rest have no follower), well under the default cap, nothing dropped.
    await until(() => orderUpdates.length === 4, 5000, 'order updates');
    expect(sample(await scrape(), 'oddsbook_realtime_history_publications')).toBe(4);
    expect(sample(after, 'oddsbook_realtime_history_evicted_total')).toBe(0);
  });
});
