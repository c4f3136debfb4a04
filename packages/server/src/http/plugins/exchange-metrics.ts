import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Exchange } from '../../exchange/exchange.js';
import type { RealtimeHub } from '../../realtime/hub.js';
import { differenceUnits } from '../../settlement/reconcile.js';

/** A counter read from a component's running total at each scrape. */
function totalCounter(registry: Registry, name: string, help: string, read: () => number): Counter<string> {
  return new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

function gauge(registry: Registry, name: string, help: string, read: () => number | Promise<number>) {
  return new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      this.set(await read());
    },
  });
}

/**
 * The exchange's own figures beside the HTTP ones: the sequencer's group commits (how many inputs each
 * batch carried and how long it took to become durable), its queue, signature checks, the realtime hub (when
 * the node serves one: a cluster sequencer does not),
 * the embedded chain and the WAL.
 */
export function registerExchangeMetrics(
  registry: Registry,
  exchange: Exchange,
  hub: RealtimeHub | null,
): void {
  const { sequencer } = exchange.trading;
  const batchInputs = new Histogram({
    name: 'oddsbook_sequencer_batch_inputs',
    help: 'Inputs (orders, cancels, ...) per committed batch: one transaction and one fsync each',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096],
    registers: [registry],
  });
  const commitSeconds = new Histogram({
    name: 'oddsbook_sequencer_commit_seconds',
    help: 'From taking a batch off the queue to its being durable (engine, write, fsync)',
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  sequencer.observeBatches((inputs, seconds) => {
    batchInputs.observe(inputs);
    commitSeconds.observe(seconds);
  });
  gauge(
    registry,
    'oddsbook_sequencer_queue_inputs',
    'Inputs waiting for the next batch',
    () => sequencer.queueLength,
  );
  const { parlayFeeAccount } = exchange.config;
  gauge(
    registry,
    'oddsbook_parlay_fees_collected_base_units',
    'Parlay fees collected: the balance of the fee account (PARLAY_FEE_ACCOUNT), base units',
    () => Number(sequencer.money(parlayFeeAccount).available),
  );
  gauge(
    registry,
    'oddsbook_sequencer_last_seq',
    'Sequence number of the last journaled input',
    () => sequencer.lastSeq,
  );
  const { pipeline } = exchange.trading;
  gauge(
    registry,
    'oddsbook_projector_lag_seq',
    'Journaled inputs not yet projected (orders, fills, trades rows)',
    () => sequencer.lastSeq - pipeline.projectedSeq,
  );
  gauge(
    registry,
    'oddsbook_projector_lag_seconds',
    'How long the oldest committed batch not yet projected has waited',
    () => pipeline.lagSeconds,
  );
  // What this start's recovery took (the same each scrape): the checkpoint, and the journal after it.
  const { recovery } = exchange.trading;
  gauge(
    registry,
    'oddsbook_start_checkpoint_seconds',
    'This start: reading the newest engine checkpoint, checking its digest and restoring it',
    () => recovery.checkpointMs / 1000,
  );
  gauge(
    registry,
    'oddsbook_start_replay_seconds',
    'This start: replaying the journal after the checkpoint (and projecting what the projections lacked)',
    () => recovery.replayMs / 1000,
  );
  gauge(
    registry,
    'oddsbook_start_replayed_inputs',
    'This start: journal inputs replayed after the checkpoint',
    () => recovery.replayedCommands,
  );
  gauge(
    registry,
    'oddsbook_start_checkpoint_seq',
    'This start: journal seq of the checkpoint it restored (0: none, the whole journal replayed)',
    () => recovery.checkpointSeq,
  );
  const { checkpoints } = exchange.trading;
  if (checkpoints) {
    gauge(
      registry,
      'oddsbook_checkpoint_seq',
      'Journal seq of the newest engine checkpoint stored (or restored from)',
      () => checkpoints.savedSeq,
    );
    gauge(
      registry,
      'oddsbook_checkpoint_pause_seconds',
      'How long the last checkpoint held the sequencer (its snapshot; the save runs after, off its path)',
      () => checkpoints.lastPauseMs / 1000,
    );
  }
  const projectedRows = new Counter({
    name: 'oddsbook_projector_rows_total',
    help: 'Order, fill, trade and refund rows the projector wrote (per entry: a row two entries changed counts twice)',
    registers: [registry],
  });
  const projectionDelay = new Histogram({
    name: 'oddsbook_projector_delay_seconds',
    help: 'From a committed batch handed to the projector to its rows being written (the lag each batch saw)',
    buckets: [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  pipeline.observeProjections((rows, seconds) => {
    projectedRows.inc(rows);
    projectionDelay.observe(seconds);
  });

  new Counter({
    name: 'oddsbook_signature_checks_total',
    help: 'Order signatures checked, by thread (worker pool or main thread)',
    labelNames: ['thread'] as const,
    registers: [registry],
    collect() {
      const { onWorkers, inThread } = exchange.verifier.stats();
      this.reset();
      this.inc({ thread: 'worker' }, onWorkers);
      this.inc({ thread: 'main' }, inThread);
    },
  });

  const hubGauges = [
    ['oddsbook_realtime_connections', 'Open realtime WebSocket connections', 'connections'],
    [
      'oddsbook_realtime_subscriptions',
      'Channel subscriptions over all realtime connections',
      'subscriptions',
    ],
    [
      'oddsbook_realtime_history_publications',
      'Publications kept for recovery and history over all channels (at most REALTIME_HISTORY_MAX)',
      'historyKept',
    ],
    [
      'oddsbook_realtime_history_bytes',
      'Bytes charged for the publications kept (2 per JSON character plus 320 each; at most REALTIME_HISTORY_BYTES)',
      'historyBytes',
    ],
  ] as const;
  if (hub)
    for (const [name, help, figure] of hubGauges) gauge(registry, name, help, () => hub.stats()[figure]);
  const hubTotals = [
    [
      'oddsbook_realtime_publications_total',
      'Publications to followed realtime channels (one to a channel nobody follows is dropped)',
      'publications',
    ],
    [
      'oddsbook_realtime_history_evicted_total',
      'Publications dropped from a history to stay within REALTIME_HISTORY_MAX and REALTIME_HISTORY_BYTES',
      'historyEvicted',
    ],
  ] as const;
  if (hub)
    for (const [name, help, figure] of hubTotals)
      totalCounter(registry, name, help, () => hub.stats()[figure]);

  gauge(registry, 'oddsbook_chain_block_number', 'Latest block of the embedded chain', () =>
    exchange.chain.blockNumber(),
  );
  for (const storage of exchange.store.gauges) gauge(registry, storage.name, storage.help, storage.read);
  // Settlement (issue 33): what is not on the chain yet, and the last reconciliation.
  const backlog = () => exchange.settlement.backlog();
  gauge(
    registry,
    'oddsbook_settlement_queued_items',
    'Settlement items not submitted yet',
    async () => (await backlog()).queuedItems,
  );
  gauge(
    registry,
    'oddsbook_settlement_outstanding_items',
    'Settlement items that did not land and are submitted again (a payout, deposit or adjustment that failed, or skipped behind one)',
    async () => (await backlog()).outstandingItems,
  );
  gauge(
    registry,
    'oddsbook_settlement_transactions_in_flight',
    'Settlement transactions submitted whose receipts are not journaled yet',
    async () => (await backlog()).inFlight,
  );
  gauge(
    registry,
    'oddsbook_reconcile_difference_base_units',
    'The last reconciliation: the sum of the differences between the engine and the chain, in base units (0: none)',
    () => {
      const last = exchange.reconciliation.last;
      return last ? Number(differenceUnits(last.report)) : 0;
    },
  );
  gauge(
    registry,
    'oddsbook_reconcile_last_run_timestamp_seconds',
    'When the last reconciliation ran (unix seconds; 0: none yet)',
    () => (exchange.reconciliation.last?.at ?? 0) / 1000,
  );
}
