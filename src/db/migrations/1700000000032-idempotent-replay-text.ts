import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A replayed idempotent response is byte-identical to the first (issue 34 item 6): `json` keeps the stored text as
 * written, where `jsonb` reordered its keys (by length, then bytes), so a replay came back with its keys in another order.
 */
export class IdempotentReplayText1700000000032 implements MigrationInterface {
  name = 'IdempotentReplayText1700000000032';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE idempotency_keys ALTER COLUMN response TYPE json USING response::json');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE idempotency_keys ALTER COLUMN response TYPE jsonb USING response::jsonb');
  }
}
