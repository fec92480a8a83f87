import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Positions, the trade journal, idempotency keys and notifications. Shares and money are bigint
 * micro-units. A position keeps its share totals (bought, sold, settled) so the audit can prove
 * quantity = bought − sold − settled, and its cost basis so avgPrice and realized PnL are exact.
 */
export class Trading1700000000004 implements MigrationInterface {
  name = 'Trading1700000000004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE positions (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        market_id text NOT NULL REFERENCES markets(id),
        token_id text NOT NULL REFERENCES market_tokens(token_id),
        outcome text NOT NULL CHECK (outcome IN ('YES', 'NO')),
        quantity_micro bigint NOT NULL CHECK (quantity_micro >= 0),
        cost_micro bigint NOT NULL CHECK (cost_micro >= 0),
        bought_micro bigint NOT NULL DEFAULT 0,
        sold_micro bigint NOT NULL DEFAULT 0,
        settled_micro bigint NOT NULL DEFAULT 0,
        realized_pnl_micro bigint NOT NULL DEFAULT 0,
        is_closed boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        closed_at timestamptz,
        CONSTRAINT positions_quantity_balance CHECK (quantity_micro = bought_micro - sold_micro - settled_micro)
      )`);
    await q.query(`CREATE UNIQUE INDEX positions_one_open_per_token ON positions (user_id, token_id) WHERE NOT is_closed`);
    await q.query(`CREATE INDEX positions_user_created ON positions (user_id, created_at DESC, id)`);
    await q.query(`CREATE INDEX positions_open_by_market ON positions (market_id) WHERE NOT is_closed`);
    await q.query(`
      CREATE TABLE trades (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        position_id uuid NOT NULL REFERENCES positions(id),
        market_id text NOT NULL,
        token_id text NOT NULL,
        side text NOT NULL CHECK (side IN ('BUY', 'SELL', 'SETTLE')),
        quantity_micro bigint NOT NULL CHECK (quantity_micro >= 0),
        price_micro bigint NOT NULL CHECK (price_micro BETWEEN 0 AND 1000000),
        cash_micro bigint NOT NULL,
        realized_pnl_micro bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX trades_user_created ON trades (user_id, created_at)`);
    await q.query(`CREATE INDEX trades_position ON trades (position_id)`);
    await q.query(`
      CREATE TABLE idempotency_keys (
        user_id uuid NOT NULL REFERENCES users(id),
        key text NOT NULL,
        method text NOT NULL,
        request_hash text NOT NULL,
        state text NOT NULL CHECK (state IN ('in_flight', 'done')),
        response jsonb,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)`);
    await q.query(`
      CREATE TABLE notifications (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        type text NOT NULL,
        title text NOT NULL,
        message text NOT NULL,
        read boolean NOT NULL DEFAULT false,
        ref text,
        created_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX notifications_user_created ON notifications (user_id, created_at DESC)`);
    await q.query(`CREATE UNIQUE INDEX notifications_user_ref ON notifications (user_id, type, ref) WHERE ref IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['notifications', 'idempotency_keys', 'trades', 'positions']) await q.query(`DROP TABLE ${t}`);
  }
}
