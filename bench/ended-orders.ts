/**
 * `GET /orders-v3/ended` on SQLite, where reads run on the sequencer's thread: `node --import tsx
 * bench/ended-orders.ts`. One account with BENCH_ENDED (default 300,000) ended orders over 500 markets of 100
 * events; it prints how long a page of 100 takes, newest and oldest first, alone and filtered by a market
 * (with and without matches) and by an event, then the same filtered pages once the market and event indexes
 * are dropped (the reference: only the account's index), in the same run.
 */
import BetterSqlite3 from 'better-sqlite3';
import { migrate } from '../packages/server/src/store/sqlite/migrations.js';
import { SqliteTradingQueries } from '../packages/server/src/store/sqlite/sqlite-trading-queries.js';
import { type OrderFilter, orderListing } from '../packages/server/src/store/trading-reads.js';

const N = Number(process.env.BENCH_ENDED ?? 300_000);
const RUNS = 5;
const db = new BetterSqlite3(':memory:');
migrate(db);
const insert = db.prepare(`INSERT INTO orders (id, account, market_hash, event_id, is_outcome_one,
  percentage_odds, total_bet_size, remaining_size, filled_size, fill_pot, expiry, time_in_force, status,
  inactive_reason, salt, base_token, signature, command_id, created_at, updated_at)
  VALUES (@id, 'a', @market, @event, 1, '50000000000000000000', @size, '0', '0', '0', 0, 'GTC', 'INACTIVE',
  'USER_REQUESTED', '1', 't', 's', 'c', @at, @at)`);
db.transaction(() => {
  for (let i = 0; i < N; i++)
    insert.run({
      id: `0x${i.toString(16).padStart(64, '0')}`,
      market: `m${i % 500}`,
      event: `e${i % 100}`,
      size: String(1_000_000 + (i % 977)),
      at: i,
    });
})();
const queries = new SqliteTradingQueries(db);
const cases: [string, OrderFilter, boolean][] = [
  ['newest first', {}, false],
  ['oldest first', {}, true],
  ['one market (1 in 500)', { marketHash: 'm7' }, false],
  ['a market without orders', { marketHash: 'none' }, false],
  ['one event (1 in 100)', { eventId: 'e7' }, false],
];

async function measure(label: string, only: (filter: OrderFilter) => boolean): Promise<void> {
  console.log(label);
  for (const [name, filter, asc] of cases) {
    if (!only(filter)) continue;
    const listing = orderListing('createdAt', asc, 'ended');
    const ms: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      await queries.orders('a', filter, listing, { limit: 100, after: null });
      ms.push(performance.now() - started);
    }
    ms.sort((x, y) => x - y);
    console.log(
      `  ${name.padEnd(26)} median ${ms[RUNS >> 1]!.toFixed(2)} ms, max ${ms.at(-1)!.toFixed(2)} ms`,
    );
  }
}

console.log(`${N} ended orders of one account, a page of 100 (median and max of ${RUNS})`);
await measure('with the ended-order indexes (migration 25):', () => true);
db.exec('DROP INDEX orders_ended_by_market; DROP INDEX orders_ended_by_event;');
await measure('reference, the account index alone:', (f) => Object.keys(f).length > 0);
