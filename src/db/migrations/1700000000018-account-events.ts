import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every account's ordered event log (orders, trades, settlements, notifications, balance changes): the source of
 * truth that SSE resumes from (Last-Event-ID), webhooks deliver and A2A tasks follow. `seq` counts per account from 1
 * without gaps: it is taken from users.event_seq by the transaction that writes the event, which holds the account
 * row until it commits, so an account's events commit in seq order and a reader that has seen seq n has missed none
 * below it.
 */
export class AccountEvents1700000000018 implements MigrationInterface {
  name = 'AccountEvents1700000000018';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN event_seq bigint NOT NULL DEFAULT 0`);
    await q.query(`
      CREATE TABLE account_events (
        user_id uuid NOT NULL REFERENCES users(id),
        seq bigint NOT NULL CHECK (seq > 0),
        type text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, seq)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE account_events');
    await q.query('ALTER TABLE users DROP COLUMN event_seq');
  }
}
