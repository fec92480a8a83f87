import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * get_portfolio_history reads an account's equity over time from hourly snapshots (src/domain/trading/portfolio-history.ts):
 * the sync leader takes one row per existing account per UTC hour (`bucket`, the hour's start) with its cash and its open
 * positions valued at the mirrored prices of that moment. The key makes a second snapshot of the same hour a no-op.
 */
export class PortfolioSnapshots1700000000016 implements MigrationInterface {
  name = 'PortfolioSnapshots1700000000016';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE portfolio_snapshots (
        user_id uuid NOT NULL REFERENCES users(id),
        bucket timestamptz NOT NULL,
        cash_micro bigint NOT NULL,
        positions_value_micro bigint NOT NULL CHECK (positions_value_micro >= 0),
        taken_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, bucket)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE portfolio_snapshots');
  }
}
