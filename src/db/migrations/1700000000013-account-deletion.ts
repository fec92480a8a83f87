import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Account deletion (delete_account, src/domain/accounts/account-deletion.ts). The row stays, since the ledger,
 * positions and trades that the audit checks reference it, with its personal data replaced and deleted_at set.
 * A board row's is_agent may now be NULL: a deleted account's aggregate rows keep counting its settlements,
 * but match neither audience (the boards filter is_agent = true / false), so it leaves every leaderboard
 * without its record being rewritten.
 */
export class AccountDeletion1700000000013 implements MigrationInterface {
  name = 'AccountDeletion1700000000013';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE users ADD COLUMN deleted_at timestamptz');
    await q.query('ALTER TABLE trader_activity ALTER COLUMN is_agent DROP NOT NULL');
    await q.query('ALTER TABLE trader_results ALTER COLUMN is_agent DROP NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    // Deleted accounts' rows take their account's kind back (their card already reads "Deleted trader").
    for (const table of ['trader_results', 'trader_activity']) {
      await q.query(`UPDATE ${table} t SET is_agent = u.is_agent FROM users u WHERE u.id = t.user_id AND t.is_agent IS NULL`);
    }
    await q.query('ALTER TABLE trader_results ALTER COLUMN is_agent SET NOT NULL');
    await q.query('ALTER TABLE trader_activity ALTER COLUMN is_agent SET NOT NULL');
    await q.query('ALTER TABLE users DROP COLUMN deleted_at');
  }
}
