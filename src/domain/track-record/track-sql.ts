import { MICRO } from '../money/micro';
import type { TradeEvent } from '../trading/trade-hooks';
import { challengeForDay, progressDelta, type DailyChallenge } from './challenges';
import { XP_RULES } from './levels';
import { calendarOf } from './periods';
import { isCommunityMarketToken } from './record-rule';

/**
 * Everything a trade, sale or settlement changes in the track record is ONE statement in the trade's own transaction,
 * run by its listener once the trade is written (track-listener.ts), with the rules written out here: for a buy its
 * update of the figures row alone (BUY_ACTIVITY_STATEMENT); for a sale or settlement TRACK_STATEMENT, which also keeps
 * the results row and a settlement's calibration row, and updates the figures row only when the event trades or earns
 * XP. The trader's figures row (track_figures, track-figures.ts) holds the live figures, streak, day, challenge and XP; the
 * boards rank a copy of them, which the trader's process folds in moments later (board-folder.ts). These rules were
 * track_event(), a PL/pgSQL function in migrations 6, 9 and 26, until migration 1700000000078 dropped it; a test runs
 * these statements beside that function's last text on the same states and compares the rows.
 *
 * Parameters (trackStatementFor): $1 user, $2 week, $3 month, $4 day, $5 trades (1 or 0), $6 volume µ$, $7 challenge
 * progress, $8 the market for a distinct-markets challenge, $9 the challenge's target, $10 trade XP, $11 win XP, $12/$13
 * the daily XP caps, $14 whether the figures row changes, $15 whether the results row does, $16 realized PnL µ$,
 * $17 settled (0/1), $18 won (0/1), $19 a close with PnL > 0 (0/1), $20 a profitable sale (0/1), $21 the calibration
 * bucket (null: none), $22 the forecast µ, $23 its squared error.
 */

/** The figures row's track-record assignments for one event (alias `s`): periods, streak, day, challenge, XP, write count. */
const ACTIVITY_SET = `w_trades = CASE WHEN $5::integer = 0 OR $2::date < s.w_bucket THEN s.w_trades WHEN $2::date = s.w_bucket THEN s.w_trades + $5::integer ELSE $5::integer END,
      w_volume = CASE WHEN $5::integer = 0 OR $2::date < s.w_bucket THEN s.w_volume WHEN $2::date = s.w_bucket THEN s.w_volume + $6::bigint ELSE $6::bigint END,
      w_bucket = CASE WHEN $5::integer = 0 THEN s.w_bucket ELSE greatest(s.w_bucket, $2::date) END,
      m_trades = CASE WHEN $5::integer = 0 OR $3::date < s.m_bucket THEN s.m_trades WHEN $3::date = s.m_bucket THEN s.m_trades + $5::integer ELSE $5::integer END,
      m_volume = CASE WHEN $5::integer = 0 OR $3::date < s.m_bucket THEN s.m_volume WHEN $3::date = s.m_bucket THEN s.m_volume + $6::bigint ELSE $6::bigint END,
      m_bucket = CASE WHEN $5::integer = 0 THEN s.m_bucket ELSE greatest(s.m_bucket, $3::date) END,
      a_trades = s.a_trades + $5::integer,
      a_volume = s.a_volume + $6::bigint,
      streak = CASE WHEN $5::integer = 0 OR s.last_trade_day >= $4::date THEN s.streak WHEN s.last_trade_day = $4::date - 1 THEN s.streak + 1 ELSE 1 END,
      last_trade_day = CASE WHEN $5::integer = 0 THEN s.last_trade_day ELSE greatest(s.last_trade_day, $4::date) END,
      yday = CASE WHEN s.day >= $4::date THEN s.yday ELSE s.day END,
      yday_progress = CASE WHEN s.day >= $4::date THEN s.yday_progress ELSE s.progress END,
      day_trades = CASE WHEN s.day >= $4::date THEN s.day_trades ELSE 0 END + $5::integer,
      prev_progress = CASE WHEN s.day >= $4::date THEN s.progress ELSE 0 END,
      progress = CASE WHEN s.day >= $4::date THEN s.progress ELSE 0 END
        + CASE WHEN $8::text IS NOT NULL AND s.day >= $4::date AND (s.progress >= $9::bigint OR $8::text = ANY (s.market_ids)) THEN 0 ELSE $7::bigint END,
      market_ids = CASE WHEN $8::text IS NULL THEN (CASE WHEN s.day >= $4::date THEN s.market_ids ELSE '{}' END)
                        WHEN s.day < $4::date THEN ARRAY[$8::text]
                        WHEN s.progress >= $9::bigint OR $8::text = ANY (s.market_ids) THEN s.market_ids
                        ELSE s.market_ids || $8::text END,
      trade_xp = least($12::integer, CASE WHEN s.day >= $4::date THEN s.trade_xp ELSE 0 END + $10::integer),
      win_xp = least($13::integer, CASE WHEN s.day >= $4::date THEN s.win_xp ELSE 0 END + $11::integer),
      xp_gain = least($12::integer, CASE WHEN s.day >= $4::date THEN s.trade_xp ELSE 0 END + $10::integer) - CASE WHEN s.day >= $4::date THEN s.trade_xp ELSE 0 END
              + least($13::integer, CASE WHEN s.day >= $4::date THEN s.win_xp ELSE 0 END + $11::integer) - CASE WHEN s.day >= $4::date THEN s.win_xp ELSE 0 END,
      xp = s.xp + least($12::integer, CASE WHEN s.day >= $4::date THEN s.trade_xp ELSE 0 END + $10::integer) - CASE WHEN s.day >= $4::date THEN s.trade_xp ELSE 0 END
              + least($13::integer, CASE WHEN s.day >= $4::date THEN s.win_xp ELSE 0 END + $11::integer) - CASE WHEN s.day >= $4::date THEN s.win_xp ELSE 0 END,
      day = greatest(s.day, $4::date),
      track_seq = s.track_seq + 1`;

/** What the figures row's update reads back. */
const ACTIVITY_RETURNING = `s.a_trades AS r_trades, s.streak AS r_streak, s.day_trades AS r_day_trades, s.progress AS r_progress,
    s.prev_progress AS r_prev_progress, s.xp_gain AS r_xp_gain, s.xp AS r_xp, s.track_seq AS r_seq`;

/** A buy's track record: its update of the figures row alone (a buy touches neither the results nor the calibration rows). */
export const BUY_ACTIVITY_STATEMENT = `UPDATE track_figures s SET ${ACTIVITY_SET}
  WHERE s.user_id = $1::uuid
  RETURNING ${ACTIVITY_RETURNING}, NULL::integer AS r_settled, NULL::integer AS r_won, NULL::integer AS r_profitable_sells`;

/** A period's running figure in the results row: a newer bucket restarts it, the same one adds to it, an older one leaves it. */
const period = (col: string, bucket: string, at: string, add: string) =>
  `${col} = CASE WHEN ${at} < s.${bucket} THEN s.${col} WHEN ${at} = s.${bucket} THEN s.${col} + ${add} ELSE ${add} END`;

/**
 * A sale's or settlement's track record: the figures row (when $14), the results row (when $15; its first event creates
 * it, with the account's agent flag) and the calibration bucket (when $21 is set), in one statement. One answer row,
 * null where a row was not written.
 */
export const TRACK_STATEMENT = `WITH a AS (
    UPDATE track_figures s SET ${ACTIVITY_SET}
    WHERE s.user_id = $1::uuid AND $14::boolean
    RETURNING ${ACTIVITY_RETURNING}
  ), r AS (
    INSERT INTO trader_results AS s (user_id, is_agent, w_bucket, w_pnl, w_settled, w_won, m_bucket, m_pnl, m_settled, m_won,
                                     a_pnl, a_settled, a_won, a_closes, a_wins, a_profitable_sells)
    SELECT u.id, u.is_agent, $2::date, $16::bigint, $17::integer, $18::integer, $3::date, $16::bigint, $17::integer, $18::integer,
           $16::bigint, $17::integer, $18::integer, 1, $19::integer, $20::integer
    FROM users u WHERE u.id = $1::uuid AND $15::boolean
    ON CONFLICT (user_id) DO UPDATE SET
      ${period('w_pnl', 'w_bucket', '$2::date', '$16::bigint')},
      ${period('w_settled', 'w_bucket', '$2::date', '$17::integer')},
      ${period('w_won', 'w_bucket', '$2::date', '$18::integer')},
      w_bucket = greatest(s.w_bucket, $2::date),
      ${period('m_pnl', 'm_bucket', '$3::date', '$16::bigint')},
      ${period('m_settled', 'm_bucket', '$3::date', '$17::integer')},
      ${period('m_won', 'm_bucket', '$3::date', '$18::integer')},
      m_bucket = greatest(s.m_bucket, $3::date),
      a_pnl = s.a_pnl + $16::bigint,
      a_settled = s.a_settled + $17::integer,
      a_won = s.a_won + $18::integer,
      a_closes = s.a_closes + 1,
      a_wins = s.a_wins + $19::integer,
      a_profitable_sells = s.a_profitable_sells + $20::integer
    RETURNING s.a_settled, s.a_won, s.a_profitable_sells
  ), c AS (
    INSERT INTO user_calibration AS c (user_id, bucket, n, sum_forecast_micro, wins, sum_sq_error)
    SELECT $1::uuid, $21::smallint, 1, $22::bigint, $18::integer, $23::bigint WHERE $21::smallint IS NOT NULL
    ON CONFLICT (user_id, bucket) DO UPDATE SET n = c.n + 1, sum_forecast_micro = c.sum_forecast_micro + EXCLUDED.sum_forecast_micro,
      wins = c.wins + EXCLUDED.wins, sum_sq_error = c.sum_sq_error + EXCLUDED.sum_sq_error
    RETURNING 1
  )
  SELECT a.r_trades, a.r_streak, a.r_day_trades, a.r_progress, a.r_prev_progress, a.r_xp_gain, a.r_xp, a.r_seq,
    r.a_settled AS r_settled, r.a_won AS r_won, r.a_profitable_sells AS r_profitable_sells, (SELECT count(*) FROM c) AS calibrated
  FROM (SELECT 1) one LEFT JOIN a ON true LEFT JOIN r ON true`;

/** How many of trackStatementFor's parameters (the first ones) BUY_ACTIVITY_STATEMENT takes. */
export const BUY_ACTIVITY_PARAMS = 13;

/** What the statement returns (nulls for the rows the event did not touch). */
export interface TrackRow {
  /** All-time trades, trading streak, today's trades, today's challenge progress before and after, XP earned, XP total. */
  r_trades: number | null;
  r_streak: number | null;
  r_day_trades: number | null;
  r_progress: bigint | null;
  r_prev_progress: bigint | null;
  r_xp_gain: number | null;
  r_xp: number | null;
  /** All-time settled (non-void) positions, winning ones, profitable sales. */
  r_settled: number | null;
  r_won: number | null;
  r_profitable_sells: number | null;
  /** The figures row's writes, this one's included (null: the row was not written). */
  r_seq: bigint | null;
}

/** The calibration bucket (0..9) of a forecast in micro-units: [0, 0.1) → 0 … [0.9, 1] → 9. */
export function calibrationBucket(forecastMicro: bigint): number {
  return Math.min(9, Number((forecastMicro * 10n) / MICRO));
}

/**
 * The per-event definitions (the brute-force recomputation in the tests and the backfill follow them):
 * - volume: dollars bought and sold (settlement payouts are not volume); trades: buys and sells;
 * - pnl: realized PnL of sales and settlements; closes/wins: sales and settlements, and those with PnL > 0;
 * - settled/won: settlements of a market that resolved YES or NO (void is no forecast), and the winning ones;
 * - calibration: a settled position's forecast is its entry price (average price paid) for the side held.
 */
export function trackStatementFor(e: TradeEvent): { sql: string; params: unknown[]; challenge: Readonly<DailyChallenge> } {
  const { day, week, month } = calendarOf(e.at);
  const challenge = challengeForDay(day);
  const trade = e.side !== 'SETTLE';
  const forecast = e.side === 'SETTLE' && typeof e.won === 'boolean';
  // A community market's settlement counts on the accuracy board (once thick enough) but in no forecasting record: no
  // calibration row, so the reputation's entry-price figures and the Well Calibrated badge leave it out (issue 49 item 3).
  const calibrated = forecast && !isCommunityMarketToken(e.tokenId);
  const won = forecast && e.won === true;
  const p = e.entryPriceMicro ?? 0n;
  const err = p - (won ? MICRO : 0n);
  const params: unknown[] = [
    e.userId,
    week,
    month,
    day,
    trade ? 1 : 0,
    (trade ? e.cashMicro : 0n).toString(),
    progressDelta(challenge.type, e).toString(),
    challenge.type === 'distinct_markets' && trade ? e.marketId : null,
    challenge.targetUnits.toString(),
    trade ? XP_RULES.perTrade : 0,
    won ? XP_RULES.perWin : 0,
    XP_RULES.tradeDailyCap,
    XP_RULES.winDailyCap,
    trade || won, // the figures row: trading, or XP earned by a win
    e.side !== 'BUY', // the results row: anything that realizes PnL
    e.realizedPnlMicro.toString(),
    forecast ? 1 : 0,
    won ? 1 : 0,
    e.side !== 'BUY' && e.realizedPnlMicro > 0n ? 1 : 0,
    e.side === 'SELL' && e.realizedPnlMicro > 0n ? 1 : 0,
    calibrated ? calibrationBucket(p) : null,
    p.toString(),
    (err * err).toString(),
  ];
  return { sql: TRACK_STATEMENT, params, challenge };
}
