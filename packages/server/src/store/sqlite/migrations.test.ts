import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from './migrations.js';

/** The migrations up to and including `version`. */
const through = (version: number) => MIGRATIONS.filter((m) => m.version <= version);

/** A new in-memory database at schema `version`. */
function databaseAt(version: number) {
  const db = new BetterSqlite3(':memory:');
  migrate(db, through(version));
  return db;
}

/** Fills and trades as the schema before migrations 8 and 9 holds them (the columns those migrations read). */
function tradingRows(db: InstanceType<typeof BetterSqlite3>) {
  const fill = db.prepare(`INSERT INTO fills (id, match_id, order_id, trade_id, account, market_hash,
      is_outcome_one, is_maker, fill_amount, pot, fill_odds, status, seq, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, 'm', 1, 1, '5', '10', '50', ?, ?, 1, 1)`);
  const trade = db.prepare(`INSERT INTO trades (id, order_id, account, market_hash, event_id, is_outcome_one,
      is_maker, stake, pot, status, created_at, updated_at)
    VALUES (?, ?, ?, 'm', 'e', 1, 1, '5', '10', ?, 1, 1)`);
  return {
    fill: (
      id: string,
      matchId: string,
      orderId: string,
      tradeId: string,
      account: string,
      status: string,
      seq: number,
    ) => fill.run(id, matchId, orderId, tradeId, account, status, seq),
    trade: (id: string, orderId: string, account: string, status: string) =>
      trade.run(id, orderId, account, status),
  };
}

describe('migration 6: fills without a primary key, escrow ranges by seq', () => {
  it('keeps every fill and its rowid; only append-only or order-keyed indexes remain', () => {
    const db = databaseAt(5);
    const fill = db.prepare(`INSERT INTO fills (rowid, id, match_id, order_id, trade_id, account, market_hash,
        is_outcome_one, is_maker, fill_amount, pot, fill_odds, status, seq, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, 'acct', 'm', 1, 1, '5', '10', '50', ?, ?, 1, 1)`);
    const trade =
      db.prepare(`INSERT INTO trades (id, order_id, account, market_hash, event_id, is_outcome_one,
        is_maker, stake, pot, status, created_at, updated_at)
      VALUES (?, ?, 'acct', 'm', 'e', 1, 1, '5', '10', ?, 1, 1)`);
    // Rowids with a gap: the escrow cursor points into them.
    fill.run(3, '1-0-M', '1-0', 'o1', 't1', 'LOCKED', 1);
    fill.run(7, '2-0-M', '2-0', 'o1', 't1', 'MATCHED', 2);
    fill.run(9, '2-1-M', '2-1', 'o2', 't2', 'LOCKED', 2);
    fill.run(12, '3-0-T', '3-0', 'o1', 't1', 'MATCHED', 3);
    trade.run('t1', 'o1', 'MATCHED');
    trade.run('t2', 'o2', 'LOCKED');
    db.prepare('UPDATE escrow_cursor SET fills_rowid = 7').run();

    expect(migrate(db, through(6))).toEqual([6]);

    expect(db.prepare('SELECT rowid, id, status, seq FROM fills ORDER BY rowid').raw().all()).toEqual([
      [3, '1-0-M', 'LOCKED', 1],
      [7, '2-0-M', 'MATCHED', 2],
      [9, '2-1-M', 'LOCKED', 2],
      [12, '3-0-T', 'MATCHED', 3],
    ]);
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'fills' ORDER BY name")
      .pluck()
      .all();
    expect(indexes).toEqual(['fills_by_account', 'fills_by_order', 'fills_by_seq', 'fills_matched_by_order']);
    expect(
      db
        .prepare(
          "SELECT order_id FROM fills INDEXED BY fills_matched_by_order WHERE status = 'MATCHED' ORDER BY order_id",
        )
        .pluck()
        .all(),
    ).toEqual(['o1', 'o1']);
    // The public tape, any market, newest first: read in index order, no sort of every trade.
    const tape = db
      .prepare(
        'EXPLAIN QUERY PLAN SELECT * FROM trades WHERE is_maker = 0 ORDER BY created_at DESC, id DESC LIMIT 50',
      )
      .all()
      .map((r) => (r as { detail: string }).detail)
      .join(' | ');
    expect(tape).toContain('trades_public');
    expect(tape).not.toContain('TEMP B-TREE');
    // New fills append after the highest rowid, as the escrow cursor assumes.
    fill.run(null, '4-0-M', '4-0', 'o3', 't3', 'MATCHED', 4);
    expect(db.prepare("SELECT rowid FROM fills WHERE id = '4-0-M'").pluck().get()).toBe(13);
    db.close();
  });
});

describe('migration 7: per-account state tables without rowid', () => {
  it('keeps every row and stores each table as its primary-key B-tree', () => {
    const db = databaseAt(6);
    db.exec(`
      INSERT INTO balances VALUES ('0xb', '10', '5', 1), ('0xa', '0', '7', 2);
      INSERT INTO engine_markets VALUES ('m1', 'e1', 3, 'OPEN', 9);
      INSERT INTO positions VALUES ('m1', '0xa', '1', '2', '3', '4'), ('m1', '0xb', '5', '6', '7', '8');
      INSERT INTO heartbeats VALUES ('0xa', 30, 12345);
    `);

    expect(migrate(db, through(7))).toEqual([7]);

    const rows = (table: string) => db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).raw().all();
    expect(rows('balances')).toEqual([
      ['0xa', '0', '7', 2],
      ['0xb', '10', '5', 1],
    ]);
    expect(rows('engine_markets')).toEqual([['m1', 'e1', 3, 'OPEN', 9]]);
    expect(rows('positions')).toEqual([
      ['m1', '0xa', '1', '2', '3', '4'],
      ['m1', '0xb', '5', '6', '7', '8'],
    ]);
    expect(rows('heartbeats')).toEqual([['0xa', 30, 12345]]);
    const withoutRowid = db
      .prepare(
        "SELECT name FROM pragma_table_list WHERE name IN ('balances', 'engine_markets', 'positions', 'heartbeats') AND wr = 1 AND strict = 1 ORDER BY name",
      )
      .pluck()
      .all();
    expect(withoutRowid).toEqual(['balances', 'engine_markets', 'heartbeats', 'positions']);
    // No separate primary-key index is left to write.
    const autoIndexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'sqlite_autoindex_%'")
      .pluck()
      .all()
      .filter((name) => /balances|engine_markets|positions|heartbeats/.test(String(name)));
    expect(autoIndexes).toEqual([]);
    // The projection's upserts still work.
    db.prepare(`INSERT INTO balances (account, available, escrowed, updated_at) VALUES ('0xa', '1', '1', 3)
      ON CONFLICT (account) DO UPDATE SET available = excluded.available`).run();
    expect(db.prepare("SELECT available FROM balances WHERE account = '0xa'").pluck().get()).toBe('1');
  });
});

describe('migration 8: a count of unescrowed fills on each trade', () => {
  it('counts the MATCHED fills of each open trade and drops the index of MATCHED fills', () => {
    const db = databaseAt(7);
    const { fill, trade } = tradingRows(db);
    fill('1-0-M', '1-0', 'o1', 't1', 'acct', 'LOCKED', 1);
    fill('2-0-M', '2-0', 'o1', 't1', 'acct', 'MATCHED', 1);
    fill('3-0-T', '3-0', 'o1', 't1', 'acct', 'MATCHED', 1);
    fill('3-1-M', '3-1', 'o2', 't2', 'acct', 'LOCKED', 1);
    fill('4-0-M', '4-0', 'o3', 't3', 'acct', 'SETTLED', 1);
    trade('t1', 'o1', 'acct', 'MATCHED');
    trade('t2', 'o2', 'acct', 'LOCKED');
    trade('t3', 'o3', 'acct', 'SETTLED');

    expect(migrate(db, through(8))).toEqual([8]);

    expect(db.prepare('SELECT id, status, unlocked_fills FROM trades ORDER BY id').raw().all()).toEqual([
      ['t1', 'MATCHED', 2],
      ['t2', 'LOCKED', 0],
      ['t3', 'SETTLED', 0],
    ]);
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'fills' ORDER BY name")
      .pluck()
      .all();
    expect(indexes).toEqual(['fills_by_account', 'fills_by_order', 'fills_by_seq']);
    db.close();
  });
});

describe('migration 9: LOCKED by a per-account escrow watermark', () => {
  it('keeps what every fill and trade shows while storing LOCKED as MATCHED under the watermark', () => {
    const db = databaseAt(8);
    const { fill, trade } = tradingRows(db);
    // a: escrowed through seq 2, its seq 3 not yet; t1 partly escrowed, t2 wholly. b: nothing escrowed.
    fill('1-0-M', '1-0', 'o1', 't1', 'a', 'LOCKED', 1);
    fill('2-0-M', '2-0', 'o2', 't2', 'a', 'LOCKED', 2);
    fill('3-0-M', '3-0', 'o1', 't1', 'a', 'MATCHED', 3);
    fill('3-1-T', '3-1', 'o3', 't3', 'b', 'MATCHED', 3);
    fill('4-0-T', '4-0', 'o4', 't4', 'b', 'SETTLED', 4);
    fill('5-0-T', '5-0', 'o5', 't5', 'b', 'FAILED', 5);
    trade('t1', 'o1', 'a', 'MATCHED');
    trade('t2', 'o2', 'a', 'LOCKED');
    trade('t3', 'o3', 'b', 'MATCHED');
    trade('t4', 'o4', 'b', 'SETTLED');
    trade('t5', 'o5', 'b', 'FAILED');
    const shown = () => ({
      fills: db.prepare('SELECT id, status FROM fills_shown ORDER BY id').raw().all(),
      trades: db.prepare('SELECT id, status FROM trades_shown ORDER BY id').raw().all(),
    });
    const before = {
      fills: db.prepare('SELECT id, status FROM fills ORDER BY id').raw().all(),
      trades: db.prepare('SELECT id, status FROM trades ORDER BY id').raw().all(),
    };

    expect(migrate(db, through(9))).toEqual([9]);

    expect(shown()).toEqual(before);
    expect(db.prepare('SELECT DISTINCT status FROM fills ORDER BY 1').pluck().all()).toEqual([
      'FAILED',
      'MATCHED',
      'SETTLED',
    ]);
    expect(db.prepare('SELECT account, through_seq FROM escrow_locks').raw().all()).toEqual([['a', 2]]);
    // A trade shown LOCKED was updated when the watermark last moved; one MATCHED keeps its own time.
    db.prepare("UPDATE escrow_locks SET locked_at = 99 WHERE account = 'a'").run();
    expect(
      db.prepare('SELECT id, updated_at FROM trades_shown WHERE account = ? ORDER BY id').raw().all('a'),
    ).toEqual([
      ['t1', 1],
      ['t2', 99],
    ]);
    expect(db.prepare('SELECT id, last_fill_seq FROM trades ORDER BY id').raw().all()).toEqual([
      ['t1', 3],
      ['t2', 2],
      ['t3', 3],
      ['t4', 4],
      ['t5', 5],
    ]);
    // b's escrow through seq 3 lands: its MATCHED fill and trade show LOCKED, the others keep theirs.
    db.prepare("INSERT INTO escrow_locks VALUES ('b', 3, 100)").run();
    expect(shown().fills).toContainEqual(['3-1-T', 'LOCKED']);
    expect(shown().trades).toEqual([
      ['t1', 'MATCHED'],
      ['t2', 'LOCKED'],
      ['t3', 'LOCKED'],
      ['t4', 'SETTLED'],
      ['t5', 'FAILED'],
    ]);
    db.close();
  });
});

describe('migration 11: open orders read at start through the per-account index', () => {
  it('drops orders_open; the start still reads the ACTIVE orders in placement order, without scanning orders', () => {
    const db = databaseAt(10);
    const order = db.prepare(`INSERT INTO orders (id, account, market_hash, event_id, is_outcome_one,
        percentage_odds, total_bet_size, remaining_size, filled_size, fill_pot, expiry, time_in_force, status,
        salt, base_token, signature, command_id, placed_seq, created_at, updated_at)
      VALUES (?, ?, 'm', 'e', 1, '50', '10', '10', '0', '0', 9, 'GTC', ?, 's', 'b', 'sig', 'c', ?, ?, 1)`);
    order.run('o1', 'a', 'ACTIVE', 7, 1);
    order.run('o2', 'b', 'INACTIVE', 2, 2);
    order.run('o3', 'b', 'ACTIVE', 3, 3);
    order.run('o4', 'a', 'PENDING', null, 4);
    order.run('o5', 'c', 'ACTIVE', 5, 5);

    expect(migrate(db, through(11))).toEqual([11]);

    const indexes = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' AND sql IS NOT NULL",
      )
      .pluck()
      .all();
    expect(indexes.sort()).toEqual(['orders_by_client_id', 'orders_open_by_account', 'orders_pending']);
    const startQuery =
      "SELECT id FROM orders WHERE status <> 'INACTIVE' AND status = 'ACTIVE' ORDER BY placed_seq";
    expect(db.prepare(startQuery).pluck().all()).toEqual(['o3', 'o5', 'o1']);
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${startQuery}`).all() as { detail: string }[];
    expect(plan.map((p) => p.detail)).toContain('SCAN orders USING INDEX orders_open_by_account');
    db.close();
  });
});

describe('migration 12: a resolution stored once per market', () => {
  it('shows the MATCHED and LOCKED trades and fills of a resolved market SETTLED with their payout, and nothing else changes', () => {
    const db = databaseAt(11);
    const fill = db.prepare(`INSERT INTO fills (id, match_id, order_id, trade_id, account, market_hash,
        is_outcome_one, is_maker, fill_amount, pot, fill_odds, status, seq, created_at, updated_at)
      VALUES (?, 'x', ?, 't', ?, ?, ?, 1, '5', '10', '50', ?, ?, 1, 1)`);
    const trade =
      db.prepare(`INSERT INTO trades (id, order_id, account, market_hash, event_id, is_outcome_one,
        is_maker, stake, pot, status, outcome, payout, last_fill_seq, created_at, updated_at)
      VALUES (?, ?, ?, ?, 'e', ?, 1, '5', '12', ?, ?, ?, ?, 1, 1)`);
    // In market m: a's fill and trade escrowed (LOCKED), b's not (MATCHED), c's FAILED, d's settled before
    // this migration (stored SETTLED). In market n, e's is MATCHED.
    fill.run('f1', 'o1', 'a', 'm', 1, 'MATCHED', 1);
    fill.run('f2', 'o2', 'b', 'm', 0, 'MATCHED', 2);
    fill.run('f3', 'o3', 'c', 'm', 1, 'FAILED', 3);
    fill.run('f4', 'o4', 'd', 'm', 1, 'SETTLED', 4);
    fill.run('f5', 'o5', 'e', 'n', 1, 'MATCHED', 5);
    trade.run('ta', 'o1', 'a', 'm', 1, 'MATCHED', null, null, 1);
    trade.run('tb', 'o2', 'b', 'm', 0, 'MATCHED', null, null, 2);
    trade.run('tc', 'o3', 'c', 'm', 1, 'FAILED', null, null, 3);
    trade.run('td', 'o4', 'd', 'm', 1, 'SETTLED', 2, '0', 4);
    trade.run('te', 'o5', 'e', 'n', 1, 'MATCHED', null, null, 5);
    db.prepare("INSERT INTO escrow_locks VALUES ('a', 1, 7)").run();
    const shown = () => ({
      fills: db.prepare('SELECT id, status, updated_at FROM fills_shown ORDER BY id').raw().all(),
      trades: db
        .prepare('SELECT id, status, outcome, payout, updated_at FROM trades_shown ORDER BY id')
        .raw()
        .all(),
    });
    const before = shown();

    expect(migrate(db, through(12))).toEqual([12]);
    expect(shown()).toEqual(before);

    db.prepare("INSERT INTO market_settlements VALUES ('m', 1, 50)").run();
    expect(shown()).toEqual({
      fills: [
        ['f1', 'SETTLED', 50],
        ['f2', 'SETTLED', 50],
        ['f3', 'FAILED', 1],
        ['f4', 'SETTLED', 1],
        ['f5', 'MATCHED', 1],
      ],
      trades: [
        ['ta', 'SETTLED', 1, '12', 50],
        ['tb', 'SETTLED', 1, '0', 50],
        ['tc', 'FAILED', null, null, 1],
        ['td', 'SETTLED', 2, '0', 1],
        ['te', 'MATCHED', null, null, 1],
      ],
    });
    // A void market refunds each stake.
    db.prepare("INSERT INTO market_settlements VALUES ('n', 0, 60)").run();
    expect(
      db.prepare("SELECT status, outcome, payout FROM trades_shown WHERE id = 'te'").raw().get(),
    ).toEqual(['SETTLED', 0, '5']);
    // Nothing was rewritten: the stored statuses are those inserted.
    expect(db.prepare('SELECT status FROM trades ORDER BY id').pluck().all()).toEqual([
      'MATCHED',
      'MATCHED',
      'FAILED',
      'SETTLED',
      'MATCHED',
    ]);
    db.close();
  });
});
