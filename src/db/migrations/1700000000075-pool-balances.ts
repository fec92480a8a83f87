import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A community pool's cash becomes a ledger account's maintained balance (issue 50 item 1): the account `pool:<market>`
 * keeps its balance on a row of its own, written only by the ledger module (src/domain/ledger/pool-cash.ts) as it
 * records the pool's transfers, so `community_pools` (the market maker's curve, owned by src/domain/community) no longer
 * holds money. The balance is copied over, so an existing database's audit stays clean after the upgrade.
 */
export class PoolBalances1700000000075 implements MigrationInterface {
  name = 'PoolBalances1700000000075';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE pool_balances (
        market_id uuid PRIMARY KEY REFERENCES community_pools(market_id),
        cash_micro bigint NOT NULL CHECK (cash_micro >= 0)
      )`);
    await q.query('INSERT INTO pool_balances (market_id, cash_micro) SELECT market_id, cash_micro FROM community_pools');
    await q.query('ALTER TABLE community_pools DROP COLUMN cash_micro');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE community_pools ADD COLUMN cash_micro bigint NOT NULL DEFAULT 0 CHECK (cash_micro >= 0)');
    await q.query('UPDATE community_pools p SET cash_micro = b.cash_micro FROM pool_balances b WHERE b.market_id = p.market_id');
    await q.query('ALTER TABLE community_pools ALTER COLUMN cash_micro DROP DEFAULT');
    await q.query('DROP TABLE pool_balances');
  }
}
