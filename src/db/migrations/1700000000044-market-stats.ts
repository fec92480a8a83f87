import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A market's trading figures as its venue states them (issue 34 item 4): 24 h volume and open interest in dollars, the
 * last trade's YES price and the price tick in micro-units, the smallest order in shares. Null where the venue does not
 * say (a market mirrored before this column existed, a recorded window replayed from the mirror's history).
 */
export class MarketStats1700000000044 implements MigrationInterface {
  name = 'MarketStats1700000000044';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE markets
        ADD COLUMN volume_24h double precision,
        ADD COLUMN open_interest double precision,
        ADD COLUMN last_trade_price_micro bigint,
        ADD COLUMN tick_size_micro bigint,
        ADD COLUMN min_order_shares double precision`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE markets DROP COLUMN min_order_shares, DROP COLUMN tick_size_micro, DROP COLUMN last_trade_price_micro, DROP COLUMN open_interest, DROP COLUMN volume_24h',
    );
  }
}
