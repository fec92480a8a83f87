import type { MigrationInterface, QueryRunner } from 'typeorm';
import { TRACK_EVENT_V2 } from './1700000000009-xp-on-track-record';

/**
 * A trade no longer moves the boards' index entries. Six indexes on trader_activity rank its weekly, monthly
 * and all-time trades and volume, so every buy's update of the trader's row changed indexed columns: PostgreSQL
 * wrote a new entry in all seven of the table's indexes (no HOT update), most of what the track record added to
 * a trade. Now a trade adds its trades and volume to unindexed pending twins of those columns (pw_*, pm_*,
 * pa_*), which, with room left in each page (fillfactor), is a heap-only update; the process that made the trade
 * folds the pending amounts into the ranked columns a fraction of a second later, many rows per statement
 * (src/domain/track-record/board-folder.ts). The pending columns follow the ranked ones' own rule (an event of a
 * later period starts it over, an earlier one is ignored), and folding applies that rule once more, so the ranked
 * columns end exactly as if each event had been applied to them directly. Readers that need the count at once
 * (a trade's badges, a trader's stats) add the twins; the boards fold before they read.
 */
const ACTIVITY_UPDATE_V2 =
  / {4}UPDATE trader_activity s SET\n[\s\S]*? {4}INTO r_trades, r_streak, r_day_trades, r_progress, r_prev_progress, r_xp_gain, r_xp;\n/;

const ACTIVITY_UPDATE_V3 = `    UPDATE trader_activity s SET
      pw_trades = CASE WHEN p_trades = 0 OR p_week < s.pw_bucket THEN s.pw_trades WHEN p_week = s.pw_bucket THEN s.pw_trades + p_trades ELSE p_trades END,
      pw_volume = CASE WHEN p_trades = 0 OR p_week < s.pw_bucket THEN s.pw_volume WHEN p_week = s.pw_bucket THEN s.pw_volume + p_volume ELSE p_volume END,
      pw_bucket = CASE WHEN p_trades = 0 THEN s.pw_bucket ELSE greatest(s.pw_bucket, p_week) END,
      pm_trades = CASE WHEN p_trades = 0 OR p_month < s.pm_bucket THEN s.pm_trades WHEN p_month = s.pm_bucket THEN s.pm_trades + p_trades ELSE p_trades END,
      pm_volume = CASE WHEN p_trades = 0 OR p_month < s.pm_bucket THEN s.pm_volume WHEN p_month = s.pm_bucket THEN s.pm_volume + p_volume ELSE p_volume END,
      pm_bucket = CASE WHEN p_trades = 0 THEN s.pm_bucket ELSE greatest(s.pm_bucket, p_month) END,
      pa_trades = s.pa_trades + p_trades,
      pa_volume = s.pa_volume + p_volume,
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
    RETURNING s.a_trades + s.pa_trades, s.streak, s.day_trades, s.progress, s.prev_progress, s.xp_gain, s.xp
    INTO r_trades, r_streak, r_day_trades, r_progress, r_prev_progress, r_xp_gain, r_xp;
`;

if (!ACTIVITY_UPDATE_V2.test(TRACK_EVENT_V2)) throw new Error("track_event() v2's activity update is not where migration 25 expects it");

/** track_event() as of this migration: v2 with the activity row's trades and volume written to their pending twins. */
export const TRACK_EVENT_V3 = TRACK_EVENT_V2.replace(ACTIVITY_UPDATE_V2, ACTIVITY_UPDATE_V3);

/**
 * The fold: the ranked columns take their pending twins under the ranked columns' own rule (a later period starts the
 * period's figures over, an earlier one changes nothing, the same one adds), and the twins start over. The service
 * folds by trader with it (src/domain/track-record/board-folder.ts); going down folds every row.
 */
export const FOLD_PENDING_SET = `
  w_trades = CASE WHEN s.pw_bucket < s.w_bucket THEN s.w_trades WHEN s.pw_bucket = s.w_bucket THEN s.w_trades + s.pw_trades ELSE s.pw_trades END,
  w_volume = CASE WHEN s.pw_bucket < s.w_bucket THEN s.w_volume WHEN s.pw_bucket = s.w_bucket THEN s.w_volume + s.pw_volume ELSE s.pw_volume END,
  w_bucket = greatest(s.w_bucket, s.pw_bucket),
  m_trades = CASE WHEN s.pm_bucket < s.m_bucket THEN s.m_trades WHEN s.pm_bucket = s.m_bucket THEN s.m_trades + s.pm_trades ELSE s.pm_trades END,
  m_volume = CASE WHEN s.pm_bucket < s.m_bucket THEN s.m_volume WHEN s.pm_bucket = s.m_bucket THEN s.m_volume + s.pm_volume ELSE s.pm_volume END,
  m_bucket = greatest(s.m_bucket, s.pm_bucket),
  a_trades = s.a_trades + s.pa_trades,
  a_volume = s.a_volume + s.pa_volume,
  pw_bucket = NULL, pw_trades = 0, pw_volume = 0, pm_bucket = NULL, pm_trades = 0, pm_volume = 0, pa_trades = 0, pa_volume = 0`;

export class BoardFolding1700000000025 implements MigrationInterface {
  name = 'BoardFolding1700000000025';

  async up(q: QueryRunner): Promise<void> {
    // Constant defaults: no rewrite. pa_trades is 0 exactly when nothing is pending (every trade adds at least 1).
    await q.query(`ALTER TABLE trader_activity
      ADD COLUMN pw_bucket date, ADD COLUMN pw_trades integer NOT NULL DEFAULT 0, ADD COLUMN pw_volume bigint NOT NULL DEFAULT 0,
      ADD COLUMN pm_bucket date, ADD COLUMN pm_trades integer NOT NULL DEFAULT 0, ADD COLUMN pm_volume bigint NOT NULL DEFAULT 0,
      ADD COLUMN pa_trades integer NOT NULL DEFAULT 0, ADD COLUMN pa_volume bigint NOT NULL DEFAULT 0`);
    // Room in every page for a row's next version, so an update stays on its page (HOT). Pages written from now on
    // keep it; a full page of older rows moves each row once, on its first update.
    await q.query('ALTER TABLE trader_activity SET (fillfactor = 70)');
    await q.query(TRACK_EVENT_V3);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(TRACK_EVENT_V2);
    await q.query(`UPDATE trader_activity s SET ${FOLD_PENDING_SET} WHERE s.pa_trades <> 0`);
    await q.query('ALTER TABLE trader_activity RESET (fillfactor)');
    await q.query(`ALTER TABLE trader_activity
      DROP COLUMN pw_bucket, DROP COLUMN pw_trades, DROP COLUMN pw_volume, DROP COLUMN pm_bucket, DROP COLUMN pm_trades, DROP COLUMN pm_volume,
      DROP COLUMN pa_trades, DROP COLUMN pa_volume`);
  }
}
