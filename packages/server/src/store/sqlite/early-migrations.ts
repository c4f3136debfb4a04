import type { Migration } from './migrations.js';

/** The schema's first twelve steps (kept apart so that each file stays readable; applied in order by `migrate`). */
export const EARLY_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts and api keys',
    up: (db) =>
      db.exec(`
        CREATE TABLE accounts (
          address    TEXT PRIMARY KEY,
          created_at INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE api_keys (
          id         TEXT PRIMARY KEY,
          address    TEXT NOT NULL REFERENCES accounts(address),
          key_hash   TEXT NOT NULL UNIQUE,
          label      TEXT,
          created_at INTEGER NOT NULL,
          revoked_at INTEGER
        ) STRICT;
        CREATE INDEX api_keys_by_address ON api_keys(address);
      `),
  },
  {
    version: 2,
    name: 'sports catalog',
    up: (db) => {
      db.exec(`
        CREATE TABLE sports (
          sport_id INTEGER PRIMARY KEY,
          label    TEXT NOT NULL UNIQUE
        ) STRICT;
        CREATE TABLE leagues (
          league_id     INTEGER PRIMARY KEY AUTOINCREMENT,
          sport_id      INTEGER NOT NULL REFERENCES sports(sport_id),
          label         TEXT NOT NULL,
          live_delay_ms INTEGER,
          created_at    INTEGER NOT NULL,
          UNIQUE (sport_id, label)
        ) STRICT;
        CREATE TABLE teams (
          team_id     INTEGER PRIMARY KEY AUTOINCREMENT,
          league_id   INTEGER NOT NULL REFERENCES leagues(league_id),
          name        TEXT NOT NULL,
          search_name TEXT NOT NULL,
          created_at  INTEGER NOT NULL,
          UNIQUE (league_id, name)
        ) STRICT;
        CREATE TABLE fixtures (
          fixture_id  INTEGER PRIMARY KEY AUTOINCREMENT,
          event_id    TEXT NOT NULL UNIQUE,
          league_id   INTEGER NOT NULL REFERENCES leagues(league_id),
          team_one_id INTEGER NOT NULL REFERENCES teams(team_id),
          team_two_id INTEGER NOT NULL REFERENCES teams(team_id),
          game_time   INTEGER NOT NULL,
          status      INTEGER NOT NULL CHECK (status BETWEEN 1 AND 9),
          created_at  INTEGER NOT NULL,
          updated_at  INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX fixtures_by_status_time ON fixtures(status, game_time);
        CREATE INDEX fixtures_by_league ON fixtures(league_id);
        CREATE TABLE markets (
          market_hash       TEXT PRIMARY KEY,
          event_id          TEXT NOT NULL REFERENCES fixtures(event_id),
          type              INTEGER NOT NULL,
          line              TEXT,
          outcome_one_name  TEXT NOT NULL,
          outcome_two_name  TEXT NOT NULL,
          outcome_void_name TEXT NOT NULL,
          main_line         INTEGER NOT NULL,
          live_enabled      INTEGER NOT NULL,
          betting_delay_ms  INTEGER,
          min_bet_size      TEXT NOT NULL,
          status            TEXT NOT NULL CHECK (status IN ('ACTIVE', 'INACTIVE')),
          outcome           INTEGER CHECK (outcome IN (0, 1, 2)),
          reported_date     INTEGER,
          created_at        INTEGER NOT NULL,
          updated_at        INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX markets_by_event ON markets(event_id, type);
        CREATE TABLE live_scores (
          event_id       TEXT PRIMARY KEY REFERENCES fixtures(event_id),
          team_one_score INTEGER NOT NULL,
          team_two_score INTEGER NOT NULL,
          current_period TEXT NOT NULL,
          period_time    TEXT NOT NULL,
          periods        TEXT NOT NULL,
          extra          TEXT NOT NULL,
          created_at     INTEGER NOT NULL,
          updated_at     INTEGER NOT NULL
        ) STRICT;
      `);
      // The standard sports with their stable ids (inlined: a shipped migration never changes).
      const sports = [
        'Basketball',
        'Hockey',
        'Baseball',
        'Golf',
        'Soccer',
        'Tennis',
        'Mixed Martial Arts',
        'Football',
        'E Sports',
        'Novelty Markets',
        'Rugby Union',
        'Racing',
        'Boxing',
        'Crypto',
        'Cricket',
        'Economics',
        'Politics',
        'Entertainment',
        'Medicinal',
        'Rugby League',
      ];
      const insert = db.prepare('INSERT INTO sports (sport_id, label) VALUES (?, ?)');
      for (const [index, label] of sports.entries()) insert.run(index + 1, label);
    },
  },
  {
    version: 3,
    name: 'server secrets',
    up: (db) =>
      db.exec(`
        CREATE TABLE server_secrets (
          name       TEXT PRIMARY KEY,
          value      TEXT NOT NULL,
          created_at INTEGER NOT NULL
        ) STRICT;
      `),
  },
  {
    version: 4,
    name: 'trading: journal, orders, fills, trades, balances, positions, heartbeats',
    up: (db) =>
      db.exec(`
        -- Every command the sequencer applied, in order: the audit trail and the replay source.
        CREATE TABLE journal (
          seq     INTEGER PRIMARY KEY,
          ts      INTEGER NOT NULL,
          kind    TEXT NOT NULL,
          payload TEXT NOT NULL
        ) STRICT;
        CREATE TABLE sequencer_state (
          id              INTEGER PRIMARY KEY CHECK (id = 1),
          last_seq        INTEGER NOT NULL,
          engine_last_seq INTEGER NOT NULL
        ) STRICT;
        INSERT INTO sequencer_state (id, last_seq, engine_last_seq) VALUES (1, 0, -1);
        -- Engine snapshots with their state hash, to verify a restart against the journal.
        CREATE TABLE engine_checkpoints (
          seq        INTEGER PRIMARY KEY,
          state_hash TEXT NOT NULL,
          snapshot   TEXT NOT NULL,
          created_at INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE orders (
          id               TEXT PRIMARY KEY,
          account          TEXT NOT NULL,
          market_hash      TEXT NOT NULL,
          event_id         TEXT NOT NULL,
          is_outcome_one   INTEGER NOT NULL,
          percentage_odds  TEXT NOT NULL,
          total_bet_size   TEXT NOT NULL,
          remaining_size   TEXT NOT NULL,
          filled_size      TEXT NOT NULL,
          fill_pot         TEXT NOT NULL,
          expiry           INTEGER NOT NULL,
          time_in_force    TEXT NOT NULL,
          status           TEXT NOT NULL,
          inactive_reason  TEXT,
          client_order_id  TEXT,
          salt             TEXT NOT NULL,
          base_token       TEXT NOT NULL,
          signature        TEXT NOT NULL,
          command_id       TEXT NOT NULL,
          placed_seq       INTEGER,
          activate_at      INTEGER,
          created_at       INTEGER NOT NULL,
          updated_at       INTEGER NOT NULL
        ) STRICT;
        CREATE UNIQUE INDEX orders_by_client_id ON orders(account, client_order_id) WHERE client_order_id IS NOT NULL;
        CREATE INDEX orders_open_by_account ON orders(account, created_at) WHERE status <> 'INACTIVE';
        CREATE INDEX orders_open ON orders(placed_seq) WHERE status = 'ACTIVE';
        CREATE INDEX orders_pending ON orders(activate_at) WHERE status = 'PENDING';
        CREATE TABLE fills (
          id              TEXT PRIMARY KEY,
          match_id        TEXT NOT NULL,
          order_id        TEXT NOT NULL,
          trade_id        TEXT NOT NULL,
          account         TEXT NOT NULL,
          market_hash     TEXT NOT NULL,
          is_outcome_one  INTEGER NOT NULL,
          is_maker        INTEGER NOT NULL,
          fill_amount     TEXT NOT NULL,
          pot             TEXT NOT NULL,
          fill_odds       TEXT NOT NULL,
          status          TEXT NOT NULL,
          seq             INTEGER NOT NULL,
          created_at      INTEGER NOT NULL,
          updated_at      INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX fills_by_account ON fills(account, created_at, id);
        CREATE INDEX fills_by_order ON fills(order_id);
        CREATE INDEX fills_by_trade ON fills(trade_id);
        CREATE INDEX fills_by_match ON fills(match_id);
        CREATE TABLE trades (
          id              TEXT PRIMARY KEY,
          order_id        TEXT NOT NULL UNIQUE,
          account         TEXT NOT NULL,
          market_hash     TEXT NOT NULL,
          event_id        TEXT NOT NULL,
          is_outcome_one  INTEGER NOT NULL,
          is_maker        INTEGER NOT NULL,
          stake           TEXT NOT NULL,
          pot             TEXT NOT NULL,
          status          TEXT NOT NULL,
          outcome         INTEGER,
          payout          TEXT,
          created_at      INTEGER NOT NULL,
          updated_at      INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX trades_by_account ON trades(account, created_at, id);
        CREATE INDEX trades_by_market ON trades(market_hash, created_at);
        CREATE TABLE balances (
          account    TEXT PRIMARY KEY,
          available  TEXT NOT NULL,
          escrowed   TEXT NOT NULL,
          updated_at INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE engine_markets (
          market_hash TEXT PRIMARY KEY,
          event_id    TEXT NOT NULL,
          open_seq    INTEGER NOT NULL,
          status      TEXT NOT NULL,
          version     INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE positions (
          market_hash TEXT NOT NULL,
          account     TEXT NOT NULL,
          stake_one   TEXT NOT NULL,
          stake_two   TEXT NOT NULL,
          pot_one     TEXT NOT NULL,
          pot_two     TEXT NOT NULL,
          PRIMARY KEY (market_hash, account)
        ) STRICT;
        CREATE TABLE heartbeats (
          account         TEXT PRIMARY KEY,
          timeout_seconds INTEGER NOT NULL,
          expires_at      INTEGER NOT NULL
        ) STRICT;
      `),
  },
  {
    version: 5,
    name: 'trading write path: fewer random-key indexes, escrow cursors',
    up: (db) =>
      db.exec(`
        -- An escrow transaction covers the fills of one account with seq in a range
        -- (memo escrow:<account>:<first>-<last>).
        CREATE INDEX fills_by_account_seq ON fills(account, seq);
        -- No query looks fills up by match. A trade id is a hash of its order id (one trade per order), so
        -- fills by trade are found by order, and a trade's order id needs no unique index of its own.
        DROP INDEX fills_by_match;
        DROP INDEX fills_by_trade;
        -- Locking a trade asks whether a fill of its order is still MATCHED: a small, hot partial index
        -- answers in one probe (a status column in the large random-key index would cost a page per lock).
        CREATE INDEX fills_matched_by_order ON fills(order_id) WHERE status = 'MATCHED';
        CREATE TABLE trades_v5 (
          id              TEXT PRIMARY KEY,
          order_id        TEXT NOT NULL,
          account         TEXT NOT NULL,
          market_hash     TEXT NOT NULL,
          event_id        TEXT NOT NULL,
          is_outcome_one  INTEGER NOT NULL,
          is_maker        INTEGER NOT NULL,
          stake           TEXT NOT NULL,
          pot             TEXT NOT NULL,
          status          TEXT NOT NULL,
          outcome         INTEGER,
          payout          TEXT,
          created_at      INTEGER NOT NULL,
          updated_at      INTEGER NOT NULL
        ) STRICT;
        INSERT INTO trades_v5 SELECT * FROM trades;
        DROP TABLE trades;
        ALTER TABLE trades_v5 RENAME TO trades;
        CREATE INDEX trades_by_account ON trades(account, created_at, id);
        CREATE INDEX trades_by_market ON trades(market_hash, created_at);
        -- block_number: the last chain block whose escrow receipts the fills and trades reflect (written
        -- with them). fills_rowid: escrows are submitted for the fills after it (fills are only ever
        -- appended); every fill written before this migration was escrowed with its batch.
        CREATE TABLE escrow_cursor (
          id           INTEGER PRIMARY KEY CHECK (id = 1),
          block_number INTEGER NOT NULL,
          fills_rowid  INTEGER NOT NULL
        ) STRICT;
        INSERT INTO escrow_cursor (id, block_number, fills_rowid)
          VALUES (1, 0, (SELECT coalesce(max(rowid), 0) FROM fills));
      `),
  },
  {
    version: 6,
    name: 'fills: no primary key, escrow ranges by seq; the public tape indexed',
    up: (db) =>
      db.exec(`
        -- Each index page a commit touches is written whole to the WAL. The escrow ranges (account, seq
        -- BETWEEN) move from an (account, seq) index, a page per trading account per commit, to one on
        -- seq, which only appends. A fill id is unique by construction (<match>-M or -T) and nothing looks
        -- a fill up by id alone, so fills lose their primary key (a legacy per-fill escrow memo finds its
        -- fill by the seq in the id). Rowids are kept: escrow_cursor.fills_rowid points into them.
        CREATE TABLE fills_v6 (
          id              TEXT NOT NULL,
          match_id        TEXT NOT NULL,
          order_id        TEXT NOT NULL,
          trade_id        TEXT NOT NULL,
          account         TEXT NOT NULL,
          market_hash     TEXT NOT NULL,
          is_outcome_one  INTEGER NOT NULL,
          is_maker        INTEGER NOT NULL,
          fill_amount     TEXT NOT NULL,
          pot             TEXT NOT NULL,
          fill_odds       TEXT NOT NULL,
          status          TEXT NOT NULL,
          seq             INTEGER NOT NULL,
          created_at      INTEGER NOT NULL,
          updated_at      INTEGER NOT NULL
        ) STRICT;
        INSERT INTO fills_v6 (rowid, id, match_id, order_id, trade_id, account, market_hash, is_outcome_one,
            is_maker, fill_amount, pot, fill_odds, status, seq, created_at, updated_at)
          SELECT rowid, id, match_id, order_id, trade_id, account, market_hash, is_outcome_one, is_maker,
            fill_amount, pot, fill_odds, status, seq, created_at, updated_at FROM fills ORDER BY rowid;
        DROP TABLE fills;
        ALTER TABLE fills_v6 RENAME TO fills;
        CREATE INDEX fills_by_account ON fills(account, created_at, id);
        CREATE INDEX fills_by_order ON fills(order_id);
        CREATE INDEX fills_by_seq ON fills(seq);
        CREATE INDEX fills_matched_by_order ON fills(order_id) WHERE status = 'MATCHED';
        -- The public tape (taker bets, newest first, any market) read in index order instead of sorting
        -- every trade; it only appends.
        CREATE INDEX trades_public ON trades(created_at, id) WHERE is_maker = 0;
      `),
  },
  {
    version: 7,
    name: 'per-account state tables without rowid',
    up: (db) =>
      db.exec(`
        -- A table keyed by text keeps its rows in one B-tree and its primary key in a second, so each
        -- upsert wrote two pages to the WAL. Without rowid the key is the table: one page per row. These
        -- are written by every batch (balances, positions, the market's version), rows are small.
        CREATE TABLE balances_v7 (
          account    TEXT PRIMARY KEY,
          available  TEXT NOT NULL,
          escrowed   TEXT NOT NULL,
          updated_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        INSERT INTO balances_v7 SELECT account, available, escrowed, updated_at FROM balances;
        DROP TABLE balances;
        ALTER TABLE balances_v7 RENAME TO balances;
        CREATE TABLE engine_markets_v7 (
          market_hash TEXT PRIMARY KEY,
          event_id    TEXT NOT NULL,
          open_seq    INTEGER NOT NULL,
          status      TEXT NOT NULL,
          version     INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        INSERT INTO engine_markets_v7 SELECT market_hash, event_id, open_seq, status, version FROM engine_markets;
        DROP TABLE engine_markets;
        ALTER TABLE engine_markets_v7 RENAME TO engine_markets;
        CREATE TABLE positions_v7 (
          market_hash TEXT NOT NULL,
          account     TEXT NOT NULL,
          stake_one   TEXT NOT NULL,
          stake_two   TEXT NOT NULL,
          pot_one     TEXT NOT NULL,
          pot_two     TEXT NOT NULL,
          PRIMARY KEY (market_hash, account)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO positions_v7 SELECT market_hash, account, stake_one, stake_two, pot_one, pot_two FROM positions;
        DROP TABLE positions;
        ALTER TABLE positions_v7 RENAME TO positions;
        CREATE TABLE heartbeats_v7 (
          account         TEXT PRIMARY KEY,
          timeout_seconds INTEGER NOT NULL,
          expires_at      INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        INSERT INTO heartbeats_v7 SELECT account, timeout_seconds, expires_at FROM heartbeats;
        DROP TABLE heartbeats;
        ALTER TABLE heartbeats_v7 RENAME TO heartbeats;
      `),
  },
  {
    version: 8,
    name: 'trades: count of fills not yet escrowed, instead of an index of MATCHED fills',
    up: (db) =>
      db.exec(`
        -- A trade turns LOCKED when none of its fills is MATCHED. The partial index that answered that
        -- cost two random index pages per fill (its insert and, once escrowed, its removal); the count
        -- lives on the trade row, which each new fill rewrites anyway.
        ALTER TABLE trades ADD COLUMN unlocked_fills INTEGER NOT NULL DEFAULT 0;
        UPDATE trades SET unlocked_fills =
          (SELECT count(*) FROM fills WHERE fills.order_id = trades.order_id AND fills.status = 'MATCHED')
          WHERE status IN ('MATCHED', 'LOCKED');
        DROP INDEX fills_matched_by_order;
      `),
  },
  {
    version: 9,
    name: 'escrowed fills and trades LOCKED by a per-account watermark, not by row updates',
    up: (db) =>
      db.exec(`
        -- Each account's escrows land in the order they were submitted, and each covers its fills up to a
        -- seq: a fill is escrowed once the account's highest landed escrow reaches its seq, and a trade once
        -- it reaches the trade's last fill. Storing that one number per account replaces rewriting every
        -- fill and trade row (and their pages in the WAL) when an escrow lands. Stored statuses are now
        -- MATCHED, SETTLED and FAILED; LOCKED is shown by the views below, which every read goes through.
        CREATE TABLE escrow_locks (
          account     TEXT PRIMARY KEY,
          through_seq INTEGER NOT NULL,
          locked_at   INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        INSERT INTO escrow_locks (account, through_seq, locked_at)
          SELECT account, max(seq), max(updated_at) FROM fills WHERE status = 'LOCKED' GROUP BY account;
        UPDATE fills SET status = 'MATCHED' WHERE status = 'LOCKED';
        ALTER TABLE trades ADD COLUMN last_fill_seq INTEGER NOT NULL DEFAULT 0;
        UPDATE trades SET last_fill_seq = (SELECT max(seq) FROM fills WHERE fills.order_id = trades.order_id),
          status = CASE status WHEN 'LOCKED' THEN 'MATCHED' ELSE status END;
        ALTER TABLE trades DROP COLUMN unlocked_fills;
        CREATE VIEW fills_shown AS
          SELECT f.id, f.match_id, f.order_id, f.trade_id, f.account, f.market_hash, f.is_outcome_one,
            f.is_maker, f.fill_amount, f.pot, f.fill_odds,
            CASE WHEN f.status = 'MATCHED' AND f.seq <= l.through_seq THEN 'LOCKED' ELSE f.status END AS status,
            f.seq, f.created_at, f.updated_at
          FROM fills f LEFT JOIN escrow_locks l ON l.account = f.account;
        -- A LOCKED trade's updatedAt is when its account's watermark last moved: after its last fill, and
        -- never later than what a later fill or the settlement writes.
        CREATE VIEW trades_shown AS
          SELECT t.id, t.order_id, t.account, t.market_hash, t.event_id, t.is_outcome_one, t.is_maker, t.stake,
            t.pot,
            CASE WHEN t.status = 'MATCHED' AND t.last_fill_seq <= l.through_seq THEN 'LOCKED' ELSE t.status END
              AS status,
            t.outcome, t.payout, t.created_at,
            CASE WHEN t.status = 'MATCHED' AND t.last_fill_seq <= l.through_seq THEN l.locked_at ELSE t.updated_at END
              AS updated_at,
            t.last_fill_seq
          FROM trades t LEFT JOIN escrow_locks l ON l.account = t.account;
      `),
  },
  {
    version: 10,
    name: 'sequencer state read from the journal',
    up: (db) =>
      db.exec(`
        -- Its two seqs were the journal's last and its last engine command's, rewritten by every batch: a
        -- page of every commit's WAL for what recovery reads from the journal's end.
        DROP TABLE sequencer_state;
      `),
  },
  {
    version: 11,
    name: 'open orders read at start through the per-account index',
    up: (db) =>
      db.exec(`
        -- Read only when a start rebuilds the books, yet maintained by every order that rests or leaves the
        -- book: a page of most commits. orders_open_by_account (status <> 'INACTIVE') holds the same orders.
        DROP INDEX orders_open;
      `),
  },
  {
    version: 12,
    name: 'a resolution stored once per market, shown on its trades and fills by the views',
    up: (db) =>
      db.exec(`
        -- A resolution rewrote every MATCHED trade and fill of its market on the sequencer's thread (and read
        -- them all back): 1.5 s for a market of 40,000 trades, every order of the exchange waiting. It now
        -- writes the market's row; the views show its MATCHED trades and fills SETTLED, with the outcome,
        -- payout and time. Rows settled before this migration keep their stored SETTLED.
        CREATE TABLE market_settlements (
          market_hash TEXT PRIMARY KEY,
          outcome     INTEGER NOT NULL,
          settled_at  INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
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
              AS updated_at
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
            t.last_fill_seq
          FROM trades t LEFT JOIN escrow_locks l ON l.account = t.account
            LEFT JOIN market_settlements s ON s.market_hash = t.market_hash;
      `),
  },
];
