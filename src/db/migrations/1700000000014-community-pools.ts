import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Community markets get an LMSR market maker: one pool per market (liquidity parameter, cash held,
 * subsidy), one row per outcome (its token id, label, opening offset, shares the pool has sold, last price),
 * and every trade's prices as points. Positions and trades in community tokens live in the same tables as
 * mirrored ones, so positions no longer reference the mirrored markets' tables (a position's market is
 * either a mirrored market or a community market; the audit checks both).
 */
export class CommunityPools1700000000014 implements MigrationInterface {
  name = 'CommunityPools1700000000014';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE community_pools (
        market_id uuid PRIMARY KEY REFERENCES community_markets(id),
        b_micro bigint NOT NULL CHECK (b_micro > 0),
        subsidy_micro bigint NOT NULL CHECK (subsidy_micro > 0),
        cash_micro bigint NOT NULL CHECK (cash_micro >= 0),
        volume_micro bigint NOT NULL DEFAULT 0,
        trades integer NOT NULL DEFAULT 0,
        returned_micro bigint,
        settled_at timestamptz
      )`);
    await q.query(`
      CREATE TABLE community_outcomes (
        token_id text PRIMARY KEY,
        market_id uuid NOT NULL REFERENCES community_pools(market_id),
        idx integer NOT NULL,
        label text NOT NULL,
        offset_micro bigint NOT NULL,
        shares_micro bigint NOT NULL DEFAULT 0 CHECK (shares_micro >= 0),
        price_micro bigint NOT NULL CHECK (price_micro BETWEEN 0 AND 1000000),
        UNIQUE (market_id, idx)
      )`);
    await q.query(`
      CREATE TABLE community_price_points (
        id bigserial PRIMARY KEY,
        token_id text NOT NULL REFERENCES community_outcomes(token_id),
        t timestamptz NOT NULL,
        price_micro bigint NOT NULL CHECK (price_micro BETWEEN 0 AND 1000000)
      )`);
    await q.query(`CREATE INDEX community_price_points_token ON community_price_points (token_id, t, id)`);
    await q.query(`ALTER TABLE positions DROP CONSTRAINT IF EXISTS positions_market_id_fkey`);
    await q.query(`ALTER TABLE positions DROP CONSTRAINT IF EXISTS positions_token_id_fkey`);
    await q.query(`CREATE INDEX trades_market ON trades (market_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX trades_market');
    await q.query('DROP TABLE community_price_points');
    await q.query('DROP TABLE community_outcomes');
    await q.query('DROP TABLE community_pools');
  }
}
