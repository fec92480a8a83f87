import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A person's cash moves off the account row (issue 50 item 4): the ledger account `cash:<user>` keeps its maintained
 * balance and its reservation on a row of its own, `cash_balances`, written only by the ledger (src/domain/ledger), as
 * `pool_balances` keeps a pool's (migration 75). The account module opens the row when it creates the account. The
 * limits are the ones the account row had: neither figure negative, and (NOT VALID, as in migration 28: a row an
 * earlier version left over the line is reported by the audit, not rewritten) no more reserved than held. The account
 * row keeps last_active_at, now written by the account module alone.
 */
export class CashBalances1700000000079 implements MigrationInterface {
  name = 'CashBalances1700000000079';

  async up(q: QueryRunner): Promise<void> {
    // Room in each page for a row's next version, so a trade's update stays on its page (as on users, migration 26).
    await q.query(`
      CREATE TABLE cash_balances (
        user_id uuid PRIMARY KEY REFERENCES users(id),
        balance_micro bigint NOT NULL DEFAULT 0 CONSTRAINT cash_balances_balance_nonnegative CHECK (balance_micro >= 0),
        reserved_micro bigint NOT NULL DEFAULT 0 CONSTRAINT cash_balances_reserved_nonnegative CHECK (reserved_micro >= 0)
      ) WITH (fillfactor = 80)`);
    await q.query('INSERT INTO cash_balances (user_id, balance_micro, reserved_micro) SELECT id, balance_micro, reserved_micro FROM users');
    await q.query('ALTER TABLE cash_balances ADD CONSTRAINT cash_balances_reserved_within_balance CHECK (reserved_micro <= balance_micro) NOT VALID');
    await q.query('ALTER TABLE users DROP COLUMN reserved_micro, DROP COLUMN balance_micro');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN balance_micro bigint NOT NULL DEFAULT 0 CONSTRAINT users_balance_nonnegative CHECK (balance_micro >= 0),
      ADD COLUMN reserved_micro bigint NOT NULL DEFAULT 0 CHECK (reserved_micro >= 0)`);
    await q.query('UPDATE users u SET balance_micro = c.balance_micro, reserved_micro = c.reserved_micro FROM cash_balances c WHERE c.user_id = u.id');
    await q.query('ALTER TABLE users ADD CONSTRAINT users_reserved_within_balance CHECK (reserved_micro <= balance_micro) NOT VALID');
    await q.query('DROP TABLE cash_balances');
  }
}
