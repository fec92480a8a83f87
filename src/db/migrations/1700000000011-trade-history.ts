import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * list_trades pages an account's journal by (created_at, id), newest first (src/domain/trading/trade-history.ts):
 * the account's index gains the id, so a page boundary is an index condition even between trades of the same
 * instant. It replaces (user_id, created_at), which served nothing this one does not.
 */
export class TradeHistory1700000000011 implements MigrationInterface {
  name = 'TradeHistory1700000000011';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX trades_user_created_id ON trades (user_id, created_at, id)');
    await q.query('DROP INDEX trades_user_created');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX trades_user_created ON trades (user_id, created_at)');
    await q.query('DROP INDEX trades_user_created_id');
  }
}
