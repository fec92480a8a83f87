import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The local mirror of the venue: markets, their YES/NO tokens with the last seen book, price
 * snapshots for history, and market events (resolution) that trading settles exactly once.
 */
export class Markets1700000000002 implements MigrationInterface {
  name = 'Markets1700000000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE markets (
        id text PRIMARY KEY,
        slug text NOT NULL UNIQUE,
        question text NOT NULL,
        description text,
        category text,
        image_url text,
        volume double precision,
        end_date timestamptz,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'closed', 'resolved')),
        winner text CHECK (winner IN ('YES', 'NO', 'VOID')),
        resolved_at timestamptz,
        source text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE market_tokens (
        token_id text PRIMARY KEY,
        market_id text NOT NULL REFERENCES markets(id),
        outcome text NOT NULL CHECK (outcome IN ('YES', 'NO')),
        label text NOT NULL,
        price_micro bigint,
        bid_micro bigint,
        ask_micro bigint,
        price_at timestamptz,
        UNIQUE (market_id, outcome)
      )`);
    await q.query(`
      CREATE TABLE price_snapshots (
        token_id text NOT NULL REFERENCES market_tokens(token_id),
        t timestamptz NOT NULL,
        price_micro bigint NOT NULL CHECK (price_micro BETWEEN 0 AND 1000000),
        PRIMARY KEY (token_id, t)
      )`);
    await q.query(`
      CREATE TABLE market_events (
        id bigserial PRIMARY KEY,
        market_id text NOT NULL REFERENCES markets(id),
        type text NOT NULL,
        winner text,
        created_at timestamptz NOT NULL DEFAULT now(),
        processed_at timestamptz,
        UNIQUE (market_id, type)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE market_events');
    await q.query('DROP TABLE price_snapshots');
    await q.query('DROP TABLE market_tokens');
    await q.query('DROP TABLE markets');
  }
}
