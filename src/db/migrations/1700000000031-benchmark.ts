import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The forecasting benchmark (issue 33). `users.reference` flags the service's own reference forecasters (market, coin
 * flip, favourite): agents with their own audience on the benchmark boards. `benchmark_records` holds each account's
 * scored record per season ('YYYY-MM', the UTC month its markets resolved in, or 'all'): the whole record as JSON (what
 * get_benchmark_record answers) and the figures the boards sort by, so a board is one indexed read. The folder keeps
 * them current: `benchmark_dirty` is the queue of (account, season) to score again, `benchmark_markets` the resolved
 * markets whose accounts it has queued (a market's resolution time comes from its venue and can be in the past when it is
 * mirrored, so no time watermark would do), `benchmark_state` the day it last queued every active account for its risk and the day the reference forecasters
 * last acted.
 */
export class Benchmark1700000000031 implements MigrationInterface {
  name = 'Benchmark1700000000031';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN reference text UNIQUE CHECK (reference IN ('market', 'coin_flip', 'favourite'))`);
    await q.query(`
      CREATE TABLE benchmark_records (
        user_id uuid NOT NULL REFERENCES users(id),
        season text NOT NULL CHECK (season ~ '^(all|[0-9]{4}-(0[1-9]|1[0-2]))$'),
        audience text NOT NULL CHECK (audience IN ('people', 'agents', 'reference')),
        resolved_markets integer NOT NULL CHECK (resolved_markets >= 0),
        alpha double precision,
        brier double precision,
        log_score double precision,
        clv double precision,
        sharpe double precision,
        return double precision,
        max_drawdown double precision,
        record jsonb NOT NULL,
        computed_at timestamptz NOT NULL,
        PRIMARY KEY (season, user_id)
      )`);
    // One index per board, of the ranked rows only (30 is MIN_RESOLVED_MARKETS, which the boards' statements write out as
    // a literal, so the planner matches this predicate), in the board's order (the metric's direction, more resolved
    // markets first, then the account): a board walks its first rows per audience, and the caller's rank counts the rows
    // ahead of theirs from the index alone.
    for (const [metric, dir] of [
      ['alpha', 'DESC'],
      ['brier', 'ASC'],
      ['log_score', 'DESC'],
      ['clv', 'DESC'],
      ['sharpe', 'DESC'],
      ['return', 'DESC'],
      ['max_drawdown', 'ASC'],
    ])
      await q.query(
        `CREATE INDEX benchmark_records_${metric} ON benchmark_records (season, audience, ${metric} ${dir}, resolved_markets DESC, user_id) WHERE ${metric} IS NOT NULL AND resolved_markets >= 30`,
      );
    await q.query(`CREATE INDEX benchmark_records_user ON benchmark_records (user_id)`);
    await q.query(`
      CREATE TABLE benchmark_dirty (
        user_id uuid NOT NULL REFERENCES users(id),
        season text NOT NULL,
        PRIMARY KEY (user_id, season)
      )`);
    await q.query(`
      CREATE TABLE benchmark_markets (
        market_id text PRIMARY KEY,
        queued_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE TABLE benchmark_state (id integer PRIMARY KEY CHECK (id = 1), risk_day date, reference_day date)`);
    await q.query(`INSERT INTO benchmark_state (id) VALUES (1)`);
    // Resolutions find their forecasters by market; no statement reads forecasts by time (lists go by seq), so that index
    // only cost every forecast a write (a forecast on a trade is bounded at 10 % of the trade).
    await q.query('CREATE INDEX forecasts_market ON forecasts (market_id, user_id)');
    await q.query('DROP INDEX forecasts_user_created');
    // The deleted accounts (few), whose rows a caller's rank subtracts from its count.
    await q.query('CREATE INDEX users_deleted ON users (id) WHERE deleted_at IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX users_deleted');
    await q.query('CREATE INDEX forecasts_user_created ON forecasts (user_id, created_at DESC, id DESC)');
    await q.query('DROP INDEX forecasts_market');
    await q.query('DROP TABLE benchmark_state');
    await q.query('DROP TABLE benchmark_markets');
    await q.query('DROP TABLE benchmark_dirty');
    await q.query('DROP TABLE benchmark_records');
    await q.query('ALTER TABLE users DROP COLUMN reference');
  }
}
