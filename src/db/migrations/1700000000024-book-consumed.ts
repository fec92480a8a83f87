import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What resting orders took from the token's current CLOB book, in shares per side, and which book that is (a hash of
 * its levels): recorded under the token row's lock in the same transaction as the fills, so any number of processes
 * filling against one book take no more in total than it showed. A new book (a different hash, newer) starts at 0.
 */
export class BookConsumed1700000000024 implements MigrationInterface {
  name = 'BookConsumed1700000000024';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE market_tokens ADD COLUMN book_hash text`);
    await q.query(`ALTER TABLE market_tokens ADD COLUMN book_bid_taken_micro bigint NOT NULL DEFAULT 0 CHECK (book_bid_taken_micro >= 0)`);
    await q.query(`ALTER TABLE market_tokens ADD COLUMN book_ask_taken_micro bigint NOT NULL DEFAULT 0 CHECK (book_ask_taken_micro >= 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE market_tokens DROP COLUMN book_ask_taken_micro');
    await q.query('ALTER TABLE market_tokens DROP COLUMN book_bid_taken_micro');
    await q.query('ALTER TABLE market_tokens DROP COLUMN book_hash');
  }
}
