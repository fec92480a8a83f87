import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The mirror's own history (issue 35 item 6): with MARKET_FEED=polymarket, each market as the venue described it (prices,
 * book top, status, winner) whenever it changed, and each book the service read. A replay run of source "mirror" replays
 * a past window of these (src/market-data/mirror-history/). Not keyed to markets(id): the history outlives what the
 * mirror keeps, and is pruned on its own retention (MIRROR_HISTORY_DAYS).
 */
export class MirrorHistory1700000000042 implements MigrationInterface {
  name = 'MirrorHistory1700000000042';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mirror_market_history (
        market_id text NOT NULL,
        t timestamptz NOT NULL,
        market jsonb NOT NULL,
        PRIMARY KEY (market_id, t)
      )`);
    await q.query('CREATE INDEX mirror_market_history_t_idx ON mirror_market_history (t)');
    await q.query(`
      CREATE TABLE mirror_book_history (
        token_id text NOT NULL,
        t timestamptz NOT NULL,
        bid_micro bigint NOT NULL CHECK (bid_micro BETWEEN 0 AND 1000000),
        ask_micro bigint NOT NULL CHECK (ask_micro BETWEEN 0 AND 1000000),
        depth jsonb,
        PRIMARY KEY (token_id, t)
      )`);
    await q.query('CREATE INDEX mirror_book_history_t_idx ON mirror_book_history (t)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE mirror_book_history');
    await q.query('DROP TABLE mirror_market_history');
  }
}
