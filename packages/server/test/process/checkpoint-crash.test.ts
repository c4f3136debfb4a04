import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ladderSize, type OrderMessage, tickToOdds } from '@oddsbook/protocol';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { fillsOf } from '../../src/engine/index.js';
import { openReplayStorage } from '../../src/exchange/exchange-storage.js';
import { recoverEngine } from '../../src/sequencer/recovery.js';
import { freePort } from '../helpers/cli-process.js';
import { storeSql } from '../helpers/store-access.js';
import { removeDataDir, testPrivateKey } from '../helpers/test-exchange.js';
import { withTestStore } from '../helpers/test-store.js';
import { viemOrderTypedData } from '../helpers/trading.js';

const serverDir = fileURLToPath(new URL('../..', import.meta.url));
const ADMIN = 'checkpoint-crash-admin-token-01';
const USDC = 1_000_000n;
const TRADERS = 6;
const ORDERS_PER_TRADER = 80;

type LogLine = { msg?: string; checkpointSeq?: number; replayedCommands?: number; lastSeq?: number };
type Server = { child: ChildProcess; base: string; lines: LogLine[]; exited: Promise<number | null> };

/** `oddsbook serve` taking a checkpoint every 200 ms, its JSON log lines collected. */
async function startServer(dataDir: string, port: number): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    cwd: serverDir,
    env: {
      ...process.env,
      ...(await withTestStore({ DATA_DIR: dataDir })),
      PORT: String(port),
      ADMIN_TOKEN: ADMIN,
      DEMO: '0',
      RATE_LIMITS: '0',
      BLOCK_TIME_MS: '50',
      CHECKPOINT_INTERVAL_MS: '200',
      LOG_LEVEL: 'info',
    },
  });
  const lines: LogLine[] = [];
  let output = '';
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk;
    buffered += chunk.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const line of parts) if (line.startsWith('{')) lines.push(JSON.parse(line));
  });
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/health`)).ok) return { child, base, lines, exited };
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes
  return { status: response.status, body: (await response.json()) as { data: any } };
}

const checkpointsSaved = (server: Server) =>
  server.lines.filter((line) => line.msg === 'checkpoint saved').map((line) => line.checkpointSeq!);

/** The settlement transactions the chain holds, in submission order. */
type SettleTx = { firstSeq: number; lastSeq: number; items: { id: string }[]; retries: { id: string }[] };

describe('checkpoints under load, and a SIGKILL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-checkpoint-crash-'));
  afterAll(() => removeDataDir(dataDir));

  it('a start after a SIGKILL recovers from a checkpoint taken under load and settles every fill exactly once', async () => {
    const port = await freePort();
    let server = await startServer(dataDir, port);
    const admin = { 'x-admin-token': ADMIN };
    const league = await call(
      server.base,
      'POST',
      '/admin/leagues',
      { sportId: 5, label: 'CP League' },
      admin,
    );
    const fixture = await call(
      server.base,
      'POST',
      '/admin/fixtures',
      {
        leagueId: league.body.data.leagueId,
        teamOneName: 'Alpha',
        teamTwoName: 'Beta',
        gameTime: Math.floor(Date.now() / 1000) + 86_400,
      },
      admin,
    );
    const market = await call(
      server.base,
      'POST',
      '/admin/markets',
      { eventId: fixture.body.data.eventId, type: 52, outcomeOneName: 'Alpha', outcomeTwoName: 'Beta' },
      admin,
    );
    const marketHash = market.body.data.marketHash as `0x${string}`;
    const metadata = await call(server.base, 'GET', '/metadata/obv3');
    const domain = metadata.body.data.domain;

    const traders = [];
    for (let i = 0; i < TRADERS; i++) {
      const account = privateKeyToAccount(testPrivateKey());
      const key = await call(server.base, 'POST', '/admin/api-keys', { address: account.address }, admin);
      const headers = { 'x-svc-api-key': key.body.data.apiKey as string };
      await call(server.base, 'POST', '/user/deploy-proxy', undefined, headers);
      traders.push({ account, headers });
    }
    for (const trader of traders) {
      while (!(await call(server.base, 'GET', '/user/proxy', undefined, trader.headers)).body.data.deployed)
        await new Promise((r) => setTimeout(r, 50));
      const funded = await call(
        server.base,
        'POST',
        '/admin/faucet',
        { address: trader.account.address, amount: (10_000n * USDC).toString() },
        admin,
      );
      expect(funded.status).toBe(200);
    }

    // Pre-signed orders: half the traders on outcome one, half on outcome two, at ticks that always cross
    // (800 ticks: 400 + 400 and up), so that fills come from the start.
    const expiry = Math.floor(Date.now() / 1000) + 3600;
    const batches = await Promise.all(
      traders.map(async (trader, t) =>
        Promise.all(
          Array.from({ length: ORDERS_PER_TRADER }, async (_, i) => {
            const isOne = t % 2 === 0;
            const message: OrderMessage = {
              marketHash,
              baseToken: metadata.body.data.activeAsset.baseToken,
              totalBetSize: BigInt(5 + (i % 7)) * USDC,
              percentageOdds: tickToOdds(400 + ((i + (isOne ? 0 : 10)) % 20)),
              salt: BigInt(t * 1_000_000 + i + 1),
              expiry,
              maker: trader.account.address,
              isMakerBettingOutcomeOne: isOne,
            };
            const orderSignature = await trader.account.signTypedData(viemOrderTypedData(domain, message));
            return {
              marketHash,
              maker: message.maker,
              baseToken: message.baseToken,
              totalBetSize: message.totalBetSize.toString(),
              percentageOdds: message.percentageOdds.toString(),
              salt: `0x${BigInt(message.salt).toString(16)}`,
              expiry,
              isMakerBettingOutcomeOne: isOne,
              timeInForce: 'GTC',
              orderSignature,
            };
          }),
        ),
      ),
    );

    // Load, and a SIGKILL once two checkpoints were stored during it and a quarter of the orders taken.
    const before = checkpointsSaved(server).length;
    let killed = false;
    let acknowledged = 0;
    const load = traders.map(async (trader, t) => {
      for (const order of batches[t]!) {
        if (killed) return;
        try {
          const response = await call(server.base, 'POST', '/orders-v3', { orders: [order] }, trader.headers);
          if (response.status === 200) acknowledged += 1;
        } catch {
          return; // the connection died with the server
        }
      }
    });
    while (checkpointsSaved(server).length < before + 2 || acknowledged < (TRADERS * ORDERS_PER_TRADER) / 4) {
      if (acknowledged === TRADERS * ORDERS_PER_TRADER)
        throw new Error('the load ended before two checkpoints');
      await new Promise((r) => setTimeout(r, 5));
    }
    const underLoad = checkpointsSaved(server).slice(before);
    server.child.kill('SIGKILL');
    killed = true;
    expect(await server.exited).toBeNull();
    await Promise.all(load);
    const config = loadConfig([], await withTestStore({ DATA_DIR: dataDir }));
    const atKill = await openReplayStorage(config);
    const journalEnd = await atKill.journal.last().finally(() => atKill.close());

    // The start: from a checkpoint taken under load (the newest at or before its consumers' cursors), then
    // only the journal after it.
    server = await startServer(dataDir, port);
    const gauge = async (name: string) => {
      const text = await (await fetch(`${server.base}/metrics`)).text();
      return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    };
    const restoredSeq = await gauge('oddsbook_start_checkpoint_seq');
    expect(restoredSeq).toBeGreaterThanOrEqual(underLoad[0]!);
    const replayed = await gauge('oddsbook_start_replayed_inputs');
    expect(replayed).toBeLessThanOrEqual(journalEnd.seq - restoredSeq);

    // Everything the chain was owed is submitted, then the exchange stops cleanly.
    const deadline = Date.now() + 60_000;
    while (
      (await gauge('oddsbook_settlement_queued_items')) +
        (await gauge('oddsbook_settlement_outstanding_items')) +
        (await gauge('oddsbook_settlement_transactions_in_flight')) >
      0
    ) {
      if (Date.now() > deadline) throw new Error('settlement did not drain');
      await new Promise((r) => setTimeout(r, 50));
    }
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    // Exactly once: the settlement windows follow one another with no seq skipped or covered twice, each
    // item is in one transaction, and every fill of the journal is among them.
    const sql = await storeSql({ dataDir, config });
    const txs = (
      await sql.query("SELECT payload FROM chain_transactions WHERE kind = 'settle' ORDER BY seq")
    ).map((row) => JSON.parse(row.payload as string) as SettleTx);
    await sql.close();
    const storage = await openReplayStorage(config);
    const fills = new Set<string>();
    try {
      await recoverEngine(storage.journal, ladderSize(), {
        after: 0,
        onEntries: (entries) => {
          for (const entry of entries)
            for (const fill of fillsOf(entry.events)) fills.add(`fill:${fill.matchId}`);
        },
      });
    } finally {
      await storage.close();
    }
    let through = storage.journal.features.chainSettlement - 1;
    for (const tx of txs) {
      if (tx.lastSeq < tx.firstSeq) continue; // retries alone
      expect(tx.firstSeq).toBe(through + 1);
      through = tx.lastSeq;
    }
    const items = txs.flatMap((tx) => tx.items.map((item) => item.id));
    expect(new Set(items).size).toBe(items.length);
    expect(fills.size).toBeGreaterThan(0);
    expect(items.filter((id) => id.startsWith('fill:')).sort()).toEqual([...fills].sort());
    expect(txs.flatMap((tx) => tx.retries)).toEqual([]);
    console.info(
      `checkpoint crash test: checkpoints under load at ${underLoad.join(', ')}; SIGKILL at seq ${journalEnd.seq}; ` +
        `restarted from ${restoredSeq}, ${replayed} commands replayed; ${fills.size} fills settled once in ${txs.length} transactions`,
    );

    // The journal alone rebuilds the same state as the projections.
    const replay = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'replay'], {
      cwd: serverDir,
      env: { ...process.env, ...(await withTestStore({ DATA_DIR: dataDir })) },
      encoding: 'utf8',
    });
    expect(replay.stdout).toMatch(/identical/);
    expect(replay.status).toBe(0);
  }, 180_000);
});
