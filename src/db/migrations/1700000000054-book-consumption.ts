import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What each account's market orders took from a token's book snapshot (issue 50 item 3), in shares per side, and which
 * snapshot that is (a hash of its levels): the next walk of the same account starts below it, so splitting an order
 * does not beat the book. A different snapshot starts at 0. Written only by src/domain/trading/book-consumption.ts.
 * Its fee (the venue's schedule) is recorded on the trade.
 */
export class BookConsumption1700000000054 implements MigrationInterface {
  name = 'BookConsumption1700000000054';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE book_consumption (
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        token_id text NOT NULL,
        book_hash text NOT NULL,
        bid_taken_micro bigint NOT NULL DEFAULT 0 CHECK (bid_taken_micro >= 0),
        ask_taken_micro bigint NOT NULL DEFAULT 0 CHECK (ask_taken_micro >= 0),
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, token_id)
      )`);
    await q.query(`ALTER TABLE trades ADD COLUMN fee_micro bigint NOT NULL DEFAULT 0 CHECK (fee_micro >= 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE trades DROP COLUMN fee_micro');
    await q.query('DROP TABLE book_consumption');
  }
}
