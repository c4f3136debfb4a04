import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterNames } from '../../src/cluster/cluster-names.js';
import { ROLE_LEASE_KEYS } from '../../src/cluster/role-lease.js';
import { connectNats } from '../../src/cluster/test-support.js';
import { MarketStatus } from '../../src/engine/index.js';
import { openApiNode } from '../../src/exchange/api-role.js';
import { startChainRole } from '../../src/exchange/chain-role.js';
import type { LeasedRoleNode } from '../../src/exchange/leased-role.js';
import { startProjectorRole } from '../../src/exchange/projector-role.js';
import { type SequencerRole, startSequencerRole } from '../../src/exchange/sequencer-role.js';
import { openPostgres, type PostgresDatabase } from '../../src/store/postgres/postgres-database.js';
import {
  createTestDatabase,
  type TestDatabase,
} from '../../src/store/test-support/postgres-test-database.js';
import { nodeConfig, servedExchange } from '../helpers/in-process-nodes.js';
import { removeDataDir, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC, until } from '../helpers/trading.js';

/**
 * The leader split in three (issue 37, ADR 0018): `--role sequencer` alone (no projector, no chain), a
 * projector node and a chain node, each under its lease, with a standby of each; an API node in front
 * (`--role api`'s code: the chain, resolutions and reconciliation asked over NATS, now of the chain node).
 * All in this process, on one fresh PostgreSQL database and the NATS server.
 */
const silent = { info() {}, error() {} };
let database: TestDatabase;
let db: PostgresDatabase;
let nc: NatsConnection;
let cluster: string;
let sequencer: SequencerRole;
const roles: LeasedRoleNode[] = [];
const deposed: string[] = [];
const dirs: string[] = [];
let api: TestExchange;

// The chain node reads the leader's newest checkpoint every 200 ms here (at most every 30 s by default).
const configFor = (role: string) =>
  nodeConfig({
    databaseUrl: database.url,
    cluster,
    role,
    dirs,
    ...(role === 'chain' ? { env: { CHECKPOINT_INTERVAL_MS: '200' } } : {}),
  });

function startRole(role: 'projector' | 'chain'): Promise<LeasedRoleNode> {
  const options = {
    log: silent,
    onDeposed: () => void deposed.push(role),
    tryEveryMs: 100,
  };
  const started =
    role === 'projector'
      ? startProjectorRole(configFor(role), options)
      : startChainRole(configFor(role), options);
  return started.then((node) => {
    roles.push(node);
    return node;
  });
}

async function apiNode(): Promise<TestExchange> {
  const config = configFor('api');
  const exchange = await openApiNode(config, {
    log: silent,
    onFatal: (error) => {
      throw error;
    },
  });
  return servedExchange(exchange, () => exchange.trading.idle());
}

const leading = (node: LeasedRoleNode) =>
  until(
    () => node.state,
    (state) => state === 'leader',
    60_000,
  );

/** The backend holding a role's lease (its advisory lock), to end its session as a lost connection would. */
async function leaseHolder(role: 'projector' | 'chain'): Promise<number> {
  const key = BigInt(ROLE_LEASE_KEYS[role]);
  const { rows } = await db.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [Number(key >> 32n), Number(key & 0xffffffffn)],
  );
  expect(rows).toHaveLength(1);
  return rows[0]!.pid;
}

async function reconciled() {
  const response = await api.app.inject({ method: 'GET', url: '/admin/reconcile', headers: api.admin });
  expect(response.statusCode, response.body).toBe(200);
  const report = response.json().data;
  expect(report.differences).toEqual([]);
  expect(report.differenceUnits).toBe('0');
  expect(report.totals.chain).toBe(report.totals.engine);
}

const count = async (table: string) =>
  Number((await db.pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);

const balance = async (user: { headers: Record<string, string> }) =>
  (await api.app.inject({ method: 'GET', url: '/user/balance-v3', headers: user.headers })).json().data
    .balances[0] as { availableAmount: string; escrowedAmount: string };

beforeAll(async () => {
  database = await createTestDatabase();
  db = await openPostgres({ url: database.url, poolSize: 2 });
  nc = await connectNats();
  cluster = `split${Math.random().toString(36).slice(2, 8)}`;
  sequencer = await startSequencerRole(configFor('sequencer'), {
    log: silent,
    onDeposed: (reason) => {
      throw reason;
    },
  });
  await until(
    () => sequencer.state,
    (state) => state === 'leader',
    30_000,
  );
  await leading(await startRole('projector'));
  await leading(await startRole('chain'));
  api = await apiNode();
}, 120_000);

afterAll(async () => {
  await api?.close();
  for (const node of roles) await node.stop();
  await sequencer?.stop();
  // Its streams go with it (a publications stream reserves 1 GiB of the server's JetStream storage).
  if (nc) {
    const jsm = await jetstreamManager(nc);
    const names = clusterNames(cluster);
    for (const stream of [names.stream, names.publicationsStream])
      await jsm.streams.delete(stream).catch(() => {});
  }
  await nc?.close();
  await db?.close();
  await database?.drop();
  for (const dir of dirs) removeDataDir(dir);
});

describe('a sequencer, a projector node and a chain node', () => {
  it('a fill is projected by the projector node and settled by the chain node; a market resolves and pays out', async () => {
    // The sequencer alone projects nothing and runs no chain: its exchange's chain is the chain node's.
    expect(sequencer.exchange!.chain.constructor.name).toBe('RemoteChain');
    const { marketHash } = await createMarket(api);
    const maker = await createTrader(api, 100n * USDC);
    const taker = await createTrader(api, 100n * USDC);
    const ordersBefore = await count('orders');
    const made = await place(api, maker, { marketHash, tick: 400, size: 50n * USDC });
    expect(made.outcome.state).toBe('RESTED');
    const took = await place(api, taker, {
      marketHash,
      tick: 400,
      size: 50n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    expect(took.outcome.state).toBe('FULLY_FILLED');
    // The projector node wrote the rows: both orders, and the trade (a row per side).
    await until(
      () => count('orders'),
      (n) => n === ordersBefore + 2,
      10_000,
    );
    expect(await count('trades')).toBe(2);
    const fills = (await api.app.inject({ method: 'GET', url: '/fills-v3', headers: maker.headers })).json()
      .data.fills;
    expect(fills).toHaveLength(1);
    // The chain node settles the fill: its escrow lands, and the engine's money equals the chain's.
    await reconciled();

    const resolved = await api.app.inject({
      method: 'POST',
      url: `/admin/markets/${marketHash}/resolve`,
      headers: api.admin,
      payload: { outcome: 1 },
    });
    expect(resolved.statusCode, resolved.body).toBe(200);
    // Outcome one: the maker (on outcome one at tick 400) takes the pot.
    const paid = await until(
      () => balance(maker),
      (b) => b.escrowedAmount === '0' && BigInt(b.availableAmount) > 100n * USDC,
      20_000,
    );
    const takerAfter = await until(
      () => balance(taker),
      (b) => b.escrowedAmount === '0',
      20_000,
    );
    expect(BigInt(paid.availableAmount) + BigInt(takerAfter.availableAmount)).toBe(200n * USDC);
    await reconciled();
  }, 120_000);

  it('a projector and a chain node that lose their lease are replaced by their standbys, which catch up: nothing lost or doubled', async () => {
    const standbyProjector = await startRole('projector');
    const standbyChain = await startRole('chain');
    expect(standbyProjector.state).toBe('standby');
    expect(standbyChain.state).toBe('standby');
    const { marketHash } = await createMarket(api);
    const maker = await createTrader(api, 100n * USDC);
    const taker = await createTrader(api, 100n * USDC);
    const tradesBefore = await count('trades');
    const ordersBefore = await count('orders');
    // The publications stream's message ids name the stamping node's epoch (`pubs-<epoch>-<n>`).
    const stamped: string[] = [];
    const subscription = nc.subscribe(clusterNames(cluster).publications, {
      callback: (_error, msg) => void stamped.push(msg.headers?.get('Nats-Msg-Id') ?? ''),
    });

    // The projector's session ends (its process gone, as the server sees it): it stops at once; orders still
    // trade (the sequencer needs no projector), and the standby takes over and projects them.
    await db.pool.query('SELECT pg_terminate_backend($1)', [await leaseHolder('projector')]);
    await until(
      () => deposed,
      (d) => d.includes('projector'),
      10_000,
    );
    const sent = await Promise.all(
      [1, 2, 3].map((i) =>
        place(api, maker, { marketHash, tick: 400, size: BigInt(i) * 5n * USDC }).then(() =>
          place(api, taker, {
            marketHash,
            tick: 400,
            size: BigInt(i) * 5n * USDC,
            isOne: false,
            timeInForce: 'IOC',
          }),
        ),
      ),
    );
    for (const took of sent) expect(took.outcome.state).toBe('FULLY_FILLED');
    await leading(standbyProjector);
    expect(standbyProjector.epoch).toBe(2);
    await until(
      () => count('trades'),
      (n) => n === tradesBefore + 6,
      30_000,
    );
    await until(
      () => count('orders'),
      (n) => n === ordersBefore + 6,
      10_000,
    );

    // The chain node's session ends: it stops mining and settling; the standby takes over from the chain's
    // outbox cursor, and the fills made meanwhile settle once.
    await db.pool.query('SELECT pg_terminate_backend($1)', [await leaseHolder('chain')]);
    await until(
      () => deposed,
      (d) => d.includes('chain'),
      10_000,
    );
    const more = await place(api, maker, { marketHash, tick: 400, size: 10n * USDC });
    expect(more.outcome.state).toBe('RESTED');
    const last = await place(api, taker, {
      marketHash,
      tick: 400,
      size: 10n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    expect(last.outcome.state).toBe('FULLY_FILLED');
    await leading(standbyChain);
    expect(standbyChain.epoch).toBe(2);
    await until(
      () => count('trades'),
      (n) => n === tradesBefore + 8,
      30_000,
    );
    await until(
      () => count('orders'),
      (n) => n === ordersBefore + 8,
      10_000,
    );
    // Every fill settled once: the chain holds exactly what the engine says (a fill escrowed twice would not).
    await reconciled();
    const resolved = await api.app.inject({
      method: 'POST',
      url: `/admin/markets/${marketHash}/resolve`,
      headers: api.admin,
      payload: { outcome: 2 },
    });
    expect(resolved.statusCode, resolved.body).toBe(200);
    await until(
      () => balance(taker),
      (b) => b.escrowedAmount === '0' && BigInt(b.availableAmount) > 100n * USDC,
      20_000,
    );
    await reconciled();
    // The new projector stamps realtime publications under its own epoch: no name of the first is reused.
    subscription.unsubscribe();
    expect(stamped.some((id) => id.startsWith('pubs-2-'))).toBe(true);
    expect(new Set(stamped).size).toBe(stamped.length);
  }, 180_000);

  it('a projector and a chain node whose lease a successor took, without their noticing, write nothing more: every row and receipt once', async () => {
    const leader = (role: 'projector' | 'chain') => {
      const node = roles.find((r) => r.role === role && r.state === 'leader');
      expect(node).toBeDefined();
      return node!;
    };
    const journalCount = async (where: string) =>
      Number((await db.pool.query(`SELECT count(*) AS n FROM journal WHERE ${where}`)).rows[0].n);
    const projector = leader('projector');
    const standbyProjector = await startRole('projector');
    const { marketHash } = await createMarket(api);
    const maker = await createTrader(api, 100n * USDC);
    const taker = await createTrader(api, 100n * USDC);
    /** A maker of `size` and a taker that fills it whole. */
    const trade = async (size: bigint) => {
      await place(api, maker, { marketHash, tick: 400, size });
      const took = await place(api, taker, { marketHash, tick: 400, size, isOne: false, timeInForce: 'IOC' });
      expect(took.outcome.state).toBe('FULLY_FILLED');
    };
    const deposals = (role: 'projector' | 'chain') => deposed.filter((r) => r === role).length;

    // A successor's epoch bump, as its acquire makes it, while the projector's lease session lives on (a
    // partition from the lock's connection alone, a long pause): the projector does not notice the lease...
    const projectorDeposals = deposals('projector');
    await db.pool.query(
      "UPDATE role_leases SET epoch = epoch + 1, node = 'elsewhere' WHERE role = 'projector'",
    );
    const cursorAtBump = Number((await db.pool.query('SELECT seq FROM projector_cursor')).rows[0].seq);
    const ordersBefore = await count('orders');
    const tradesBefore = await count('trades');
    await trade(20n * USDC);
    // ...but its next projection is fenced: rolled back, and it stops.
    await until(
      () => deposals('projector'),
      (n) => n === projectorDeposals + 1,
      10_000,
    );
    expect(projector.state).toBe('deposed');
    expect(Number((await db.pool.query('SELECT seq FROM projector_cursor')).rows[0].seq)).toBe(cursorAtBump);
    expect(await count('orders')).toBe(ordersBefore);
    expect(await count('trades')).toBe(tradesBefore);
    // Its process exits (here: stops), its lease session with it; the standby leads and projects each row once.
    await projector.stop();
    await leading(standbyProjector);
    expect(standbyProjector.epoch).toBe(4);
    await until(
      () => count('trades'),
      (n) => n === tradesBefore + 2,
      30_000,
    );
    expect(await count('orders')).toBe(ordersBefore + 2);

    // The same for the chain node: the bump unnoticed, its next chain write is fenced and it stops.
    const chain = leader('chain');
    const standbyChain = await startRole('chain');
    const chainDeposals = deposals('chain');
    await db.pool.query("UPDATE role_leases SET epoch = epoch + 1, node = 'elsewhere' WHERE role = 'chain'");
    const blocksAtBump = await count('chain_blocks');
    await trade(10n * USDC);
    await until(
      () => deposals('chain'),
      (n) => n === chainDeposals + 1,
      10_000,
    );
    expect(chain.state).toBe('deposed');
    // A block mined under the fence would have its row (and its receipts, and its settled items).
    expect(await count('chain_blocks')).toBe(blocksAtBump);
    await chain.stop();
    await leading(standbyChain);
    expect(standbyChain.epoch).toBe(4);
    // Its epoch is journaled before it starts: a receipt, or a market's close and result (a resolution it
    // was asked for), that the deposed node still sends is refused whole.
    expect(await journalCount(`kind = 'lease' AND payload::jsonb @> '{"role": "chain", "epoch": 4}'`)).toBe(
      1,
    );
    const leaderSequencer = sequencer.exchange!.trading.sequencer;
    const stale = await Promise.all(
      leaderSequencer.decideAll([
        {
          kind: 'fenced',
          lease: { role: 'chain', epoch: 2 },
          inputs: [{ kind: 'settlement', block: 1_000_000, txs: [] }],
        },
        {
          kind: 'fenced',
          lease: { role: 'chain', epoch: 2 },
          inputs: [{ kind: 'engine', command: { type: 'closeMarket', marketHash } }],
        },
      ]),
    );
    expect(stale).toEqual([
      { entries: [], fenced: { epoch: 4 } },
      { entries: [], fenced: { epoch: 4 } },
    ]);
    // Nothing of it journaled (the new chain node goes on recording its own blocks meanwhile).
    expect(await journalCount(`kind = 'settlement' AND payload::jsonb @> '{"block": 1000000}'`)).toBe(0);
    expect(leaderSequencer.marketStatus(marketHash)).toBe(MarketStatus.OPEN);
    // The fills settle once: the chain holds what the engine says, and no block's receipts are journaled twice.
    await until(
      () => count('trades'),
      (n) => n === tradesBefore + 4,
      30_000,
    );
    await reconciled();
    const twice = await db.pool.query(
      `SELECT payload::jsonb->>'block' AS block FROM journal WHERE kind = 'settlement'
        GROUP BY 1 HAVING count(*) > 1`,
    );
    expect(twice.rows).toEqual([]);
  }, 180_000);
  it("the chain node's cursor reaches each checkpoint the leader stores while no money moves", async () => {
    const chainCursor = async () =>
      Number(
        (await db.pool.query("SELECT value FROM chain_meta WHERE key = 'settlement.submittedThrough'"))
          .rows[0]?.value ?? 0,
      );
    const { marketHash } = await createMarket(api);
    const maker = await createTrader(api, 100n * USDC);
    await api.settled();
    // Orders that rest, and nothing that moves money: no settlement transaction takes the cursor along.
    for (let i = 0; i < 3; i++) await place(api, maker, { marketHash, tick: 300 + i, size: 2n * USDC });
    const leaderTrading = sequencer.exchange!.trading;
    const cursorBefore = await chainCursor();
    expect(cursorBefore).toBeLessThan(leaderTrading.sequencer.lastSeq);
    await leaderTrading.checkpoint();
    const checkpointSeq = Number(
      (await db.pool.query('SELECT max(seq) AS seq FROM engine_checkpoints')).rows[0].seq,
    );
    expect(checkpointSeq).toBeGreaterThan(cursorBefore);
    // An empty settlement transaction moves the cursor to the checkpoint: a start of the chain role uses it.
    await until(chainCursor, (seq) => seq >= checkpointSeq, 30_000);
    await reconciled();
  }, 60_000);
});
