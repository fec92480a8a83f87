import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A community pool opens with no cash (issue 50): its cash is a balance the ledger maintains (ledger/pool-cash.ts), so
 * the community module inserts the pool's row without naming it, and the creator's funding arrives as a transfer.
 */
export class PoolCashByLedger1700000000049 implements MigrationInterface {
  name = 'PoolCashByLedger1700000000049';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE community_pools ALTER COLUMN cash_micro SET DEFAULT 0');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE community_pools ALTER COLUMN cash_micro DROP DEFAULT');
  }
}
