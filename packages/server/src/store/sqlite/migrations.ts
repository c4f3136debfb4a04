import type { Database } from 'better-sqlite3';
import { writeTransaction } from '../../sqlite/write-transaction.js';
import { EARLY_MIGRATIONS } from './early-migrations.js';

export type Migration = { version: number; name: string; up: (db: Database) => void };

/**
 * `GET /orders-v3/ended` pages an account's ended orders by time, alone or on one market or event: an index
 * for each, so that a page seeks its rows in order whatever the length of the account's history, never
 * reading other accounts', its open orders, or its other markets'.
 */
const ENDED_ORDER_INDEXES = `
  CREATE INDEX orders_ended_by_account ON orders(account, created_at) WHERE status = 'INACTIVE';
  CREATE INDEX orders_ended_by_market ON orders(account, market_hash, created_at) WHERE status = 'INACTIVE';
  CREATE INDEX orders_ended_by_event ON orders(account, event_id, created_at) WHERE status = 'INACTIVE';
`;

/**
 * Versioned schema migrations, applied in order at start inside one transaction each.
 * Append new migrations; never edit one that has shipped.
 */
export const MIGRATIONS: readonly Migration[] = [
  ...EARLY_MIGRATIONS,
  {
    version: 13,
    name: 'binary engine checkpoints',
    // Checkpoints become the engine's bytes (`Engine.snapshotBytes`) with their SHA-256; a start restores
    // the newest and replays the journal after it. JSON checkpoints of earlier versions are dropped: the
    // first start replays the journal from its beginning and the next checkpoint is binary.
    up: (db) =>
      db.exec(`
        DROP TABLE engine_checkpoints;
        CREATE TABLE engine_checkpoints (
          seq        INTEGER PRIMARY KEY,
          digest     TEXT NOT NULL,
          snapshot   BLOB NOT NULL,
          created_at INTEGER NOT NULL
        ) STRICT;
      `),
  },
  {
    version: 14,
    name: 'projector cursor and chain outbox cursor',
    // Projections leave the journal's transaction: the projector records the last seq it projected with its
    // rows. Until now both were written together, so the projections stand at the journal's end. The chain
    // link records the last seq whose chain requests (payouts, deposits) it submitted, with the submission:
    // until now that was the same transaction as the journal.
    up: (db) =>
      db.exec(`
        CREATE TABLE projector_cursor (
          id  INTEGER PRIMARY KEY CHECK (id = 1),
          seq INTEGER NOT NULL
        ) STRICT;
        INSERT INTO projector_cursor (id, seq) VALUES (1, (SELECT ifnull(max(seq), 0) FROM journal));
        ALTER TABLE escrow_cursor ADD COLUMN outbox_seq INTEGER NOT NULL DEFAULT 0;
        UPDATE escrow_cursor SET outbox_seq = (SELECT ifnull(max(seq), 0) FROM journal);
      `),
  },
  {
    version: 15,
    name: 'capital-efficiency refunds',
    // Capital efficiency (issue 25): a fill can give part of a hedged position back at once. The refunds are
    // kept one row per (fill, bettor) for `GET /trades/portfolio/refunds` and trades' `marketHasRefunds`;
    // fills carry the refund they caused to their owner; positions what they have had back so far. The views
    // show the new columns from migration 17 (which recreates them once for both issues).
    up: (db) =>
      db.exec(`
        CREATE TABLE ce_refunds (
          seq            INTEGER NOT NULL,
          account        TEXT NOT NULL,
          market_hash    TEXT NOT NULL,
          fill_id        TEXT NOT NULL,
          is_maker       INTEGER NOT NULL,
          amount         TEXT NOT NULL,
          refunded_total TEXT NOT NULL,
          created_at     INTEGER NOT NULL,
          PRIMARY KEY (fill_id)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX ce_refunds_by_account ON ce_refunds (account, market_hash, seq);
        CREATE INDEX ce_refunds_by_market ON ce_refunds (market_hash);
        ALTER TABLE fills ADD COLUMN ce_refund_amount TEXT NOT NULL DEFAULT '0';
        ALTER TABLE positions ADD COLUMN refunded TEXT NOT NULL DEFAULT '0';
        -- GET /positions-v3 reads one account's positions. A fill's upsert changes only amounts, which this
        -- index does not hold: it is written when a position opens and when its market is resolved.
        CREATE INDEX positions_by_account ON positions (account, market_hash);
      `),
  },
  {
    version: 16,
    name: 'quarter-line market legs',
    // Quarter-line markets (issue 26): a market on a .25 or .75 line is settled by two leg markets of its
    // event and type, the whole line and the half line around it. Both hashes or neither.
    up: (db) =>
      db.exec(`
        ALTER TABLE markets ADD COLUMN quarter_line_whole_hash TEXT;
        ALTER TABLE markets ADD COLUMN quarter_line_half_hash TEXT;
        CREATE INDEX markets_by_quarter_line_whole ON markets(quarter_line_whole_hash)
          WHERE quarter_line_whole_hash IS NOT NULL;
        CREATE INDEX markets_by_quarter_line_half ON markets(quarter_line_half_hash)
          WHERE quarter_line_half_hash IS NOT NULL;
      `),
  },
  {
    version: 17,
    name: 'quarter-line legs',
    // Quarter-line markets (issue 26): a market opened with two legs (whole line, half line) keeps them in
    // its engine mirror row, so the snapshot rebuilt from the projections names them. A bet on it makes its
    // fills and trades on the leg markets, which record the quarter-line market (`quarter_line_parent`); the
    // views gain that column and migration 15's refund columns, and settle leg rows through their own market.
    up: (db) =>
      db.exec(`
        ALTER TABLE engine_markets ADD COLUMN whole_leg TEXT;
        ALTER TABLE engine_markets ADD COLUMN half_leg TEXT;
        ALTER TABLE fills ADD COLUMN quarter_line_parent TEXT;
        ALTER TABLE trades ADD COLUMN quarter_line_parent TEXT;
        -- GET /trades-v3?marketHash= of a quarter-line market lists the account's trades on its legs.
        CREATE INDEX trades_by_quarter_line ON trades(quarter_line_parent, account)
          WHERE quarter_line_parent IS NOT NULL;
        DROP VIEW fills_shown;
        DROP VIEW trades_shown;
        CREATE VIEW fills_shown AS
          SELECT f.id, f.match_id, f.order_id, f.trade_id, f.account, f.market_hash, f.is_outcome_one,
            f.is_maker, f.fill_amount, f.pot, f.fill_odds,
            CASE WHEN f.status <> 'MATCHED' THEN f.status
              WHEN s.market_hash IS NOT NULL THEN 'SETTLED'
              WHEN f.seq <= l.through_seq THEN 'LOCKED'
              ELSE f.status END AS status,
            f.seq, f.created_at,
            CASE WHEN f.status = 'MATCHED' AND s.market_hash IS NOT NULL THEN s.settled_at ELSE f.updated_at END
              AS updated_at,
            f.ce_refund_amount, f.quarter_line_parent
          FROM fills f LEFT JOIN escrow_locks l ON l.account = f.account
            LEFT JOIN market_settlements s ON s.market_hash = f.market_hash;
        CREATE VIEW trades_shown AS
          SELECT t.id, t.order_id, t.account, t.market_hash, t.event_id, t.is_outcome_one, t.is_maker, t.stake,
            t.pot,
            CASE WHEN t.status <> 'MATCHED' THEN t.status
              WHEN s.market_hash IS NOT NULL THEN 'SETTLED'
              WHEN t.last_fill_seq <= l.through_seq THEN 'LOCKED'
              ELSE t.status END AS status,
            CASE WHEN t.status = 'MATCHED' AND s.market_hash IS NOT NULL THEN s.outcome ELSE t.outcome END
              AS outcome,
            CASE WHEN t.status <> 'MATCHED' OR s.market_hash IS NULL THEN t.payout
              WHEN s.outcome = 0 THEN t.stake
              WHEN t.is_outcome_one = (s.outcome = 1) THEN t.pot
              ELSE '0' END AS payout,
            t.created_at,
            CASE WHEN t.status <> 'MATCHED' THEN t.updated_at
              WHEN s.market_hash IS NOT NULL THEN s.settled_at
              WHEN t.last_fill_seq <= l.through_seq THEN l.locked_at
              ELSE t.updated_at END AS updated_at,
            t.last_fill_seq,
            EXISTS (SELECT 1 FROM ce_refunds r WHERE r.market_hash = t.market_hash) AS market_has_refunds,
            t.quarter_line_parent
          FROM trades t LEFT JOIN escrow_locks l ON l.account = t.account
            LEFT JOIN market_settlements s ON s.market_hash = t.market_hash;
      `),
  },
  {
    version: 18,
    name: 'refund releases flushed with the escrows',
    // The chain link releases capital-efficiency refunds with its escrow flush, from the projected refunds
    // after a cursor of its own (it released them per journal entry with the outbox before: those are done).
    up: (db) =>
      db.exec(`
        ALTER TABLE escrow_cursor ADD COLUMN refund_seq INTEGER NOT NULL DEFAULT 0;
        UPDATE escrow_cursor SET refund_seq = (SELECT ifnull(max(seq), 0) FROM ce_refunds);
        CREATE INDEX ce_refunds_by_seq ON ce_refunds (seq);
      `),
  },
  {
    version: 19,
    name: 'settlement transactions',
    // Issue 33: the chain settles journal entries in settlement transactions whose receipts are journaled.
    // Items that did not land wait in settlement_outstanding (the driver submits them again); a winner's
    // trades show SETTLED once its payout landed (settlement_payouts.paid_at), not at the resolution; an
    // account may owe what a reversed fill took back (balances.owed).
    up: (db) =>
      db.exec(`
        ALTER TABLE balances ADD COLUMN owed TEXT NOT NULL DEFAULT '0';
        CREATE TABLE settlement_outstanding (
          id   TEXT PRIMARY KEY,
          item TEXT NOT NULL
        ) STRICT;
        -- One row per payout item of the settlement era: paid_at is set when it lands.
        CREATE TABLE settlement_payouts (
          market_hash TEXT NOT NULL,
          account     TEXT NOT NULL,
          seq         INTEGER NOT NULL,
          paid_at     INTEGER,
          PRIMARY KEY (market_hash, account)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX settlement_payouts_by_seq ON settlement_payouts (seq);
        DROP VIEW fills_shown;
        DROP VIEW trades_shown;
        CREATE VIEW fills_shown AS
          SELECT f.id, f.match_id, f.order_id, f.trade_id, f.account, f.market_hash, f.is_outcome_one,
            f.is_maker, f.fill_amount, f.pot, f.fill_odds,
            CASE WHEN f.status <> 'MATCHED' THEN f.status
              WHEN s.market_hash IS NOT NULL AND (p.market_hash IS NULL OR p.paid_at IS NOT NULL) THEN 'SETTLED'
              WHEN f.seq <= l.through_seq THEN 'LOCKED'
              ELSE f.status END AS status,
            f.seq, f.created_at,
            CASE WHEN f.status = 'MATCHED' AND s.market_hash IS NOT NULL AND (p.market_hash IS NULL OR p.paid_at IS NOT NULL) THEN coalesce(p.paid_at, s.settled_at)
              ELSE f.updated_at END AS updated_at,
            f.ce_refund_amount, f.quarter_line_parent
          FROM fills f LEFT JOIN escrow_locks l ON l.account = f.account
            LEFT JOIN market_settlements s ON s.market_hash = f.market_hash
            LEFT JOIN settlement_payouts p ON p.market_hash = f.market_hash AND p.account = f.account;
        -- A trade shows SETTLED once its market is resolved and its account's payout (if any) landed.
        CREATE VIEW trades_shown AS
          SELECT t.id, t.order_id, t.account, t.market_hash, t.event_id, t.is_outcome_one, t.is_maker, t.stake,
            t.pot,
            CASE WHEN t.status <> 'MATCHED' THEN t.status
              WHEN s.market_hash IS NOT NULL AND (p.market_hash IS NULL OR p.paid_at IS NOT NULL) THEN 'SETTLED'
              WHEN t.last_fill_seq <= l.through_seq THEN 'LOCKED'
              ELSE t.status END AS status,
            CASE WHEN t.status = 'MATCHED' AND s.market_hash IS NOT NULL AND (p.market_hash IS NULL OR p.paid_at IS NOT NULL) THEN s.outcome ELSE t.outcome END
              AS outcome,
            CASE WHEN t.status <> 'MATCHED' OR NOT (s.market_hash IS NOT NULL AND (p.market_hash IS NULL OR p.paid_at IS NOT NULL)) THEN t.payout
              WHEN s.outcome = 0 THEN t.stake
              WHEN t.is_outcome_one = (s.outcome = 1) THEN t.pot
              ELSE '0' END AS payout,
            t.created_at,
            CASE WHEN t.status <> 'MATCHED' THEN t.updated_at
              WHEN s.market_hash IS NOT NULL AND (p.market_hash IS NULL OR p.paid_at IS NOT NULL) THEN coalesce(p.paid_at, s.settled_at)
              WHEN t.last_fill_seq <= l.through_seq THEN l.locked_at
              ELSE t.updated_at END AS updated_at,
            t.last_fill_seq,
            EXISTS (SELECT 1 FROM ce_refunds r WHERE r.market_hash = t.market_hash) AS market_has_refunds,
            t.quarter_line_parent
          FROM trades t LEFT JOIN escrow_locks l ON l.account = t.account
            LEFT JOIN market_settlements s ON s.market_hash = t.market_hash
            LEFT JOIN settlement_payouts p ON p.market_hash = t.market_hash AND p.account = t.account;
      `),
  },
  {
    version: 20,
    name: 'client order ids unique among live orders',
    // Issue 35: the sequencer refuses a client order id only while an order of the account that carries it has
    // not expired (an index in its state, bounded by expiries); after that the tag may name a new order. The
    // projections keep both rows: a read by tag answers the newest.
    up: (db) =>
      db.exec(`
        DROP INDEX orders_by_client_id;
        CREATE INDEX orders_by_client_id ON orders(account, client_order_id, created_at)
          WHERE client_order_id IS NOT NULL;
      `),
  },
  {
    version: 21,
    name: 'browser sessions and consumed sign-in nonces',
    // Issue 35: a restart no longer signs browsers out, nor lets a used sign-in message through again.
    up: (db) =>
      db.exec(`
        CREATE TABLE web_sessions (
          token_hash TEXT PRIMARY KEY,
          address    TEXT NOT NULL,
          client     TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX web_sessions_by_expiry ON web_sessions(expires_at);
        CREATE TABLE consumed_siwe_nonces (
          id         TEXT PRIMARY KEY,
          stamp      INTEGER NOT NULL,
          expires_at INTEGER NOT NULL
        ) STRICT;
        -- A nonce expires a fixed time after its stamp: this order is the stamps' order too.
        CREATE INDEX consumed_siwe_nonces_by_expiry ON consumed_siwe_nonces(expires_at, stamp);
      `),
  },
  {
    version: 22,
    name: 'settlement rules out of SQL views',
    // Issue 35: how a fill or trade shows (LOCKED, SETTLED, its payout) is decided in TypeScript
    // (records/shown.ts) from the rows and the settlement state read beside them, the same for every store.
    up: (db) => db.exec('DROP VIEW fills_shown; DROP VIEW trades_shown;'),
  },
  {
    version: 23,
    name: 'heartbeat deadlines kept by the sequencer',
    // Issue 35: the dead-man switches are the sequencer's admission state (its snapshot and the journal);
    // no projection of them is read any more.
    up: (db) => db.exec('DROP TABLE heartbeats;'),
  },
  {
    version: 24,
    name: 'parlay markets',
    // Issue 39: a parlay market keeps the rules it was opened with (its request, windows, legs and fee) as
    // JSON on its engine_markets row: the parlay reads, and the engine rebuilt from the projections, read them.
    up: (db) => db.exec('ALTER TABLE engine_markets ADD COLUMN parlay TEXT;'),
  },
  {
    version: 25,
    name: 'ended orders listed by account',
    up: (db) => db.exec(ENDED_ORDER_INDEXES),
  },
];

export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  ) STRICT`);
  const applied = new Set(
    db
      .prepare('SELECT version FROM schema_migrations')
      .pluck()
      .all()
      .map((v) => Number(v)),
  );
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const ran: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    writeTransaction(db, () => {
      migration.up(db);
      record.run(migration.version, migration.name, Date.now());
    })();
    ran.push(migration.version);
  }
  return ran;
}
