import type { Database } from '../../db/database';
import type { Logger } from '../../logger';
import { readInputs, type PricePath } from './benchmark-inputs';
import { boardFigures } from './benchmark-record';
import { sharedScorer, type RecordScorer } from './record-scorer';
import { ALL_SEASONS, seasonOf } from './seasons';

/**
 * Every resolved market (mirrored or community) not yet queued: each account that stated a forecast on it or bought in it
 * is queued for the season the market resolved in and for 'all', and the market is marked queued, in one statement.
 * A community market scores nothing (resolved-markets.ts); its traders are queued all the same, which costs one rescoring.
 */
const QUEUE_RESOLVED = `
  WITH m AS (
    SELECT id AS market_id, resolved_at FROM markets mk
    WHERE mk.status = 'resolved' AND mk.resolved_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM benchmark_markets b WHERE b.market_id = mk.id)
    UNION ALL
    SELECT c.id::text, c.resolved_at FROM community_markets c
    WHERE c.status = 'resolved' AND c.resolved_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM benchmark_markets b WHERE b.market_id = c.id::text)
    LIMIT 5000
  ), marked AS (
    INSERT INTO benchmark_markets (market_id, queued_at) SELECT market_id, $1 FROM m ON CONFLICT DO NOTHING RETURNING market_id
  ), who AS (
    SELECT DISTINCT x.user_id, to_char(m.resolved_at AT TIME ZONE 'UTC', 'YYYY-MM') AS season FROM m JOIN (
      SELECT user_id, market_id FROM forecasts WHERE market_id IN (SELECT market_id FROM m)
      UNION SELECT user_id, market_id FROM trades WHERE side = 'BUY' AND market_id IN (SELECT market_id FROM m)
    ) x ON x.market_id = m.market_id
  ), queued AS (
    INSERT INTO benchmark_dirty (user_id, season)
    SELECT user_id, season FROM who UNION SELECT user_id, '${ALL_SEASONS}' FROM who
    ON CONFLICT DO NOTHING RETURNING 1
  )
  SELECT (SELECT count(*)::int FROM marked) AS markets, (SELECT count(*)::int FROM queued) AS queued`;

/**
 * Once a UTC day, every account that has traded or stated a forecast is queued for the current season and 'all': its
 * equity moved, so its risk scores did. The state row says which day was last queued (one process queues a day).
 */
const QUEUE_DAILY = `
  WITH day AS (
    UPDATE benchmark_state SET risk_day = $1::date WHERE id = 1 AND (risk_day IS NULL OR risk_day < $1::date) RETURNING 1
  ), who AS (
    SELECT u.id FROM users u WHERE EXISTS (SELECT 1 FROM day) AND u.deleted_at IS NULL
      AND (EXISTS (SELECT 1 FROM trades t WHERE t.user_id = u.id) OR EXISTS (SELECT 1 FROM forecasts f WHERE f.user_id = u.id))
  )
  INSERT INTO benchmark_dirty (user_id, season)
  SELECT id, $2 FROM who UNION ALL SELECT id, '${ALL_SEASONS}' FROM who
  ON CONFLICT DO NOTHING`;

/** Takes up to $1 queued (account, season) pairs; a pair taken by another process is skipped, not waited for. */
const TAKE = `
  DELETE FROM benchmark_dirty d USING (
    SELECT user_id, season FROM benchmark_dirty ORDER BY user_id, season LIMIT $1 FOR UPDATE SKIP LOCKED
  ) x WHERE d.user_id = x.user_id AND d.season = x.season
  RETURNING d.user_id, d.season`;

const UPSERT = `
  INSERT INTO benchmark_records (user_id, season, audience, resolved_markets, alpha, brier, log_score, clv, sharpe, return, max_drawdown, record, computed_at)
  SELECT u.id, $2, CASE WHEN u.reference IS NOT NULL THEN 'reference' WHEN u.is_agent THEN 'agents' ELSE 'people' END,
    $3, $4, $5, $6, $7, $8, $9, $10, $11, $12
  FROM users u WHERE u.id = $1
  ON CONFLICT (season, user_id) DO UPDATE SET audience = EXCLUDED.audience, resolved_markets = EXCLUDED.resolved_markets,
    alpha = EXCLUDED.alpha, brier = EXCLUDED.brier, log_score = EXCLUDED.log_score, clv = EXCLUDED.clv, sharpe = EXCLUDED.sharpe,
    return = EXCLUDED.return, max_drawdown = EXCLUDED.max_drawdown, record = EXCLUDED.record, computed_at = EXCLUDED.computed_at`;

const BATCH = 100;
/**
 * How long one run scores before it yields (it runs after each sync, in the sync's turn): what is left stays queued for
 * the next run. At scale a day's risk refresh is a queue of every active account, scored over many syncs.
 */
const BUDGET_MS = 10_000;

/**
 * Keeps benchmark_records current: after each market sync the leader queues the accounts of newly resolved markets (and,
 * once a day, every active account for its risk), then scores the queue. Scoring reads an account's own rows only, so a
 * record is recomputed whole from the books, never patched.
 */
export class BenchmarkFolder {
  /** `scored`: called after a batch of records has committed (the benchmark's reads start their caches over). */
  constructor(
    private readonly db: Database,
    private readonly log?: Logger,
    private readonly scored: () => void = () => {},
    /** The venue's own price path, for the timing scores (benchmark-inputs.ts); without it, the mirror's snapshots. */
    private readonly path?: PricePath,
    /** Where records are scored: the process's scoring thread, off the event loop the requests are served on. */
    private readonly score: RecordScorer = sharedScorer().score,
  ) {}

  async runOnce(now: Date, budgetMs = BUDGET_MS): Promise<{ markets: number; scored: number }> {
    const started = Date.now();
    let markets = 0;
    for (;;) {
      const rows = await this.db.query<{ markets: number; queued: number }>(QUEUE_RESOLVED, [now]);
      markets += rows[0]?.markets ?? 0;
      if ((rows[0]?.markets ?? 0) < 5000) break;
    }
    await this.db.query(QUEUE_DAILY, [now.toISOString().slice(0, 10), seasonOf(now)]);
    let scored = 0;
    for (;;) {
      const n = await this.drain(now);
      if (n > 0) this.scored();
      scored += n;
      if (n < BATCH || Date.now() - started > budgetMs) break;
    }
    if (scored > 0) this.log?.debug('benchmark records scored', { markets, scored });
    return { markets, scored };
  }

  /** Queues one account's season to be scored again by the next run (a replay run's end scores its account's books whole). */
  async requeue(userId: string, season: string): Promise<void> {
    await this.db.query('INSERT INTO benchmark_dirty (user_id, season) VALUES ($1, $2) ON CONFLICT DO NOTHING', [userId, season]);
  }

  /** Scores one batch of the queue, each pair in the transaction that took it (a crash leaves it queued). */
  private async drain(now: Date): Promise<number> {
    return this.db.transaction(async (tx) => {
      const taken = await tx.query<{ user_id: string; season: string }>(TAKE, [BATCH]);
      for (const { user_id, season } of taken) {
        const current = season === ALL_SEASONS || season === seasonOf(now);
        const { inputs, othersJson } = await readInputs(tx, user_id, season, current, this.path);
        const record = await this.score(season, inputs, `${user_id}|${season}`, othersJson);
        const f = boardFigures(record);
        await tx.query(UPSERT, [
          user_id,
          season,
          record.resolvedMarkets,
          f.alpha,
          f.brier,
          f.log_score,
          f.clv,
          f.sharpe,
          f.return,
          f.max_drawdown,
          JSON.stringify(record),
          now,
        ]);
      }
      return taken.length;
    });
  }
}
