/**
 * The embedded chain's settlement transactions alone: `node --import tsx bench/settlement.ts`. On the exchange's
 * database (WAL, synchronous=FULL, as `openDatabase` opens it) whose index of landed settlement items already
 * holds BENCH_LANDED ids (default 1,000,000: years of fills), it submits settlement transactions of
 * BENCH_ITEMS fill items each (default 2,000, two wallets' escrows per item over 200 wallets, each with its fill's
 * calldata as the driver sends it) and mines them,
 * and prints per item: the look-up in the landed index (ids not landed, then ids landed), the submission
 * (checks, hash, one store write), and the block's computation and write (the look-up included; the fsync is
 * off the event loop and not counted). BENCH_RUNS (default 5) transactions; the median is printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualBlockTimer } from '../packages/server/src/chain/block-timer.js';
import type { Address } from '../packages/server/src/chain/chain-types.js';
import { EmbeddedChain } from '../packages/server/src/chain/embedded-chain.js';
import type { SettlementItem } from '../packages/server/src/chain/settlement-types.js';
import { SqliteChainStore } from '../packages/server/src/chain/sqlite-chain-store.js';
import { openDatabase } from '../packages/server/src/store/sqlite/open-database.js';

const LANDED = Number(process.env.BENCH_LANDED ?? 1_000_000);
const ITEMS = Number(process.env.BENCH_ITEMS ?? 2_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const WALLETS = Array.from(
  { length: 200 },
  (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}` as Address,
);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const µs = (ms: number, n: number) => `${((ms * 1000) / n).toFixed(2)} µs`;

const dir = mkdtempSync(join(tmpdir(), 'oddsbook-bench-settlement-'));
try {
  const db = openDatabase(dir);
  const store = new SqliteChainStore(db);
  const insert = db.prepare('INSERT INTO chain_settled_items (id, tx_hash) VALUES (?, ?)');
  const hash = `0x${'ab'.repeat(32)}`;
  db.transaction(() => {
    for (let i = 0; i < LANDED; i++) insert.run(`fill:${i}:0x${(i * 7919).toString(16)}`, hash);
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');

  const timer = new ManualBlockTimer();
  const chain = new EmbeddedChain({
    chainId: 4162,
    store,
    baseToken: '0xd1f05A1F2d3F5ef80e000ABD9c6Da3a9495Da054',
    escrowAddress: '0xa70B8BddF7B752f3756BecCB7710584d47597fC3',
    timer,
  });
  chain.start();
  await chain.submitSettlement({
    firstSeq: 1,
    lastSeq: 1,
    retries: [],
    items: WALLETS.map((to, i) => ({
      id: `funds:${i}`,
      kind: 'deposit',
      moves: [{ kind: 'mint', to, amount: 10n ** 15n }],
    })),
  });
  await timer.tick();

  const lookupsNew: number[] = [];
  const lookupsLanded: number[] = [];
  const submits: number[] = [];
  const blocks: number[] = [];
  let seq = 1;
  for (let run = 0; run < RUNS; run++) {
    const items: SettlementItem[] = Array.from({ length: ITEMS }, (_, i) => ({
      id: `fill:${LANDED + run * ITEMS + i}:0x${i.toString(16)}`,
      kind: 'fill',
      fill: {
        matchId: `0x${(run * ITEMS + i).toString(16).padStart(64, '0')}`,
        seq: 100 + run * ITEMS + i,
        marketHash: `0x${'ab'.repeat(32)}`,
        makerAccount: WALLETS[i % WALLETS.length]!,
        takerAccount: WALLETS[(i * 7 + 3) % WALLETS.length]!,
        makerIsBettingOutcomeOne: i % 2 === 0,
        makerStake: String(1_000_000 + i),
        takerStake: '2000000',
        refunds:
          i % 4 === 0
            ? [
                {
                  account: WALLETS[i % WALLETS.length]!,
                  marketHash: `0x${'cd'.repeat(32)}`,
                  amount: '500000',
                },
              ]
            : [],
      },
      moves: [
        { kind: 'escrow', from: WALLETS[i % WALLETS.length]!, amount: 1_000_000n + BigInt(i) },
        { kind: 'escrow', from: WALLETS[(i * 7 + 3) % WALLETS.length]!, amount: 2_000_000n },
      ],
    }));
    const landedIds = Array.from(
      { length: ITEMS },
      (_, i) =>
        `fill:${((run * ITEMS + i) * 13) % LANDED}:0x${((((run * ITEMS + i) * 13) % LANDED) * 7919).toString(16)}`,
    );

    let t = performance.now();
    const none = store.landedItems(items.map((i) => i.id));
    lookupsNew.push(performance.now() - t);
    t = performance.now();
    const all = store.landedItems(landedIds);
    lookupsLanded.push(performance.now() - t);
    if (none.size !== 0 || all.size !== ITEMS) throw new Error(`look-ups: ${none.size} ${all.size}`);

    t = performance.now();
    seq += 10;
    const { txHash } = await chain.submitSettlement({
      firstSeq: seq - 9,
      lastSeq: seq,
      retries: [],
      items,
    });
    submits.push(performance.now() - t);

    t = performance.now();
    const landing = chain.mineBlock();
    blocks.push(performance.now() - t);
    await landing;
    const receipt = await chain.getReceipt(txHash);
    if (receipt?.items?.some((r) => r.status !== 'success')) throw new Error('an item did not land');
  }
  await chain.stop();
  db.close();

  console.log(
    `landed index: ${LANDED.toLocaleString()} ids; ${ITEMS} items per transaction; median of ${RUNS}`,
  );
  console.log(`look-up, ids not landed   ${µs(median(lookupsNew), ITEMS)} per item`);
  console.log(`look-up, ids landed       ${µs(median(lookupsLanded), ITEMS)} per item`);
  console.log(`submitSettlement          ${µs(median(submits), ITEMS)} per item`);
  console.log(`mining (compute + write)  ${µs(median(blocks), ITEMS)} per item`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
