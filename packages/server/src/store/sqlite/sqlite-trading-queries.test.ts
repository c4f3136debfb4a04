import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  consolidatedTradeListing,
  fillListing,
  type OrderSort,
  orderListing,
  type Page,
  tradeListing,
} from '../trading-reads.js';
import { migrate } from './migrations.js';
import { SqliteTradingQueries } from './sqlite-trading-queries.js';

/** Every SQL text the queries prepare, for EXPLAIN QUERY PLAN. */
function recordingDatabase() {
  const db = new BetterSqlite3(':memory:');
  migrate(db);
  const prepared: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    prepared.push(sql);
    return prepare(sql);
  }) as typeof db.prepare;
  return { db, prepared };
}

describe('trading listings', () => {
  it('seek every keyset page through an index, never a scan of a table', () => {
    const { db, prepared } = recordingDatabase();
    const queries = new SqliteTradingQueries(db);
    const plans: [string, string][] = [];
    const planOf = (run: () => unknown) => {
      const from = prepared.length;
      run();
      for (const sql of prepared.slice(from)) {
        const params = Object.fromEntries(
          [...sql.matchAll(/@(\w+)/g)].map(([, name]) => [name!, name === 'limit' ? 3 : 0]),
        );
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[])
          .map((r) => r.detail)
          .join(' | ');
        plans.push([sql, plan]);
      }
    };
    for (const asc of [true, false]) {
      for (const sortBy of ['createdAt', 'event', 'totalBetSize'] as OrderSort[]) {
        const listing = orderListing(sortBy, asc);
        const page: Page = { limit: 3, after: listing.shape === 'ns' ? [1, 'x'] : ['e', 'm', 1, 'x'] };
        if (sortBy === 'totalBetSize') page.after = [1, '5', 1, 'x'];
        planOf(() => queries.orders('a', {}, listing, page));
        planOf(() => queries.orders('a', { marketHash: 'm' }, listing, page));
      }
      // The ended orders (an account's whole history) by time, alone, on a market or on an event.
      const ended = orderListing('createdAt', asc, 'ended');
      for (const filter of [{}, { marketHash: 'm' }, { eventId: 'e' }])
        planOf(() => queries.orders('a', filter, ended, { limit: 3, after: [1, 'x'] }));
      planOf(() => queries.fills('a', {}, fillListing(asc), { limit: 3, after: [1, 2, 'x'] }));
      planOf(() => queries.fills('a', { orderId: 'o' }, fillListing(asc), { limit: 3, after: [1, 2, 'x'] }));
      planOf(() => queries.trades('a', {}, tradeListing(asc), { limit: 3, after: [1, 'x'] }));
      planOf(() =>
        queries.trades('a', { marketHash: 'm', status: ['LOCKED'] }, tradeListing(asc), {
          limit: 3,
          after: [1, 'x'],
        }),
      );
    }
    const tape = tradeListing(false, 'public');
    planOf(() => queries.publicTrades({}, tape, { limit: 3, after: [1, 'x'] }));
    planOf(() => queries.publicTrades({ marketHash: 'm' }, tape, { limit: 3, after: [1, 'x'] }));

    expect(plans.length).toBe(28);
    for (const [sql, plan] of plans) {
      expect(plan, sql).toMatch(/^SEARCH (orders|f|t) USING INDEX/);
      expect(plan, sql).not.toMatch(/\bSCAN\b/);
    }
    // Each order listing seeks its own scope's partial index; an ended listing its filter's, in time order.
    for (const [sql, plan] of plans.filter(([text]) => text.includes('FROM orders'))) {
      if (!sql.includes("status = 'INACTIVE'")) {
        expect(plan, sql).toMatch(/^SEARCH orders USING INDEX orders_open_by_account \(account=\?/);
        continue;
      }
      const [index, seek] = sql.includes('market_hash = @marketHash')
        ? ['orders_ended_by_market', 'account=\\? AND market_hash=\\?']
        : sql.includes('event_id = @eventId')
          ? ['orders_ended_by_event', 'account=\\? AND event_id=\\?']
          : ['orders_ended_by_account', 'account=\\?'];
      expect(plan, sql).toMatch(new RegExp(`^SEARCH orders USING INDEX ${index} \\(${seek} AND created_at`));
      expect(plan, sql).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
    }
    expect(plans.filter(([sql]) => sql.includes("status = 'INACTIVE'"))).toHaveLength(6);
    // The time sorts read in index order; only the last terms of a tie are sorted.
    const createdAt = plans.find(
      ([sql]) => sql.includes('FROM trades t') && !sql.includes('market_hash = @marketHash'),
    )![1];
    expect(createdAt).not.toMatch(/TEMP B-TREE/);
  });

  it('read a consolidated page by seeking the account index from the key, sorting only its ties', () => {
    const { db, prepared } = recordingDatabase();
    const queries = new SqliteTradingQueries(db);
    for (const asc of [true, false]) {
      for (const filter of [{}, { marketHash: 'm' }, { hideQuarterLineLegs: true }]) {
        const from = prepared.length;
        queries.consolidatedTrades('a', filter, consolidatedTradeListing(asc), {
          limit: 3,
          after: [1, 'o', 1],
        });
        const sql = prepared.slice(from).find((text) => text.includes('UNION ALL'))!;
        const params = Object.fromEntries(
          [...sql.matchAll(/@(\w+)/g)].map(([, name]) => [name!, name === 'limit' ? 3 : 0]),
        );
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map(
          (r) => r.detail,
        );
        expect(
          plan.filter((line) => /^SEARCH t /.test(line)),
          sql,
        ).toHaveLength(2);
        expect(
          plan.filter((line) => /^SCAN (t|m)\b/.test(line)),
          sql,
        ).toEqual([]);
        expect(plan.filter((line) => line.includes('TEMP B-TREE FOR LAST 2 TERMS'))).toHaveLength(2);
      }
    }
  });
});
