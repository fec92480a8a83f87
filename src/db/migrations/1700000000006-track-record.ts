import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Week, month and day of a trade (UTC), as the listener computes them. */
const WEEK = `date_trunc('week', created_at AT TIME ZONE 'UTC')::date`;
const MONTH = `date_trunc('month', created_at AT TIME ZONE 'UTC')::date`;

/**
 * Recomputes the track-record aggregates from the trade journal, set-based, as the trade listener
 * (src/domain/track-record/track-sql.ts) would have left them: each period's columns hold the trader's
 * latest bucket of that period. A settlement's price_micro is its payout per share (1 won, 0 lost, 0.5
 * void) and its entry price is (payout − realized PnL) / quantity. The migration runs it once, so trades
 * made before it count; the leaderboard benchmark runs it after generating its trades. The day state
 * (today's challenge progress and XP caps) is not rebuilt: it starts with the next trade.
 */
export const TRACK_RECORD_BACKFILL: readonly string[] = [
  `INSERT INTO trader_activity (user_id, is_agent, display_name, xp, w_bucket, w_trades, w_volume, m_bucket, m_trades, m_volume, a_trades, a_volume)
   SELECT e.user_id, u.is_agent, u.display_name, u.xp, l.w, count(*) FILTER (WHERE e.w = l.w), coalesce(sum(e.v) FILTER (WHERE e.w = l.w), 0),
          l.m, count(*) FILTER (WHERE e.m = l.m), coalesce(sum(e.v) FILTER (WHERE e.m = l.m), 0), count(*), sum(e.v)
   FROM (SELECT user_id, ${WEEK} AS w, ${MONTH} AS m, abs(cash_micro) AS v FROM trades WHERE side <> 'SETTLE') e
   JOIN (SELECT user_id, max(${WEEK}) AS w, max(${MONTH}) AS m FROM trades WHERE side <> 'SETTLE' GROUP BY user_id) l USING (user_id)
   JOIN users u ON u.id = e.user_id
   GROUP BY e.user_id, u.is_agent, u.display_name, u.xp, l.w, l.m`,
  // The trading streak: the run of consecutive trading days ending on the last one.
  `UPDATE trader_activity s SET last_trade_day = x.last_day, streak = x.len
   FROM (
     SELECT DISTINCT ON (user_id) user_id, max(day) AS last_day, count(*)::int AS len
     FROM (
       SELECT user_id, day, day - (row_number() OVER (PARTITION BY user_id ORDER BY day))::int AS grp
       FROM (SELECT DISTINCT user_id, (created_at AT TIME ZONE 'UTC')::date AS day FROM trades WHERE side <> 'SETTLE') d
     ) g
     GROUP BY user_id, grp
     ORDER BY user_id, max(day) DESC
   ) x
   WHERE s.user_id = x.user_id`,
  `INSERT INTO trader_results (user_id, is_agent, w_bucket, w_pnl, w_settled, w_won, m_bucket, m_pnl, m_settled, m_won,
                               a_pnl, a_settled, a_won, a_closes, a_wins, a_profitable_sells)
   SELECT e.user_id, u.is_agent,
          l.w, coalesce(sum(e.pnl) FILTER (WHERE e.w = l.w), 0), count(*) FILTER (WHERE e.w = l.w AND e.settled), count(*) FILTER (WHERE e.w = l.w AND e.won),
          l.m, coalesce(sum(e.pnl) FILTER (WHERE e.m = l.m), 0), count(*) FILTER (WHERE e.m = l.m AND e.settled), count(*) FILTER (WHERE e.m = l.m AND e.won),
          sum(e.pnl), count(*) FILTER (WHERE e.settled), count(*) FILTER (WHERE e.won), count(*), count(*) FILTER (WHERE e.pnl > 0),
          count(*) FILTER (WHERE e.side = 'SELL' AND e.pnl > 0)
   FROM (SELECT user_id, side, ${WEEK} AS w, ${MONTH} AS m, realized_pnl_micro AS pnl,
                side = 'SETTLE' AND price_micro IN (0, 1000000) AS settled, side = 'SETTLE' AND price_micro = 1000000 AS won
         FROM trades WHERE side <> 'BUY') e
   JOIN (SELECT user_id, max(${WEEK}) AS w, max(${MONTH}) AS m FROM trades WHERE side <> 'BUY' GROUP BY user_id) l USING (user_id)
   JOIN users u ON u.id = e.user_id
   GROUP BY e.user_id, u.is_agent, l.w, l.m`,
  `INSERT INTO user_calibration (user_id, bucket, n, sum_forecast_micro, wins, sum_sq_error)
   SELECT user_id, least(9, f * 10 / 1000000)::smallint, count(*)::int, sum(f)::bigint, sum(o)::int, sum((f - o * 1000000) * (f - o * 1000000))::bigint
   FROM (
     SELECT user_id, ((cash_micro - realized_pnl_micro) * 1000000 / quantity_micro) AS f, (price_micro = 1000000)::int AS o
     FROM trades WHERE side = 'SETTLE' AND price_micro IN (0, 1000000) AND quantity_micro > 0
   ) s
   GROUP BY 1, 2`,
  `INSERT INTO user_badges (user_id, badge, earned_at)
   SELECT user_id, badge, now() FROM (
     SELECT user_id, 'first_trade' AS badge FROM trader_activity WHERE a_trades >= 1
     UNION ALL SELECT user_id, 'trades_10' FROM trader_activity WHERE a_trades >= 10
     UNION ALL SELECT user_id, 'trades_100' FROM trader_activity WHERE a_trades >= 100
     UNION ALL SELECT user_id, 'first_profit' FROM trader_results WHERE a_profitable_sells >= 1
     UNION ALL SELECT user_id, 'first_win' FROM trader_results WHERE a_won >= 1
   ) b
   ON CONFLICT DO NOTHING`,
  `UPDATE trader_activity s SET badges = b.badges FROM (SELECT user_id, array_agg(badge ORDER BY earned_at, badge) AS badges FROM user_badges GROUP BY user_id) b WHERE b.user_id = s.user_id`,
];

/**
 * What a board row shows of its trader, kept on the activity row (rewritten by every trade anyway) so a
 * board never reads users or user_badges: the display name (fixed at registration), XP (moved by every
 * XP writer in the same statement as users.xp) and badges (appended by the badge writer with user_badges).
 * Every trader with results has an activity row (a sale or settlement follows a buy).
 */
const CARD = `display_name text NOT NULL, xp integer NOT NULL DEFAULT 0, badges text[] NOT NULL DEFAULT '{}'`;

/**
 * The trade listener's one statement (src/domain/track-record/track-sql.ts calls it inside every buy's,
 * sale's and settlement's transaction). A function so its plans are prepared once per connection, and so
 * the common case is one UPDATE of the trader's activity row: the account is read only when that row is
 * created. A period's columns hold the trader's latest bucket: an event in a newer bucket restarts them,
 * one in the same bucket adds to them, one from an older bucket leaves them alone (no board serves that
 * period any more). Today's state (challenge progress, XP under the daily caps) restarts on a new UTC day;
 * yesterday's progress is kept for a late claim. Returns what the follow-ups (badges, level-ups, a completed
 * challenge) need. Callers hold the account row lock (the trade locked it first), so one trader's events
 * never interleave.
 */
export const TRACK_EVENT_FUNCTION = `
CREATE FUNCTION track_event(
  p_user uuid, p_week date, p_month date, p_day date,
  p_trades integer, p_volume bigint,
  p_progress bigint, p_market text, p_target bigint,
  p_trade_xp integer, p_win_xp integer, p_trade_cap integer, p_win_cap integer,
  p_activity boolean, p_results boolean,
  p_pnl bigint, p_settled integer, p_won integer, p_wins integer, p_profitable integer,
  p_cal_bucket smallint, p_forecast bigint, p_sq_error bigint
) RETURNS TABLE (
  r_trades integer, r_streak integer, r_day_trades integer, r_progress bigint, r_prev_progress bigint, r_xp_gain integer, r_xp integer,
  r_settled integer, r_won integer, r_profitable_sells integer
) LANGUAGE plpgsql AS $fn$
BEGIN
  IF p_activity THEN
    UPDATE trader_activity s SET
      w_trades = CASE WHEN p_trades = 0 OR p_week < s.w_bucket THEN s.w_trades WHEN p_week = s.w_bucket THEN s.w_trades + p_trades ELSE p_trades END,
      w_volume = CASE WHEN p_trades = 0 OR p_week < s.w_bucket THEN s.w_volume WHEN p_week = s.w_bucket THEN s.w_volume + p_volume ELSE p_volume END,
      w_bucket = CASE WHEN p_trades = 0 THEN s.w_bucket ELSE greatest(s.w_bucket, p_week) END,
      m_trades = CASE WHEN p_trades = 0 OR p_month < s.m_bucket THEN s.m_trades WHEN p_month = s.m_bucket THEN s.m_trades + p_trades ELSE p_trades END,
      m_volume = CASE WHEN p_trades = 0 OR p_month < s.m_bucket THEN s.m_volume WHEN p_month = s.m_bucket THEN s.m_volume + p_volume ELSE p_volume END,
      m_bucket = CASE WHEN p_trades = 0 THEN s.m_bucket ELSE greatest(s.m_bucket, p_month) END,
      a_trades = s.a_trades + p_trades,
      a_volume = s.a_volume + p_volume,
      streak = CASE WHEN p_trades = 0 OR s.last_trade_day >= p_day THEN s.streak WHEN s.last_trade_day = p_day - 1 THEN s.streak + 1 ELSE 1 END,
      last_trade_day = CASE WHEN p_trades = 0 THEN s.last_trade_day ELSE greatest(s.last_trade_day, p_day) END,
      yday = CASE WHEN s.day >= p_day THEN s.yday ELSE s.day END,
      yday_progress = CASE WHEN s.day >= p_day THEN s.yday_progress ELSE s.progress END,
      day_trades = CASE WHEN s.day >= p_day THEN s.day_trades ELSE 0 END + p_trades,
      prev_progress = CASE WHEN s.day >= p_day THEN s.progress ELSE 0 END,
      progress = CASE WHEN s.day >= p_day THEN s.progress ELSE 0 END
        + CASE WHEN p_market IS NOT NULL AND s.day >= p_day AND (s.progress >= p_target OR p_market = ANY (s.market_ids)) THEN 0 ELSE p_progress END,
      market_ids = CASE WHEN p_market IS NULL THEN (CASE WHEN s.day >= p_day THEN s.market_ids ELSE '{}' END)
                        WHEN s.day < p_day THEN ARRAY[p_market]
                        WHEN s.progress >= p_target OR p_market = ANY (s.market_ids) THEN s.market_ids
                        ELSE s.market_ids || p_market END,
      trade_xp = least(p_trade_cap, CASE WHEN s.day >= p_day THEN s.trade_xp ELSE 0 END + p_trade_xp),
      win_xp = least(p_win_cap, CASE WHEN s.day >= p_day THEN s.win_xp ELSE 0 END + p_win_xp),
      xp_gain = least(p_trade_cap, CASE WHEN s.day >= p_day THEN s.trade_xp ELSE 0 END + p_trade_xp) - CASE WHEN s.day >= p_day THEN s.trade_xp ELSE 0 END
              + least(p_win_cap, CASE WHEN s.day >= p_day THEN s.win_xp ELSE 0 END + p_win_xp) - CASE WHEN s.day >= p_day THEN s.win_xp ELSE 0 END,
      xp = s.xp + least(p_trade_cap, CASE WHEN s.day >= p_day THEN s.trade_xp ELSE 0 END + p_trade_xp) - CASE WHEN s.day >= p_day THEN s.trade_xp ELSE 0 END
              + least(p_win_cap, CASE WHEN s.day >= p_day THEN s.win_xp ELSE 0 END + p_win_xp) - CASE WHEN s.day >= p_day THEN s.win_xp ELSE 0 END,
      day = greatest(s.day, p_day)
    WHERE s.user_id = p_user
    RETURNING s.a_trades, s.streak, s.day_trades, s.progress, s.prev_progress, s.xp_gain
    INTO r_trades, r_streak, r_day_trades, r_progress, r_prev_progress, r_xp_gain;
    IF NOT FOUND AND p_trades > 0 THEN
      -- The trader's first trade: the row starts with the card (name, XP, badges) of the account.
      INSERT INTO trader_activity (user_id, is_agent, display_name, xp, badges, w_bucket, w_trades, w_volume, m_bucket, m_trades, m_volume,
                                   a_trades, a_volume, streak, last_trade_day, day, day_trades, progress, market_ids, trade_xp, win_xp, xp_gain)
      SELECT u.id, u.is_agent, u.display_name, u.xp + least(p_trade_cap, p_trade_xp),
             ARRAY(SELECT b.badge FROM user_badges b WHERE b.user_id = u.id ORDER BY b.earned_at, b.badge),
             p_week, p_trades, p_volume, p_month, p_trades, p_volume, p_trades, p_volume, 1, p_day, p_day, p_trades, p_progress,
             CASE WHEN p_market IS NULL THEN '{}'::text[] ELSE ARRAY[p_market] END, least(p_trade_cap, p_trade_xp), 0, least(p_trade_cap, p_trade_xp)
      FROM users u WHERE u.id = p_user
      RETURNING a_trades, streak, day_trades, progress, prev_progress, xp_gain
      INTO r_trades, r_streak, r_day_trades, r_progress, r_prev_progress, r_xp_gain;
    END IF;
    IF r_xp_gain > 0 THEN
      UPDATE users u SET xp = u.xp + r_xp_gain WHERE u.id = p_user RETURNING u.xp INTO r_xp;
    END IF;
  END IF;
  IF p_results THEN
    UPDATE trader_results s SET
      w_pnl = CASE WHEN p_week < s.w_bucket THEN s.w_pnl WHEN p_week = s.w_bucket THEN s.w_pnl + p_pnl ELSE p_pnl END,
      w_settled = CASE WHEN p_week < s.w_bucket THEN s.w_settled WHEN p_week = s.w_bucket THEN s.w_settled + p_settled ELSE p_settled END,
      w_won = CASE WHEN p_week < s.w_bucket THEN s.w_won WHEN p_week = s.w_bucket THEN s.w_won + p_won ELSE p_won END,
      w_bucket = greatest(s.w_bucket, p_week),
      m_pnl = CASE WHEN p_month < s.m_bucket THEN s.m_pnl WHEN p_month = s.m_bucket THEN s.m_pnl + p_pnl ELSE p_pnl END,
      m_settled = CASE WHEN p_month < s.m_bucket THEN s.m_settled WHEN p_month = s.m_bucket THEN s.m_settled + p_settled ELSE p_settled END,
      m_won = CASE WHEN p_month < s.m_bucket THEN s.m_won WHEN p_month = s.m_bucket THEN s.m_won + p_won ELSE p_won END,
      m_bucket = greatest(s.m_bucket, p_month),
      a_pnl = s.a_pnl + p_pnl,
      a_settled = s.a_settled + p_settled,
      a_won = s.a_won + p_won,
      a_closes = s.a_closes + 1,
      a_wins = s.a_wins + p_wins,
      a_profitable_sells = s.a_profitable_sells + p_profitable
    WHERE s.user_id = p_user
    RETURNING s.a_settled, s.a_won, s.a_profitable_sells INTO r_settled, r_won, r_profitable_sells;
    IF NOT FOUND THEN
      INSERT INTO trader_results (user_id, is_agent, w_bucket, w_pnl, w_settled, w_won, m_bucket, m_pnl, m_settled, m_won,
                                  a_pnl, a_settled, a_won, a_closes, a_wins, a_profitable_sells)
      SELECT u.id, u.is_agent, p_week, p_pnl, p_settled, p_won, p_month, p_pnl, p_settled, p_won, p_pnl, p_settled, p_won, 1, p_wins, p_profitable
      FROM users u WHERE u.id = p_user
      RETURNING a_settled, a_won, a_profitable_sells INTO r_settled, r_won, r_profitable_sells;
    END IF;
  END IF;
  IF p_cal_bucket IS NOT NULL THEN
    INSERT INTO user_calibration AS c (user_id, bucket, n, sum_forecast_micro, wins, sum_sq_error)
    VALUES (p_user, p_cal_bucket, 1, p_forecast, p_won, p_sq_error)
    ON CONFLICT (user_id, bucket) DO UPDATE SET n = c.n + 1, sum_forecast_micro = c.sum_forecast_micro + EXCLUDED.sum_forecast_micro,
      wins = c.wins + EXCLUDED.wins, sum_sq_error = c.sum_sq_error + EXCLUDED.sum_sq_error;
  END IF;
  RETURN NEXT;
END
$fn$`;

/** Accuracy in parts per million, floored, and only from 5 settled positions (MIN_SETTLED_FOR_ACCURACY). */
const accuracy = (p: string) =>
  `${p}_accuracy integer GENERATED ALWAYS AS (CASE WHEN ${p}_settled >= 5 THEN (${p}_won::bigint * 1000000 / ${p}_settled)::integer END) STORED`;

/**
 * The track record, maintained inside the trades' own transactions (src/domain/track-record). One row per
 * trader and kind, holding the current bucket of each period (weekly: Monday UTC; monthly: the 1st UTC;
 * alltime): a period's columns count only while their bucket is the current one, so a new week starts
 * empty without touching any row. Every (period, metric) has an index led by (bucket, is_agent), so a board
 * is an index walk.
 * - trader_activity (buys and sells): trades and volume, the trading streak, and today's challenge progress
 *   and XP (with yesterday's progress, claimable for a day). A buy touches only this row.
 * - trader_results (sales and settlements): realized PnL, settled and won positions, closes and wins.
 * - user_calibration: per trader × entry-price decile, settled positions, wins, Σ forecast, Σ squared error.
 * - user_badges, challenge_claims (the unique key makes a claim pay once).
 */
export class TrackRecord1700000000006 implements MigrationInterface {
  name = 'TrackRecord1700000000006';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE trader_activity (
        user_id uuid PRIMARY KEY REFERENCES users(id),
        is_agent boolean NOT NULL,
        ${CARD},
        w_bucket date,
        w_trades integer NOT NULL DEFAULT 0,
        w_volume bigint NOT NULL DEFAULT 0,
        m_bucket date,
        m_trades integer NOT NULL DEFAULT 0,
        m_volume bigint NOT NULL DEFAULT 0,
        a_trades integer NOT NULL DEFAULT 0,
        a_volume bigint NOT NULL DEFAULT 0,
        streak integer NOT NULL DEFAULT 0,
        last_trade_day date,
        day date,
        day_trades integer NOT NULL DEFAULT 0,
        progress bigint NOT NULL DEFAULT 0,
        prev_progress bigint NOT NULL DEFAULT 0,
        market_ids text[] NOT NULL DEFAULT '{}',
        trade_xp integer NOT NULL DEFAULT 0,
        win_xp integer NOT NULL DEFAULT 0,
        xp_gain integer NOT NULL DEFAULT 0,
        yday date,
        yday_progress bigint NOT NULL DEFAULT 0
      ) WITH (fillfactor = 85)`);
    await q.query(`
      CREATE TABLE trader_results (
        user_id uuid PRIMARY KEY REFERENCES users(id),
        is_agent boolean NOT NULL,
        w_bucket date NOT NULL,
        w_pnl bigint NOT NULL DEFAULT 0,
        w_settled integer NOT NULL DEFAULT 0,
        w_won integer NOT NULL DEFAULT 0,
        ${accuracy('w')},
        m_bucket date NOT NULL,
        m_pnl bigint NOT NULL DEFAULT 0,
        m_settled integer NOT NULL DEFAULT 0,
        m_won integer NOT NULL DEFAULT 0,
        ${accuracy('m')},
        a_pnl bigint NOT NULL DEFAULT 0,
        a_settled integer NOT NULL DEFAULT 0,
        a_won integer NOT NULL DEFAULT 0,
        ${accuracy('a')},
        a_closes integer NOT NULL DEFAULT 0,
        a_wins integer NOT NULL DEFAULT 0,
        a_profitable_sells integer NOT NULL DEFAULT 0
      ) WITH (fillfactor = 85)`);
    for (const [table, col] of [
      ['trader_activity', 'trades'],
      ['trader_activity', 'volume'],
      ['trader_results', 'pnl'],
    ]) {
      for (const p of ['w', 'm']) await q.query(`CREATE INDEX ${table}_${p}_${col} ON ${table} (${p}_bucket, is_agent, ${p}_${col} DESC, user_id)`);
      await q.query(`CREATE INDEX ${table}_a_${col} ON ${table} (is_agent, a_${col} DESC, user_id)`);
    }
    for (const p of ['w', 'm']) {
      await q.query(
        `CREATE INDEX trader_results_${p}_accuracy ON trader_results (${p}_bucket, is_agent, ${p}_accuracy DESC, user_id) WHERE ${p}_accuracy IS NOT NULL`,
      );
    }
    await q.query(`CREATE INDEX trader_results_a_accuracy ON trader_results (is_agent, a_accuracy DESC, user_id) WHERE a_accuracy IS NOT NULL`);
    await q.query(`
      CREATE TABLE user_calibration (
        user_id uuid NOT NULL REFERENCES users(id),
        bucket smallint NOT NULL CHECK (bucket BETWEEN 0 AND 9),
        n integer NOT NULL,
        sum_forecast_micro bigint NOT NULL,
        wins integer NOT NULL,
        sum_sq_error bigint NOT NULL,
        PRIMARY KEY (user_id, bucket)
      )`);
    await q.query(`
      CREATE TABLE user_badges (
        user_id uuid NOT NULL REFERENCES users(id),
        badge text NOT NULL,
        earned_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, badge)
      )`);
    await q.query(`
      CREATE TABLE challenge_claims (
        user_id uuid NOT NULL REFERENCES users(id),
        challenge_id text NOT NULL,
        day date NOT NULL,
        cash_micro bigint NOT NULL,
        xp integer NOT NULL,
        claimed_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, challenge_id)
      )`);
    await q.query(TRACK_EVENT_FUNCTION);
    // A trader's recent settlements (reputation) without walking their buys and sells.
    await q.query(`CREATE INDEX trades_settled_by_user ON trades (user_id, created_at DESC) WHERE side = 'SETTLE'`);
    for (const sql of TRACK_RECORD_BACKFILL) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION track_event');
    await q.query('DROP INDEX trades_settled_by_user');
    for (const t of ['challenge_claims', 'user_badges', 'user_calibration', 'trader_results', 'trader_activity']) await q.query(`DROP TABLE ${t}`);
  }
}
