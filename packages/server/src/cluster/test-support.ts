import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Engine } from '../engine/index.js';
import { freePort } from '../lib/test-support.js';
import type { AppliedEntry, OrderMeta, PlaceOrderInput } from '../sequencer/inputs.js';
import type { OrderIntent } from '../sequencer/intents.js';
import type { EngineCheckpoint, Journal, JournalRow } from '../sequencer/journal.js';
import { encodeInput } from '../sequencer/journal-codec.js';
import { exchangeEngineOptions } from '../sequencer/recovery.js';
import { Sequencer } from '../sequencer/sequencer.js';
import { decodeRows, seqsOf } from './committed-stream.js';

/** The NATS server the tests use (`TEST_NATS_URL`; by default the local one, with JetStream). */
export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** A connection to the test server; fails (never skips) with the reason when it does not answer. */
export async function connectNats(): Promise<NatsConnection> {
  try {
    return await connect({ servers: TEST_NATS_URL, timeout: 3_000 });
  } catch (error) {
    throw new Error(
      `NATS at ${TEST_NATS_URL} is unreachable (${error instanceof Error ? error.message : error}): the cluster ` +
        'tests need nats-server with JetStream (-js); TEST_NATS_URL names another server',
    );
  }
}

export async function natsClients(nc: NatsConnection) {
  return { js: jetstream(nc), jsm: await jetstreamManager(nc) };
}

/** Names of this test's own: tests in parallel never share a stream or a subject. */
export function uniqueNames() {
  const id = randomBytes(4).toString('hex');
  return {
    stream: `TEST_COMMITTED_${id.toUpperCase()}`,
    subject: `test.${id}.committed`,
    submit: `test.${id}.sequencer.submit`,
    leader: `test.${id}.leader.rpc`,
  };
}

export const LADDER_SIZE = 800;
export const usd = (x: number) => BigInt(x) * 1_000_000n;
const ODDS_50 = 50n * 10n ** 18n;
export const account = (n: number): `0x${string}` => `0x${n.toString(16).padStart(40, '0')}`;

/** The journal in memory: rows are kept when written; each batch is durable once `hold` (if any) lets it. */
export class MemoryJournal implements Journal {
  readonly rows: JournalRow[] = [];
  readonly features = { capitalEfficiency: 1, honestLiquidity: 1, chainSettlement: 1 };
  /** A batch appended while set waits for it to be durable (an answer held back). */
  hold: Promise<void> | null = null;

  async append(entries: readonly AppliedEntry[], written?: () => void): Promise<void> {
    for (const e of entries) this.rows.push({ seq: e.seq, ts: e.ts, payload: encodeInput(e.input) });
    written?.();
    if (this.hold) await this.hold;
  }
  async last() {
    const last = this.rows[this.rows.length - 1];
    return last ? { seq: last.seq, ts: last.ts } : { seq: 0, ts: 0 };
  }
  async *after(seq: number): AsyncIterable<readonly JournalRow[]> {
    const rows = this.rows.filter((row) => row.seq > seq);
    if (rows.length > 0) yield rows;
  }
  async latestCheckpoint(): Promise<EngineCheckpoint | null> {
    return null;
  }
  async saveCheckpoint(): Promise<void> {}
  async close(): Promise<void> {}
}

/** A sequencer on a fresh engine, as the exchange builds one for `journal`. */
export function sequencerOn(journal: Journal, now = () => 1_700_000_000_000): Sequencer {
  return new Sequencer({
    engine: new Engine({ ...exchangeEngineOptions(journal), ladderSize: LADDER_SIZE }),
    journal,
    clock: { now },
    lastSeq: 0,
    lastTs: 0,
  });
}

let orders = 0;
/** A signed-and-checked order as intake hands it on: 10 USD at even odds on market M. */
export function orderIntent(
  who: string,
  o: { one?: boolean; client?: string | null; market?: string; size?: bigint } = {},
): OrderIntent & { order: PlaceOrderInput; meta: OrderMeta } {
  orders += 1;
  const id = randomBytes(4).toString('hex');
  return {
    kind: 'order',
    order: {
      type: 'place',
      orderId: `0x${id}${orders.toString(16).padStart(56, '0')}`,
      account: who,
      marketHash: o.market ?? 'M',
      isBettingOutcomeOne: o.one ?? true,
      percentageOdds: ODDS_50,
      totalBetSize: o.size ?? usd(10),
      expiry: 1_700_010_000,
      timeInForce: 'GTC',
    },
    meta: {
      commandId: `c-${id}-${orders}`,
      eventId: 'E',
      clientOrderId: o.client ?? null,
      salt: '0x1',
      baseToken: '0xb',
      signature: '0xs',
    },
    market: { eventId: 'E', legs: null },
    bettingDelayMs: 0,
  };
}

/**
 * Deletes the streams a test made. JetStream reserves each stream's max bytes against the server's storage,
 * so streams left behind by test runs end in "insufficient storage resources" for every later stream.
 */
export async function deleteStreams(nc: NatsConnection, streams: readonly string[]): Promise<void> {
  const { jsm } = await natsClients(nc);
  for (const stream of streams) await jsm.streams.delete(stream).catch(() => {});
}

/**
 * A nats-server of the test's own (JetStream, a temporary store, a free port), which the test may stop and
 * start again on the same port and store: the shared server is never stopped. Fails when `nats-server` is
 * not installed.
 */
export async function privateNatsServer(): Promise<{
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops it and removes its store. */
  close(): Promise<void>;
}> {
  const port = await freePort();
  const store = mkdtempSync(join(tmpdir(), 'oddsbook-nats-'));
  const url = `nats://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  const start = async () => {
    const started = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], {
      stdio: 'ignore',
    });
    child = started;
    const failed = new Promise<never>((_, reject) =>
      started.once('error', (error) => reject(new Error(`nats-server did not start: ${error.message}`))),
    );
    const deadline = Date.now() + 10_000;
    for (;;) {
      const nc = await Promise.race([connect({ servers: url, timeout: 500 }), failed]).catch((error) => {
        if (Date.now() > deadline || started.exitCode !== null) throw error;
        return null;
      });
      if (nc) {
        await nc.close();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await start();
  return {
    url,
    start,
    stop,
    async close() {
      await stop();
      rmSync(store, { recursive: true, force: true });
    },
  };
}

/** Every row on a committed stream, message by message in stream order (`decodeRows` of each). */
export async function committedRows(nc: NatsConnection, stream: string): Promise<JournalRow[]> {
  const { jsm } = await natsClients(nc);
  const { state } = await jsm.streams.info(stream);
  const rows: JournalRow[] = [];
  for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++) {
    const msg = await jsm.streams.getMessage(stream, { seq });
    const seqs = seqsOf(msg?.header);
    if (!msg || !seqs) throw new Error(`message ${seq} of ${stream} has no seq headers`);
    rows.push(...decodeRows(msg.data, seqs.firstSeq, seqs.lastSeq));
  }
  return rows;
}
