import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The size at the best levels of a token's CLOB book, as last read for resting orders it crossed (the listing the
 * sync mirrors carries best prices only): shares at the best bid and at the best ask, and when the book was read.
 * Null where no book was read (simulated tokens, or nothing crossed). What a partial fill was sized against.
 */
export class BookDepth1700000000021 implements MigrationInterface {
  name = 'BookDepth1700000000021';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE market_tokens ADD COLUMN best_bid_size_micro bigint CHECK (best_bid_size_micro >= 0)`);
    await q.query(`ALTER TABLE market_tokens ADD COLUMN best_ask_size_micro bigint CHECK (best_ask_size_micro >= 0)`);
    await q.query(`ALTER TABLE market_tokens ADD COLUMN book_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE market_tokens DROP COLUMN book_at');
    await q.query('ALTER TABLE market_tokens DROP COLUMN best_ask_size_micro');
    await q.query('ALTER TABLE market_tokens DROP COLUMN best_bid_size_micro');
  }
}
