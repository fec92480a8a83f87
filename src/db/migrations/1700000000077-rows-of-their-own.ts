import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One owner per table (issue 50 item 4): state that rode on other modules' rows moves into rows of its own, each
 * table written by one module (scripts/check-table-writes.js).
 * - `account_event_seqs`: an account's event sequence (was users.event_seq), the event log's (src/domain/events).
 * - `forecast_chain_heads`: an account's forecast chain head (was users.forecast_seq/_head/_prev_hash), the chain's
 *   (src/domain/forecasts/forecast-chain.ts).
 * - `book_claims`: what this service's resting-order fills took of a token's venue book snapshot (was market_tokens'
 *   book_* and best_*_size columns), the resting fills' (src/domain/orders/book-claims.ts).
 * - `market_settlements`: which resolution events settlement has processed (was market_events.processed_at), the
 *   settlement's (src/domain/trading/settlement-service.ts); market_events stays the market data's queue of resolutions.
 * An account or token with no row has the starting state (seq 0, no head, nothing taken): its owner creates the row on
 * its first write, and readers read a missing row as that state.
 */
export class RowsOfTheirOwn1700000000077 implements MigrationInterface {
  name = 'RowsOfTheirOwn1700000000077';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE account_event_seqs (user_id uuid PRIMARY KEY REFERENCES users(id), event_seq bigint NOT NULL DEFAULT 0 CHECK (event_seq >= 0))`,
    );
    await q.query('INSERT INTO account_event_seqs (user_id, event_seq) SELECT id, event_seq FROM users WHERE event_seq > 0');
    await q.query('ALTER TABLE users DROP COLUMN event_seq');

    await q.query(`
      CREATE TABLE forecast_chain_heads (
        user_id uuid PRIMARY KEY REFERENCES users(id),
        forecast_seq integer NOT NULL DEFAULT 0,
        forecast_head text,
        forecast_prev_hash text
      )`);
    await q.query(`INSERT INTO forecast_chain_heads (user_id, forecast_seq, forecast_head, forecast_prev_hash)
      SELECT id, forecast_seq, forecast_head, forecast_prev_hash FROM users WHERE forecast_seq > 0`);
    await q.query('ALTER TABLE users DROP COLUMN forecast_prev_hash, DROP COLUMN forecast_head, DROP COLUMN forecast_seq');

    await q.query(`
      CREATE TABLE book_claims (
        token_id text PRIMARY KEY REFERENCES market_tokens(token_id),
        book_hash text,
        book_at timestamptz,
        best_bid_size_micro bigint CHECK (best_bid_size_micro >= 0),
        best_ask_size_micro bigint CHECK (best_ask_size_micro >= 0),
        bid_taken_micro bigint NOT NULL DEFAULT 0 CHECK (bid_taken_micro >= 0),
        ask_taken_micro bigint NOT NULL DEFAULT 0 CHECK (ask_taken_micro >= 0)
      )`);
    await q.query(`INSERT INTO book_claims (token_id, book_hash, book_at, best_bid_size_micro, best_ask_size_micro, bid_taken_micro, ask_taken_micro)
      SELECT token_id, book_hash, book_at, best_bid_size_micro, best_ask_size_micro, book_bid_taken_micro, book_ask_taken_micro
      FROM market_tokens WHERE book_at IS NOT NULL OR book_hash IS NOT NULL`);
    await q.query(`ALTER TABLE market_tokens DROP COLUMN book_hash, DROP COLUMN book_at, DROP COLUMN best_bid_size_micro, DROP COLUMN best_ask_size_micro,
      DROP COLUMN book_bid_taken_micro, DROP COLUMN book_ask_taken_micro`);

    await q.query(`CREATE TABLE market_settlements (event_id bigint PRIMARY KEY REFERENCES market_events(id), processed_at timestamptz NOT NULL)`);
    await q.query('INSERT INTO market_settlements (event_id, processed_at) SELECT id, processed_at FROM market_events WHERE processed_at IS NOT NULL');
    await q.query('ALTER TABLE market_events DROP COLUMN processed_at');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE market_events ADD COLUMN processed_at timestamptz');
    await q.query('UPDATE market_events e SET processed_at = s.processed_at FROM market_settlements s WHERE s.event_id = e.id');
    await q.query('DROP TABLE market_settlements');

    await q.query(`ALTER TABLE market_tokens ADD COLUMN best_bid_size_micro bigint CHECK (best_bid_size_micro >= 0),
      ADD COLUMN best_ask_size_micro bigint CHECK (best_ask_size_micro >= 0), ADD COLUMN book_at timestamptz, ADD COLUMN book_hash text,
      ADD COLUMN book_bid_taken_micro bigint NOT NULL DEFAULT 0 CHECK (book_bid_taken_micro >= 0),
      ADD COLUMN book_ask_taken_micro bigint NOT NULL DEFAULT 0 CHECK (book_ask_taken_micro >= 0)`);
    await q.query(`UPDATE market_tokens t SET book_hash = b.book_hash, book_at = b.book_at, best_bid_size_micro = b.best_bid_size_micro,
      best_ask_size_micro = b.best_ask_size_micro, book_bid_taken_micro = b.bid_taken_micro, book_ask_taken_micro = b.ask_taken_micro
      FROM book_claims b WHERE b.token_id = t.token_id`);
    await q.query('DROP TABLE book_claims');

    await q.query('ALTER TABLE users ADD COLUMN forecast_seq integer NOT NULL DEFAULT 0, ADD COLUMN forecast_head text, ADD COLUMN forecast_prev_hash text');
    await q.query(`UPDATE users u SET forecast_seq = h.forecast_seq, forecast_head = h.forecast_head, forecast_prev_hash = h.forecast_prev_hash
      FROM forecast_chain_heads h WHERE h.user_id = u.id`);
    await q.query('DROP TABLE forecast_chain_heads');

    await q.query('ALTER TABLE users ADD COLUMN event_seq bigint NOT NULL DEFAULT 0');
    await q.query('UPDATE users u SET event_seq = s.event_seq FROM account_event_seqs s WHERE s.user_id = u.id');
    await q.query('DROP TABLE account_event_seqs');
  }
}
