import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An in-flight idempotency claim names who holds it: `claim_id` (one request's claim, so only that request
 * can complete or release it) and `lease` (the claiming process's lease, src/domain/idempotency/claim-lease.ts).
 * A claim whose lease is gone belongs to a request that died with its process: a retry takes it over at once
 * instead of waiting for it to age out. Rows from before have neither and age out as they did.
 */
export class IdempotencyLeases1700000000012 implements MigrationInterface {
  name = 'IdempotencyLeases1700000000012';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_keys ADD COLUMN claim_id uuid, ADD COLUMN lease integer`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_keys DROP COLUMN claim_id, DROP COLUMN lease`);
  }
}
