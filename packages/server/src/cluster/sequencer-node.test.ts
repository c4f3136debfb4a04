import { afterAll, describe, expect, it } from 'vitest';
import { createLadder } from '../engine/ladder.js';
import { systemClock } from '../lib/clock.js';
import { checkpointBytes } from '../sequencer/checkpoint.js';
import type { OrderMeta, SequencerInput } from '../sequencer/inputs.js';
import { recoverEngine } from '../sequencer/recovery.js';
import { digestOf } from '../sequencer/state-hash.js';
import { openPostgres, type PostgresDatabase } from '../store/postgres/postgres-database.js';
import { JournalFenced, PostgresJournal } from '../store/postgres/postgres-journal.js';
import { createTestDatabase, requirePostgres } from '../store/test-support/postgres-test-database.js';
import { type LeadingSequencer, SequencerNode } from './sequencer-node.js';

await requirePostgres();
const database = await createTestDatabase();
afterAll(() => database.drop());

const LADDER = 800;
const ladder = createLadder(LADDER);
const ACCOUNTS = ['0xa0', '0xa1', '0xa2', '0xa3', '0xa4', '0xa5'];
const MARKETS = ['0xm1', '0xm2'];

/** A small deterministic PRNG (mulberry32), so that a failure can be replayed. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const setup = (): SequencerInput[] => [
  ...MARKETS.map(
    (marketHash): SequencerInput => ({
      kind: 'engine',
      command: { type: 'openMarket', marketHash, eventId: 'E' },
    }),
  ),
  ...ACCOUNTS.map(
    (account): SequencerInput => ({
      kind: 'engine',
      command: { type: 'credit', account, amount: 1_000_000n * 10n ** 6n },
    }),
  ),
];

/** Random orders (resting, crossing, IOC), cancels, delayed admissions, withdrawals and heartbeats. */
function randomInputs(rand: () => number, from: number, count: number): SequencerInput[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const inputs: SequencerInput[] = [];
  for (let i = from; i < from + count; i++) {
    const orderId = `0x${i.toString(16).padStart(8, '0')}`;
    const account = pick(ACCOUNTS);
    const order = {
      type: 'place' as const,
      orderId,
      account,
      marketHash: pick(MARKETS),
      isBettingOutcomeOne: rand() < 0.5,
      percentageOdds: ladder.odds[300 + Math.floor(rand() * 200)]!,
      totalBetSize: BigInt(1 + Math.floor(rand() * 50)) * 10n ** 6n,
      expiry: 4_000_000_000,
      timeInForce: rand() < 0.2 ? ('IOC' as const) : ('GTC' as const),
    };
    const meta: OrderMeta = {
      commandId: `c${i}`,
      eventId: 'E',
      clientOrderId: rand() < 0.5 ? `client-${i}` : null,
      salt: `0x${i.toString(16)}`,
      baseToken: '0x0000000000000000000000000000000000000001',
      signature: '0xab',
    };
    const roll = rand();
    if (roll < 0.7) inputs.push({ kind: 'engine', command: order, meta });
    else if (roll < 0.8) inputs.push({ kind: 'admit', order, meta, activateAt: 5_000_000_000_000 });
    else if (roll < 0.88) {
      const earlier = `0x${Math.floor(rand() * i)
        .toString(16)
        .padStart(8, '0')}`;
      inputs.push({ kind: 'engine', command: { type: 'cancel', orderIds: [earlier], account } });
    } else if (roll < 0.94) {
      const earlier = `0x${Math.floor(rand() * i)
        .toString(16)
        .padStart(8, '0')}`;
      inputs.push({ kind: 'withdraw', orderIds: [earlier], reason: 'CANCELLED' });
    } else {
      inputs.push({
        kind: 'heartbeat',
        account,
        timeoutSeconds: 30,
        expiresAt: 5_000_000_000_000 + i,
      });
    }
  }
  return inputs;
}

/** The hash of a trading state: engine and admission together (the bytes a checkpoint holds). */
const hashOf = (state: Pick<LeadingSequencer['sequencer'], 'engine' | 'admission'>) =>
  digestOf(checkpointBytes(state.engine, state.admission));

/** Submits inputs in several batches (a few per event-loop turn), all durable on return. */
async function submitInBatches(sequencer: LeadingSequencer['sequencer'], inputs: SequencerInput[]) {
  for (let i = 0; i < inputs.length; i += 25) await Promise.all(sequencer.submitAll(inputs.slice(i, i + 25)));
}

type Started = {
  node: SequencerNode;
  leading: Promise<LeadingSequencer>;
  deposed: Promise<unknown>;
};

/** Advisory locks are per database: each test's cluster has a lease key of its own. */
let leaseKeys = 1_000;

async function startNode(db: PostgresDatabase, name: string, leaseKey: string): Promise<Started> {
  let lead!: (leader: LeadingSequencer) => void;
  let depose!: (reason: unknown) => void;
  const leading = new Promise<LeadingSequencer>((resolve) => {
    lead = resolve;
  });
  const deposed = new Promise<unknown>((resolve) => {
    depose = resolve;
  });
  const node = await SequencerNode.start({
    database: db,
    node: name,
    ladderSize: LADDER,
    clock: systemClock,
    onLeading: lead,
    onDeposed: depose,
    leaseKey,
  });
  return { node, leading, deposed };
}

describe('a cluster sequencer with a hot standby', () => {
  it('the standby holds the leader’s state, takes over when the leader’s lease dies, and its appends recover to the same state', async () => {
    const url = await database.schema();
    const dbA = await openPostgres({ url, poolSize: 3 });
    const dbB = await openPostgres({ url, poolSize: 3 });
    const nodes: SequencerNode[] = [];
    const key = String(leaseKeys++);
    try {
      const rand = random(37);
      const a = await startNode(dbA, 'a', key);
      nodes.push(a.node);
      const leaderA = await a.leading;
      expect(leaderA.epoch).toBe(1);
      expect(a.node.role).toBe('leader');
      await submitInBatches(leaderA.sequencer, [...setup(), ...randomInputs(rand, 1, 200)]);
      // A checkpoint, so that the standby starts from it (as a start would) and follows the journal after it.
      const snapshot = leaderA.sequencer.checkpoint();
      await leaderA.journal.saveCheckpoint(leaderA.sequencer.lastSeq, digestOf(snapshot), snapshot, 0);

      const b = await startNode(dbB, 'b', key);
      nodes.push(b.node);
      expect(b.node.role).toBe('standby');
      await submitInBatches(leaderA.sequencer, randomInputs(rand, 201, 400));
      const leaderSeq = leaderA.sequencer.lastSeq;
      await expect.poll(() => b.node.lastSeq, { timeout: 10_000 }).toBe(leaderSeq);
      expect(hashOf(b.node.follower)).toBe(hashOf(leaderA.sequencer));
      expect(b.node.follower.engine.restingOrderCount).toBeGreaterThan(0);
      expect(b.node.follower.admission.delayed.size).toBeGreaterThan(0);

      // The leader's lease session dies (the server ends it, as when its process is gone).
      const killed = performance.now();
      await dbA.pool.query('SELECT pg_terminate_backend($1)', [await a.node.leaseBackendPid()]);
      const leaderB = await b.leading;
      const takeoverMs = performance.now() - killed;
      console.log(
        `standby leads ${Math.round(takeoverMs)} ms after the leader's lease died ` +
          `(${Math.round(leaderB.takeoverMs)} ms of it from the lease won to ready)`,
      );
      expect(takeoverMs).toBeLessThan(15_000);
      expect(await a.deposed).toBeInstanceOf(Error);
      expect(a.node.role).toBe('deposed');
      expect(leaderB.epoch).toBe(2);
      expect(leaderB.lastSeq).toBe(leaderSeq);

      // The former leader appends nothing more.
      await expect(leaderA.sequencer.submit(setup()[2]!)).rejects.toThrow();
      await expect(leaderA.journal.append([])).rejects.toThrow(JournalFenced);

      await submitInBatches(leaderB.sequencer, randomInputs(rand, 601, 200));
      const journal = await PostgresJournal.open(dbB.pool);
      const { rows } = await dbB.pool.query<{ n: number; first: number; last: number }>(
        'SELECT count(*)::int AS n, min(seq) AS first, max(seq) AS last FROM journal',
      );
      expect(rows[0]).toEqual({ n: leaderB.sequencer.lastSeq, first: 1, last: leaderB.sequencer.lastSeq });
      // A fresh start from the journal has the state the new leader has.
      const fresh = await recoverEngine(journal, LADDER);
      expect(fresh.lastSeq).toBe(leaderB.sequencer.lastSeq);
      expect(hashOf(fresh)).toBe(hashOf(leaderB.sequencer));
    } finally {
      for (const node of nodes) await node.stop().catch(() => {});
      await dbA.close();
      await dbB.close();
    }
  }, 60_000);

  it('a leader fenced by a successor’s epoch stops leading at its next append', async () => {
    const url = await database.schema();
    const db = await openPostgres({ url, poolSize: 3 });
    const nodes: SequencerNode[] = [];
    const key = String(leaseKeys++);
    try {
      const a = await startNode(db, 'a', key);
      nodes.push(a.node);
      const leaderA = await a.leading;
      await submitInBatches(leaderA.sequencer, setup());
      // A successor bumped the epoch (its own lease aside: a partitioned leader that still believes it leads).
      await db.pool.query('UPDATE sequencer_leader SET epoch = epoch + 1');
      const refused = leaderA.sequencer.submit(randomInputs(random(1), 1, 1)[0]!);
      await expect(refused).rejects.toThrow();
      expect(await a.deposed).toBeInstanceOf(JournalFenced);
      expect(a.node.role).toBe('deposed');
      const { rows } = await db.pool.query<{ last: number }>('SELECT max(seq) AS last FROM journal');
      expect(rows[0]!.last).toBe(setup().length);
    } finally {
      for (const node of nodes) await node.stop().catch(() => {});
      await db.close();
    }
  }, 60_000);
});
