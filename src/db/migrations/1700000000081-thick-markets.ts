import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a community market first had COMMUNITY_MIN_TRADERS (5, src/domain/track-record/record-rule.ts) distinct buyers
 * besides its creator: `community_pools.thick_at`. A market that has had them always has (the rule counts who has
 * bought, and no trade is ever removed), so once it is set the thin-market check answers from the pool's row instead of
 * reading the market's trades under the pool's lock, a read that grew with every trade of a busy market. Filled here
 * from the trade journal: the first buy of the fifth such buyer.
 */
export class ThickMarkets1700000000081 implements MigrationInterface {
  name = 'ThickMarkets1700000000081';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE community_pools ADD COLUMN thick_at timestamptz');
    await q.query(
      `UPDATE community_pools p SET thick_at = f.first_at
       FROM (SELECT market_id, first_at, row_number() OVER (PARTITION BY market_id ORDER BY first_at) AS n
             FROM (SELECT t.market_id, t.user_id, min(t.created_at) AS first_at
                   FROM trades t JOIN community_markets m ON m.id::text = t.market_id
                   WHERE t.side = 'BUY' AND t.user_id <> m.creator_id GROUP BY t.market_id, t.user_id) buyers) f
       WHERE f.n = 5 AND p.market_id::text = f.market_id`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE community_pools DROP COLUMN thick_at');
  }
}
