import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { committedBatch } from '../sequencer/committed-batch.js';
import type { Intent } from '../sequencer/intents.js';
import { recoverEngine } from '../sequencer/recovery.js';
import { Sequencer } from '../sequencer/sequencer.js';
import { FirstResults } from './first-results.js';
import { RemoteSequencer } from './remote-sequencer.js';
import { SequencerIntake } from './sequencer-intake.js';
import {
  account,
  connectNats,
  LADDER_SIZE,
  MemoryJournal,
  orderIntent,
  sequencerOn,
  uniqueNames,
  usd,
} from './test-support.js';

let leaderNc: NatsConnection;
let apiNc: NatsConnection;
beforeAll(async () => {
  leaderNc = await connectNats();
  apiNc = await connectNats();
});
afterAll(async () => {
  await leaderNc?.close();
  await apiNc?.close();
});

const fund = (n: number): Intent => ({
  kind: 'input',
  input: { kind: 'engine', command: { type: 'credit', account: account(n), amount: usd(1_000) } },
});

/** A leader: a sequencer on `journal`, its intake serving `subject`, its first results fed by its batches. */
function leader(journal: MemoryJournal, subject: string, sequencer: Sequencer = sequencerOn(journal)) {
  const firstResults = new FirstResults();
  sequencer.onCommitted((batch) => firstResults.follow(batch));
  const intake = new SequencerIntake({ nc: leaderNc, sequencer, firstResults, subject });
  return { sequencer, intake, firstResults };
}

describe('the sequencer over NATS request/reply', () => {
  it('decides intents sent from another connection: a maker and a taker fill, bigints intact', async () => {
    const { submit } = uniqueNames();
    const journal = new MemoryJournal();
    const { intake } = leader(journal, submit);
    await intake.start();
    try {
      const remote = new RemoteSequencer({ nc: apiNc, subject: submit });
      await Promise.all(remote.decideAll([fund(1), fund(2)]));
      const maker = orderIntent(account(1), { one: true });
      const taker = orderIntent(account(2), { one: false });
      const [made] = await Promise.all(remote.decideAll([maker]));
      const [took] = await Promise.all(remote.decideAll([taker]));
      expect(made!.order).toEqual({ status: 'placed' });
      expect(took!.order).toEqual({ status: 'placed' });
      const matched = took!.entries.at(-1)!.events.find((e) => e.type === 'orderMatched');
      expect(matched).toMatchObject({ makerOrderId: maker.order.orderId, takerOrderId: taker.order.orderId });
      expect(typeof (matched as { makerStake: unknown }).makerStake).toBe('bigint');
      expect(journal.rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await intake.stop();
    }
  });

  it('answers a retry whose first reply was lost with the first result: the order is placed once', async () => {
    const { submit } = uniqueNames();
    const journal = new MemoryJournal();
    const { sequencer, intake } = leader(journal, submit);
    await intake.start();
    try {
      await Promise.all(sequencer.decideAll([fund(1)]));
      // The journal holds the order's batch back past the first attempt's timeout: that reply goes nowhere.
      let release!: () => void;
      journal.hold = new Promise<void>((resolve) => {
        release = resolve;
      });
      const remote = new RemoteSequencer({
        nc: apiNc,
        subject: submit,
        attemptTimeoutMs: 150,
        deadlineMs: 5_000,
      });
      const intent = orderIntent(account(1));
      const [pending] = remote.decideAll([intent]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      journal.hold = null;
      release();
      const result = await pending!;
      expect(result.order).toEqual({ status: 'placed' });
      const places = journal.rows.filter((r) => r.payload.includes(intent.order.orderId));
      expect(places).toHaveLength(1);
      // The very reply of the first attempt: the market's opening, then the order.
      expect(result.entries.map((e) => e.seq)).toEqual([places[0]!.seq - 1, places[0]!.seq]);
    } finally {
      await intake.stop();
    }
  });

  it('answers a retry reaching a new leader with the first result, not a second order nor a refusal', async () => {
    const { submit } = uniqueNames();
    const journal = new MemoryJournal();
    const first = leader(journal, submit);
    await first.intake.start();
    const intent = orderIntent(account(1), { client: 'mine' });
    await Promise.all(first.sequencer.decideAll([fund(1)]));
    // The first leader decides the order and makes it durable, then dies before its reply leaves.
    let release!: () => void;
    journal.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const remote = new RemoteSequencer({
      nc: apiNc,
      subject: submit,
      attemptTimeoutMs: 150,
      deadlineMs: 5_000,
    });
    const [pending] = remote.decideAll([intent]);
    while (!journal.rows.some((r) => r.payload.includes(intent.order.orderId)))
      await new Promise((resolve) => setTimeout(resolve, 10));
    await first.intake.stop();
    journal.hold = null;

    // Its successor recovers from the journal, its first results fed with what it replays.
    const firstResults = new FirstResults();
    const recovered = await recoverEngine(journal, LADDER_SIZE, {
      after: 0,
      onEntries: (entries) => firstResults.follow(committedBatch(entries)),
    });
    const last = await journal.last();
    const successor = new Sequencer({
      engine: recovered.engine,
      admission: recovered.admission,
      journal,
      clock: { now: () => 1_700_000_000_000 },
      lastSeq: last.seq,
      lastTs: last.ts,
    });
    const intake = new SequencerIntake({ nc: leaderNc, sequencer: successor, firstResults, subject: submit });
    await intake.start();
    try {
      const result = await pending!;
      release();
      expect(result.order).toEqual({ status: 'placed' });
      expect(result.entries.at(-1)!.input).toMatchObject({
        kind: 'engine',
        command: { orderId: intent.order.orderId },
      });
      expect(journal.rows.filter((r) => r.payload.includes(intent.order.orderId))).toHaveLength(1);
      // A new submission of the same signed order (another command) is still refused.
      const [again] = await Promise.all(
        remote.decideAll([{ ...intent, meta: { ...intent.meta, commandId: 'another' } }]),
      );
      expect(again!.order).toEqual({ status: 'refused', reason: 'ORDER_ALREADY_EXISTS' });
    } finally {
      release();
      await intake.stop();
    }
  });

  it('retries while no sequencer answers, then fails with a 503', async () => {
    const { submit } = uniqueNames();
    const remote = new RemoteSequencer({ nc: apiNc, subject: submit, deadlineMs: 400, retryPauseMs: 50 });
    const [pending] = remote.decideAll([fund(1)]);
    const error = await pending!.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).statusCode).toBe(503);
    expect((error as AppError).message).toMatch(/No sequencer answered within 400 ms/);
  });

  it('reaches a leader that starts while the request is being retried', async () => {
    const { submit } = uniqueNames();
    const journal = new MemoryJournal();
    const { intake } = leader(journal, submit);
    const remote = new RemoteSequencer({ nc: apiNc, subject: submit, deadlineMs: 5_000, retryPauseMs: 50 });
    const [pending] = remote.decideAll([fund(1)]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await intake.start();
    try {
      expect((await pending!).entries.map((e) => e.seq)).toEqual([1]);
    } finally {
      await intake.stop();
    }
  });
});
