import { TRACK_EVENT_V3 } from '../../db/migrations/1700000000025-board-folding';
import { MICRO } from '../money/micro';
import type { TradeEvent } from '../trading/trade-hooks';
import { challengeForDay, progressDelta, type DailyChallenge } from './challenges';
import { XP_RULES } from './levels';
import { calendarOf } from './periods';

/**
 * Everything a trade, sale or settlement changes in the track record is ONE statement in the trade's own
 * transaction: a call of track_event() (installed by migration 1700000000006, where its rules are written
 * out; its XP now lives on the activity row alone, migration 1700000000009). A buy updates the trader's
 * activity row; a sale also its results row; a settlement its results and calibration rows, and its activity
 * row only when it earns XP. The activity row's trades and volume go to their pending twins, which the
 * trader's process folds into the ranked columns moments later (migration 1700000000025, board-folder.ts).
 */
export const TRACK_EVENT_STATEMENT = `SELECT * FROM track_event($1::uuid, $2::date, $3::date, $4::date, $5::int, $6::bigint, $7::bigint, $8::text, $9::bigint,
  $10::int, $11::int, $12::int, $13::int, $14::boolean, $15::boolean, $16::bigint, $17::int, $18::int, $19::int, $20::int, $21::smallint, $22::bigint, $23::bigint)`;

/** The definition of track_event() the latest migration installed: the buy's statement below is cut from it. */
export const TRACK_EVENT_DEFINITION = TRACK_EVENT_V3;

/**
 * A buy's track record as a plain statement: the function's own UPDATE of the trader's activity row, its
 * p_* parameters turned into $n. A buy only ever updates that row (the results and calibration rows are a
 * sale's and a settlement's), and called through plpgsql the same update cost a third more of a buy
 * (leaderboard bench data: +0.18 against +0.13 ms). No row (the trader's first trade) updated nothing, and
 * the function then inserts it. Cut from the text, so the two cannot drift; a test checks that text is
 * the function the database has.
 */
const BUY_ACTIVITY = ((): { sql: string; params: number } => {
  // The function's parameters, in order, with their types: $1 is the first.
  const signature = /FUNCTION track_event\(([^)]*)\)/.exec(TRACK_EVENT_DEFINITION);
  const update =
    /UPDATE trader_activity s SET([\s\S]*?)WHERE s\.user_id = p_user\s+RETURNING s\.a_trades \+ s\.pa_trades, s\.streak, s\.day_trades, s\.progress, s\.prev_progress, s\.xp_gain, s\.xp\s/.exec(
      TRACK_EVENT_DEFINITION,
    );
  if (!signature || !update) throw new Error("track_event()'s activity update is not where the buy's statement expects it");
  const declared = signature[1]!.split(',').map((d) => d.trim().split(/\s+/) as [string, string]);
  let set = update[1]!;
  let used = 1; // p_user, in the WHERE clause
  // Longest names first: p_trade_xp before p_trades.
  const byLength = declared.map(([name, type], i) => ({ name, ref: `$${i + 1}::${type}`, n: i + 1 })).sort((a, b) => b.name.length - a.name.length);
  for (const { name, ref, n } of byLength) {
    const next = set.replace(new RegExp(`\\b${name}\\b`, 'g'), ref);
    if (next !== set) used = Math.max(used, n);
    set = next;
  }
  const sql = `UPDATE trader_activity s SET${set}WHERE s.user_id = $1::uuid
    RETURNING s.a_trades + s.pa_trades AS r_trades, s.streak AS r_streak, s.day_trades AS r_day_trades, s.progress AS r_progress,
      s.prev_progress AS r_prev_progress, s.xp_gain AS r_xp_gain, s.xp AS r_xp, NULL::integer AS r_settled, NULL::integer AS r_won, NULL::integer AS r_profitable_sells`;
  return { sql, params: used };
})();

export const BUY_ACTIVITY_STATEMENT = BUY_ACTIVITY.sql;

/** How many of track_event()'s parameters (trackStatementFor's first ones) the buy's statement takes. */
export const BUY_ACTIVITY_PARAMS = BUY_ACTIVITY.params;

/**
 * The buy's statement for the common case: a trader's buy on a day they have already traded, in the week and month
 * their pending figures are for (or with none pending). It is BUY_ACTIVITY_STATEMENT with every rule that only a
 * new day or period takes left out (streak, yesterday's figures, the day's start-overs, the buckets), and its WHERE
 * clause holds exactly when those rules would change nothing; otherwise it updates nothing, and the full statement
 * runs after it (once a trader and day). Its parameters are the full statement's. In a raw buy transaction on the
 * leaderboard bench's data it cost the track record 53 µs against the full statement's 80 (2026-11-26); a property
 * test checks it against the full one on any state of the row.
 */
export const BUY_SAME_DAY_STATEMENT = `UPDATE trader_activity s SET
      pw_trades = s.pw_trades + $5::integer, pw_volume = s.pw_volume + $6::bigint, pw_bucket = $2::date,
      pm_trades = s.pm_trades + $5::integer, pm_volume = s.pm_volume + $6::bigint, pm_bucket = $3::date,
      pa_trades = s.pa_trades + $5::integer, pa_volume = s.pa_volume + $6::bigint,
      day_trades = s.day_trades + $5::integer,
      prev_progress = s.progress,
      progress = s.progress + CASE WHEN $8::text IS NOT NULL AND (s.progress >= $9::bigint OR $8::text = ANY (s.market_ids)) THEN 0 ELSE $7::bigint END,
      market_ids = CASE WHEN $8::text IS NULL OR s.progress >= $9::bigint OR $8::text = ANY (s.market_ids) THEN s.market_ids ELSE s.market_ids || $8::text END,
      trade_xp = least($12::integer, s.trade_xp + $10::integer),
      win_xp = least($13::integer, s.win_xp + $11::integer),
      xp_gain = least($12::integer, s.trade_xp + $10::integer) - s.trade_xp + least($13::integer, s.win_xp + $11::integer) - s.win_xp,
      xp = s.xp + least($12::integer, s.trade_xp + $10::integer) - s.trade_xp + least($13::integer, s.win_xp + $11::integer) - s.win_xp
    WHERE s.user_id = $1::uuid AND $5::integer > 0 AND s.day = $4::date AND s.last_trade_day = $4::date
      AND (s.pw_bucket = $2::date OR (s.pw_bucket IS NULL AND s.pw_trades = 0 AND s.pw_volume = 0))
      AND (s.pm_bucket = $3::date OR (s.pm_bucket IS NULL AND s.pm_trades = 0 AND s.pm_volume = 0))
    RETURNING s.a_trades + s.pa_trades AS r_trades, s.streak AS r_streak, s.day_trades AS r_day_trades, s.progress AS r_progress,
      s.prev_progress AS r_prev_progress, s.xp_gain AS r_xp_gain, s.xp AS r_xp, NULL::integer AS r_settled, NULL::integer AS r_won, NULL::integer AS r_profitable_sells`;

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
    trade || won, // the activity row: trading, or XP earned by a win
    e.side !== 'BUY', // the results row: anything that realizes PnL
    e.realizedPnlMicro.toString(),
    forecast ? 1 : 0,
    won ? 1 : 0,
    e.side !== 'BUY' && e.realizedPnlMicro > 0n ? 1 : 0,
    e.side === 'SELL' && e.realizedPnlMicro > 0n ? 1 : 0,
    forecast ? calibrationBucket(p) : null,
    p.toString(),
    (err * err).toString(),
  ];
  return { sql: TRACK_EVENT_STATEMENT, params, challenge };
}
