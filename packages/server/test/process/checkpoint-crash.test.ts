import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ladderSize } from '@oddsbook/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { fillsOf } from '../../src/engine/index.js';
import { openReplayStorage } from '../../src/exchange/exchange-storage.js';
import { recoverEngine } from '../../src/sequencer/recovery.js';
import { runCli, type ServingProcess, startServe } from '../helpers/cli-process.js';
import { USDC } from '../helpers/cluster-http.js';
import { loadSetup, postEachOrder, presignedOrders } from '../helpers/crash-load.js';
import { storeSql } from '../helpers/store-access.js';
import { removeDataDir } from '../helpers/test-exchange.js';
import { withTestStore } from '../helpers/test-store.js';

const ADMIN = 'checkpoint-crash-admin-token-01';
const admin = { 'x-admin-token': ADMIN };
const TRADERS = 6;
const ORDERS_PER_TRADER = 80;

/** `oddsbook serve` taking a checkpoint every 200 ms. */
const startServer = (dataDir: string) =>
  startServe({
    DATA_DIR: dataDir,
    ADMIN_TOKEN: ADMIN,
    RATE_LIMITS: '0',
    BLOCK_TIME_MS: '50',
    CHECKPOINT_INTERVAL_MS: '200',
    LOG_LEVEL: 'info',
  });

const checkpointsSaved = (server: ServingProcess) =>
  server.lines.filter((line) => line.msg === 'checkpoint saved').map((line) => line.checkpointSeq as number);

/** The settlement transactions the chain holds, in submission order. */
type SettleTx = { firstSeq: number; lastSeq: number; items: { id: string }[]; retries: { id: string }[] };

describe('checkpoints under load, and a SIGKILL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-checkpoint-crash-'));
  afterAll(() => removeDataDir(dataDir));

  it('a start after a SIGKILL recovers from a checkpoint taken under load and settles every fill exactly once', async () => {
    let server = await startServer(dataDir);
    const { meta, marketHash, traders } = await loadSetup(server.url, admin, TRADERS, 10_000n * USDC);

    // Pre-signed orders: half the traders on outcome one, half on outcome two, at ticks that always cross
    // (800 ticks: 400 + 400 and up), so that fills come from the start.
    const batches = await presignedOrders(meta, marketHash, traders, ORDERS_PER_TRADER, (t, i) => {
      const isOne = t % 2 === 0;
      return { tick: 400 + ((i + (isOne ? 0 : 10)) % 20), size: BigInt(5 + (i % 7)) * USDC, isOne };
    });

    // Load, and a SIGKILL once two checkpoints were stored during it and a quarter of the orders taken.
    const before = checkpointsSaved(server).length;
    let acknowledged = 0;
    const load = postEachOrder(server.url, traders, batches, (response) => {
      if (response.status === 200) acknowledged += 1;
    });
    while (checkpointsSaved(server).length < before + 2 || acknowledged < (TRADERS * ORDERS_PER_TRADER) / 4) {
      if (acknowledged === TRADERS * ORDERS_PER_TRADER)
        throw new Error('the load ended before two checkpoints');
      await new Promise((r) => setTimeout(r, 5));
    }
    const underLoad = checkpointsSaved(server).slice(before);
    const killed = server.stop('SIGKILL');
    const halted = load.halt();
    expect(await killed).toBeNull();
    await halted;
    const config = loadConfig([], await withTestStore({ DATA_DIR: dataDir }));
    const atKill = await openReplayStorage(config);
    const journalEnd = await atKill.journal.last().finally(() => atKill.close());

    // The start: from a checkpoint taken under load (the newest at or before its consumers' cursors), then
    // only the journal after it.
    server = await startServer(dataDir);
    const gauge = async (name: string) => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
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
    expect(await server.stop()).toBe(0);

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
    const replay = await runCli(['replay'], { DATA_DIR: dataDir });
    expect(replay.stdout).toMatch(/identical/);
    expect(replay.status).toBe(0);
  }, 180_000);
});
