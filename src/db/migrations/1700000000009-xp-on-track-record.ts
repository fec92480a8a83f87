import type { MigrationInterface, QueryRunner } from 'typeorm';
import { TRACK_EVENT_FUNCTION as TRACK_EVENT_V1 } from './1700000000006-track-record';

/**
 * track_event() as of this migration: a trader's XP lives on their activity row (trader_activity.xp), and
 * a trade that earns XP no longer writes users.xp as well. That second row update was a quarter of what the
 * track record added to a buy (about 0.025 of 0.11 ms on the leaderboard bench's data), for a copy nothing
 * needs: the boards already read the activity row's XP, and the stats read it (src/domain/track-record).
 * users.xp now holds the XP of an account that has never traded (referrals); the first trade copies it
 * into the new activity row, and from then on every XP writer (trades, wins, claims, referrals: addXp)
 * adds to the activity row only. The rest of the function is the first version's, unchanged.
 */
export const TRACK_EVENT_V2 = `
CREATE OR REPLACE FUNCTION track_event(
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
    RETURNING s.a_trades, s.streak, s.day_trades, s.progress, s.prev_progress, s.xp_gain, s.xp
    INTO r_trades, r_streak, r_day_trades, r_progress, r_prev_progress, r_xp_gain, r_xp;
    IF NOT FOUND AND p_trades > 0 THEN
      -- The trader's first trade: the row starts with the card (name, badges) and the XP (from here on its home) of the account.
      INSERT INTO trader_activity (user_id, is_agent, display_name, xp, badges, w_bucket, w_trades, w_volume, m_bucket, m_trades, m_volume,
                                   a_trades, a_volume, streak, last_trade_day, day, day_trades, progress, market_ids, trade_xp, win_xp, xp_gain)
      SELECT u.id, u.is_agent, u.display_name, u.xp + least(p_trade_cap, p_trade_xp),
             ARRAY(SELECT b.badge FROM user_badges b WHERE b.user_id = u.id ORDER BY b.earned_at, b.badge),
             p_week, p_trades, p_volume, p_month, p_trades, p_volume, p_trades, p_volume, 1, p_day, p_day, p_trades, p_progress,
             CASE WHEN p_market IS NULL THEN '{}'::text[] ELSE ARRAY[p_market] END, least(p_trade_cap, p_trade_xp), 0, least(p_trade_cap, p_trade_xp)
      FROM users u WHERE u.id = p_user
      RETURNING a_trades, streak, day_trades, progress, prev_progress, xp_gain, xp
      INTO r_trades, r_streak, r_day_trades, r_progress, r_prev_progress, r_xp_gain, r_xp;
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

// A plain literal (no quotes inside): it is spliced into COMMENT ON.
const USERS_XP_COMMENT =
  'XP of an account that has not traded yet. Once trader_activity has a row for the account, that row holds its total XP and this column is no longer written.';

export class XpOnTrackRecord1700000000009 implements MigrationInterface {
  name = 'XpOnTrackRecord1700000000009';

  async up(q: QueryRunner): Promise<void> {
    // Until now both copies were written together, so no XP moves.
    await q.query(TRACK_EVENT_V2);
    await q.query(`COMMENT ON COLUMN users.xp IS '${USERS_XP_COMMENT}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    // The first version keeps users.xp as the total: bring it up to date first.
    await q.query('UPDATE users u SET xp = a.xp FROM trader_activity a WHERE a.user_id = u.id AND u.xp <> a.xp');
    await q.query(TRACK_EVENT_V1.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION'));
    await q.query('COMMENT ON COLUMN users.xp IS NULL');
  }
}
