import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The unit an order is sized in (issue 34 item 2): 'amount' (dollars to spend, a BUY) or 'shares' (shares to sell, or
 * shares to buy). size_micro, filled_size_micro and the fill rule read it; a SELL is always sized in shares.
 */
export class OrderSizedBy1700000000045 implements MigrationInterface {
  name = 'OrderSizedBy1700000000045';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orders ADD COLUMN sized_by text NOT NULL DEFAULT 'amount'`);
    await q.query(`UPDATE orders SET sized_by = 'shares' WHERE side = 'SELL'`);
    await q.query(
      `ALTER TABLE orders ALTER COLUMN sized_by DROP DEFAULT,
         ADD CONSTRAINT orders_sized_by CHECK (sized_by = 'shares' OR (sized_by = 'amount' AND side = 'BUY'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE orders DROP COLUMN sized_by');
  }
}
