import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The sort keys of list_markets (src/market-data/market-listing.ts): these expressions, exactly. */
const KEYS = {
  volume: '(coalesce(volume, -1::float8))',
  ending: "(coalesce(end_date, 'infinity'::timestamptz))",
  newest: 'created_at',
} as const;

/**
 * Indexes for list_markets: for each sort, one by (status, key, id) and one by (category, status, key, id),
 * so every page, filtered by category or not, is an index walk from the cursor that stops after limit + 1
 * rows (a descending sort walks the index backwards). 'all' merges one walk per status.
 */
export class MarketListing1700000000010 implements MigrationInterface {
  name = 'MarketListing1700000000010';

  async up(q: QueryRunner): Promise<void> {
    for (const [sort, key] of Object.entries(KEYS)) {
      await q.query(`CREATE INDEX markets_list_${sort}_idx ON markets (status, ${key}, id)`);
      await q.query(`CREATE INDEX markets_list_category_${sort}_idx ON markets (category, status, ${key}, id)`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sort of Object.keys(KEYS)) {
      await q.query(`DROP INDEX markets_list_category_${sort}_idx`);
      await q.query(`DROP INDEX markets_list_${sort}_idx`);
    }
  }
}
