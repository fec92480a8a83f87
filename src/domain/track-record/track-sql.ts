import { MICRO } from '../money/micro';
import type { TradeEvent } from '../trading/trade-hooks';
import { challengeAt, progressDelta, type DailyChallenge } from './challenges';
import { XP_RULES } from './levels';
import { dayOf, monthStart, weekStart } from './periods';

/**
 * Everything a trade, sale or settlement changes in the track record is ONE statement in the trade's own
 * transaction: a call of track_event() (installed by migration 1700000000006, where its rules are written
 * out; its XP now lives on the activity row alone, migration 1700000000009). A buy updates the trader's
 * activity row; a sale also its results row; a settlement its results and calibration rows, and its activity
 * row only when it earns XP.
 */
export const TRACK_EVENT_STATEMENT = `SELECT * FROM track_event($1::uuid, $2::date, $3::date, $4::date, $5::int, $6::bigint, $7::bigint, $8::text, $9::bigint,
  $10::int, $11::int, $12::int, $13::int, $14::boolean, $15::boolean, $16::bigint, $17::int, $18::int, $19::int, $20::int, $21::smallint, $22::bigint, $23::bigint)`;

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
export function trackStatementFor(e: TradeEvent): { sql: string; params: unknown[]; challenge: DailyChallenge } {
  const challenge = challengeAt(e.at);
  const trade = e.side !== 'SETTLE';
  const forecast = e.side === 'SETTLE' && typeof e.won === 'boolean';
  const won = forecast && e.won === true;
  const p = e.entryPriceMicro ?? 0n;
  const err = p - (won ? MICRO : 0n);
  const params: unknown[] = [
    e.userId,
    weekStart(e.at),
    monthStart(e.at),
    dayOf(e.at),
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
