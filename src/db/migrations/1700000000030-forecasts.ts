import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stated forecasts (issue 33): an account's probabilities for a market, stamped with the market's mid price(s) at that
 * instant, immutable and hash-chained per account (seq 1, 2, ... each carrying the previous record's hash). The current
 * forecast of an account on a market is its newest (highest seq); earlier ones stay as they were. Probabilities and
 * mids are micro-units (1e-6); a mid is null when the market had no price.
 */
export class Forecasts1700000000030 implements MigrationInterface {
  name = 'Forecasts1700000000030';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE forecasts (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        seq integer NOT NULL CHECK (seq >= 1),
        market_id text NOT NULL,
        venue text NOT NULL CHECK (venue IN ('mirrored', 'community')),
        source text NOT NULL CHECK (source IN ('stated', 'paper_trade', 'place_order', 'buy_community_shares')),
        probabilities_micro bigint[] NOT NULL CHECK (cardinality(probabilities_micro) >= 1),
        mids_micro bigint[] NOT NULL,
        rationale text CHECK (char_length(rationale) <= 280),
        created_at timestamptz NOT NULL,
        prev_hash text CHECK (prev_hash ~ '^[0-9a-f]{64}$'),
        hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
        UNIQUE (user_id, seq),
        CHECK ((seq = 1) = (prev_hash IS NULL))
      )`);
    await q.query('CREATE INDEX forecasts_user_created ON forecasts (user_id, created_at DESC, id DESC)');
    await q.query('CREATE INDEX forecasts_user_market ON forecasts (user_id, market_id, seq DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE forecasts');
  }
}
