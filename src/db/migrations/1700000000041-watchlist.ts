import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Watchlists (issue 36 item 6): the markets an account follows, each with an optional price alert above and/or below
 * on the YES price. An alert fires once (its fired_at is set with the notification it wrote) and fires again only
 * after it is set anew (watch_market re-arms it).
 */
export class Watchlist1700000000041 implements MigrationInterface {
  name = 'Watchlist1700000000041';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE watchlist_entries (
        user_id uuid NOT NULL REFERENCES users(id),
        market_id text NOT NULL REFERENCES markets(id),
        created_at timestamptz NOT NULL,
        alert_above_micro bigint CHECK (alert_above_micro BETWEEN 0 AND 1000000),
        above_fired_at timestamptz,
        alert_below_micro bigint CHECK (alert_below_micro BETWEEN 0 AND 1000000),
        below_fired_at timestamptz,
        PRIMARY KEY (user_id, market_id)
      )`);
    // The price path finds the armed alerts of a market that moved.
    await q.query(`CREATE INDEX watchlist_entries_market ON watchlist_entries (market_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE watchlist_entries');
  }
}
