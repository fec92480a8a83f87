import { MICRO } from '../money/micro';
import type { TradeEvent } from '../trading/trade-hooks';
import { challengeForDay, progressDelta, type DailyChallenge } from './challenges';
import { XP_RULES } from './levels';
import { calendarOf } from './periods';
import { isCommunityMarketToken } from './record-rule';

/**
 * Everything a trade, sale or settlement changes in the track record is ONE statement in the trade's own
 * transaction: a call of track_event() (installed by migration 1700000000006, where its rules are written
 * out), or for a buy its update of the account row alone (BUY_ACTIVITY_STATEMENT, below). A
 * buy updates the trader's account row (their live figures, streak, day, challenge and XP: migration 1700000000026);
 * a sale also its results row; a settlement its results and calibration rows, and the account row only when it earns
 * XP. The boards rank a copy of the live figures, which the trader's process folds in moments later (board-folder.ts).
 */
export const TRACK_EVENT_STATEMENT = `SELECT * FROM track_event($1::uuid, $2::date, $3::date, $4::date, $5::int, $6::bigint, $7::bigint, $8::text, $9::bigint,
  $10::int, $11::int, $12::int, $13::int, $14::boolean, $15::boolean, $16::bigint, $17::int, $18::int, $19::int, $20::int, $21::smallint, $22::bigint, $23::bigint)`;

/**
 * A buy's track record: its update of the account row alone (a buy touches neither the results nor the calibration
 * rows), the same rules as track_event()'s update of that row for a trade, written out here — the track record's own
 * statement, run by its listener once the buy is written (track-listener.ts). Its parameters are track_event()'s first
 * 13 (trackStatementFor's): $1 user, $2 week, $3 month, $4 day, $5 trades (1), $6 volume µ$, $7 challenge progress,
 * $8 the market for a distinct-markets challenge, $9 the challenge's target, $10 trade XP, $11 win XP (0), $12/$13 the
 * daily XP caps. A test runs it beside track_event() on the same states and compares the rows.
 */
export const BUY_ACTIVITY_STATEMENT = `UPDATE users s SET w_trades = CASE WHEN $5::integer = 0 OR $2::date < s.w_bucket THEN s.w_trades WHEN $2::date = s.w_bucket THEN s.w_trades + $5::integer ELSE $5::integer END,
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
      track_seq = s.track_seq + 1
  WHERE s.id = $1::uuid
  RETURNING s.a_trades AS r_trades, s.streak AS r_streak, s.day_trades AS r_day_trades, s.progress AS r_progress, s.prev_progress AS r_prev_progress,
    s.xp_gain AS r_xp_gain, s.xp AS r_xp, s.track_seq AS r_seq, NULL::integer AS r_settled, NULL::integer AS r_won, NULL::integer AS r_profitable_sells`;

/** How many of track_event()'s parameters (trackStatementFor's first ones) BUY_ACTIVITY_STATEMENT takes. */
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
  /** The account row's track-record writes, this one's included (null: the row was not written). */
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
    trade || won, // the account row's track record: trading, or XP earned by a win
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
  return { sql: TRACK_EVENT_STATEMENT, params, challenge };
}
