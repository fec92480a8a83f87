import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts and the append-only ledger: balance_micro is a cache of SUM(ledger) the audit verifies. */
export class Accounts1700000000001 implements MigrationInterface {
  name = 'Accounts1700000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        email text NOT NULL,
        password_hash text NOT NULL,
        display_name text NOT NULL,
        is_agent boolean NOT NULL DEFAULT false,
        agent_description text,
        referral_code text NOT NULL UNIQUE,
        referred_by uuid REFERENCES users(id),
        api_key_hash text UNIQUE,
        balance_micro bigint NOT NULL DEFAULT 0 CONSTRAINT users_balance_nonnegative CHECK (balance_micro >= 0),
        xp integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_active_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email))`);
    await q.query(`
      CREATE TABLE ledger_entries (
        id bigserial PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        type text NOT NULL,
        amount_micro bigint NOT NULL,
        ref text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ledger_entries_user_idx ON ledger_entries (user_id, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ledger_entries`);
    await q.query(`DROP TABLE users`);
  }
}
