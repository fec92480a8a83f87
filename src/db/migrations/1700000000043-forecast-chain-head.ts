import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An account's forecast chain head (issue 33) kept on its account row: the last record's seq and hash, and the hash
 * before it. Every forecast advances them in the statement that writes the record (forecast-chain.ts), so a forecast
 * carried by a buy rides in the buy's own statement, on the row the buy updates anyway: one statement where a second
 * one cost a third of a trade's throughput. The row lock orders an account's records; the head read from the locked row
 * is the latest even when the statement waited for it (a read of the forecasts table would use the older snapshot).
 */
export class ForecastChainHead1700000000043 implements MigrationInterface {
  name = 'ForecastChainHead1700000000043';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE users
        ADD COLUMN forecast_seq integer NOT NULL DEFAULT 0,
        ADD COLUMN forecast_head text,
        ADD COLUMN forecast_prev_hash text`);
    await q.query(`
      UPDATE users u SET forecast_seq = f.seq, forecast_head = f.hash, forecast_prev_hash = f.prev_hash
      FROM (SELECT DISTINCT ON (user_id) user_id, seq, hash, prev_hash FROM forecasts ORDER BY user_id, seq DESC) f
      WHERE f.user_id = u.id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE users DROP COLUMN forecast_prev_hash, DROP COLUMN forecast_head, DROP COLUMN forecast_seq');
  }
}
