import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Resting limit orders (place_order). A resting buy reserves its cash on the account (users.reserved_micro) and
 * a resting sell its shares on the position (positions.reserved_micro); what a trade may spend or sell is the
 * balance or quantity minus that reservation. The ledger audit proves each reservation equals the sum of the
 * open orders' own reservations (a sell order names the position whose shares it holds, `position_id`). `orders_open_by_price` holds only open orders, keyed so a price change on one
 * token walks just the orders it crosses (buys with limit >= ask, sells with limit <= bid).
 */
export class Orders1700000000017 implements MigrationInterface {
  name = 'Orders1700000000017';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN reserved_micro bigint NOT NULL DEFAULT 0 CHECK (reserved_micro >= 0)`);
    await q.query(`ALTER TABLE positions ADD COLUMN reserved_micro bigint NOT NULL DEFAULT 0 CHECK (reserved_micro >= 0)`);
    await q.query(`
      CREATE TABLE orders (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        client_order_id text,
        market_id text NOT NULL REFERENCES markets(id),
        token_id text NOT NULL REFERENCES market_tokens(token_id),
        outcome text NOT NULL CHECK (outcome IN ('YES', 'NO')),
        position_id uuid REFERENCES positions(id),
        side text NOT NULL CHECK (side IN ('BUY', 'SELL')),
        limit_price_micro bigint NOT NULL CHECK (limit_price_micro > 0 AND limit_price_micro <= 1000000),
        size_micro bigint NOT NULL CHECK (size_micro > 0),
        time_in_force text NOT NULL CHECK (time_in_force IN ('GTC', 'GTD', 'IOC', 'FOK')),
        expires_at timestamptz,
        state text NOT NULL CHECK (state IN ('open', 'partially_filled', 'filled', 'cancelled', 'expired', 'rejected')),
        filled_size_micro bigint NOT NULL DEFAULT 0 CHECK (filled_size_micro >= 0 AND filled_size_micro <= size_micro),
        filled_shares_micro bigint NOT NULL DEFAULT 0 CHECK (filled_shares_micro >= 0),
        filled_cash_micro bigint NOT NULL DEFAULT 0 CHECK (filled_cash_micro >= 0),
        reserved_cash_micro bigint NOT NULL DEFAULT 0 CHECK (reserved_cash_micro >= 0),
        reserved_shares_micro bigint NOT NULL DEFAULT 0 CHECK (reserved_shares_micro >= 0),
        reason text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT orders_gtd_expires CHECK ((time_in_force = 'GTD') = (expires_at IS NOT NULL)),
        CONSTRAINT orders_reservation_side CHECK ((side = 'BUY' AND reserved_shares_micro = 0) OR (side = 'SELL' AND reserved_cash_micro = 0)),
        CONSTRAINT orders_closed_hold_nothing CHECK (state IN ('open', 'partially_filled') OR (reserved_cash_micro = 0 AND reserved_shares_micro = 0))
      )`);
    await q.query(`CREATE UNIQUE INDEX orders_client_order_id ON orders (user_id, client_order_id) WHERE client_order_id IS NOT NULL`);
    await q.query(`CREATE INDEX orders_user_created ON orders (user_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX orders_open_by_price ON orders (token_id, side, limit_price_micro) WHERE state IN ('open', 'partially_filled')`);
    await q.query(`CREATE INDEX orders_open_by_market ON orders (market_id) WHERE state IN ('open', 'partially_filled')`);
    await q.query(`CREATE INDEX orders_open_expiring ON orders (expires_at) WHERE state IN ('open', 'partially_filled') AND expires_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE orders');
    await q.query('ALTER TABLE positions DROP COLUMN reserved_micro');
    await q.query('ALTER TABLE users DROP COLUMN reserved_micro');
  }
}
