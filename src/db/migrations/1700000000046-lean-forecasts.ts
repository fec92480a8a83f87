import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A forecast record costs a trade less to write (issue 33: a forecast adds at most 10 % to a trade). Before, each record
 * wrote four index entries, ran a foreign-key trigger and two regular expressions:
 * - the primary key becomes (user_id, seq), the chain's own order, which was already unique: the random `id` keeps its
 *   place in the record and its hash, but no statement looks a record up by it, so its index (a random page per insert)
 *   goes;
 * - one index by (market_id, user_id, seq DESC) serves both readers that had one each: resolutions and discussions find a
 *   market's forecasters, and an account's current forecast on a market is the first entry of its (market, account) pair;
 * - no foreign key to users: every record is inserted by the statement that updates its account's row (the chain head,
 *   forecast-chain.ts), so the account exists and is locked; accounts are never deleted, only anonymised;
 * - the hashes are checked by length: both are written by PostgreSQL's own sha256 in that statement, always 64 hex digits.
 */
export class LeanForecasts1700000000046 implements MigrationInterface {
  name = 'LeanForecasts1700000000046';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE forecasts
        DROP CONSTRAINT forecasts_pkey,
        DROP CONSTRAINT forecasts_user_id_seq_key,
        DROP CONSTRAINT forecasts_user_id_fkey,
        DROP CONSTRAINT forecasts_hash_check,
        DROP CONSTRAINT forecasts_prev_hash_check,
        ADD PRIMARY KEY (user_id, seq),
        ADD CONSTRAINT forecasts_hash_check CHECK (char_length(hash) = 64),
        ADD CONSTRAINT forecasts_prev_hash_check CHECK (char_length(prev_hash) = 64)`);
    await q.query('DROP INDEX forecasts_user_market');
    await q.query('DROP INDEX forecasts_market');
    await q.query('CREATE INDEX forecasts_market ON forecasts (market_id, user_id, seq DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX forecasts_market');
    await q.query('CREATE INDEX forecasts_market ON forecasts (market_id, user_id)');
    await q.query('CREATE INDEX forecasts_user_market ON forecasts (user_id, market_id, seq DESC)');
    await q.query(`
      ALTER TABLE forecasts
        DROP CONSTRAINT forecasts_prev_hash_check,
        DROP CONSTRAINT forecasts_hash_check,
        DROP CONSTRAINT forecasts_pkey,
        ADD PRIMARY KEY (id),
        ADD CONSTRAINT forecasts_user_id_seq_key UNIQUE (user_id, seq),
        ADD CONSTRAINT forecasts_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id),
        ADD CONSTRAINT forecasts_hash_check CHECK (hash ~ '^[0-9a-f]{64}$'),
        ADD CONSTRAINT forecasts_prev_hash_check CHECK (prev_hash ~ '^[0-9a-f]{64}$')`);
  }
}
