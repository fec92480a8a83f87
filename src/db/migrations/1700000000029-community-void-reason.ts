import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Why a community market was voided (issue 33, item 10): before its end date its creator may only void it, and must say
 * why; the reason is kept with the market and shown on it. Null for markets resolved to an outcome, and for earlier ones.
 */
export class CommunityVoidReason1700000000029 implements MigrationInterface {
  name = 'CommunityVoidReason1700000000029';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE community_markets ADD COLUMN void_reason text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE community_markets DROP COLUMN void_reason');
  }
}
