import { TRACK_EVENT_V4 } from '../../db/migrations/1700000000026-track-on-account';
import { MICRO } from '../money/micro';
import type { TradeEvent } from '../trading/trade-hooks';
import { challengeForDay, progressDelta, type DailyChallenge } from './challenges';
import { XP_RULES } from './levels';
import { calendarOf } from './periods';
import { isCommunityMarketToken } from './record-rule';

/**
 * Everything a trade, sale or settlement changes in the track record is ONE statement in the trade's own
 * transaction: a call of track_event() (installed by migration 1700000000006, where its rules are written
 * out), or for a buy its update of the account row alone, which paper_trade's buys carry in their own statement. A
 * buy updates the trader's account row (their live figures, streak, day, challenge and XP: migration 1700000000026);
 * a sale also its results row; a settlement its results and calibration rows, and the account row only when it earns
 * XP. The boards rank a copy of the live figures, which the trader's process folds in moments later (board-folder.ts).
 */
export const TRACK_EVENT_STATEMENT = `SELECT * FROM track_event($1::uuid, $2::date, $3::date, $4::date, $5::int, $6::bigint, $7::bigint, $8::text, $9::bigint,
  $10::int, $11::int, $12::int, $13::int, $14::boolean, $15::boolean, $16::bigint, $17::int, $18::int, $19::int, $20::int, $21::smallint, $22::bigint, $23::bigint)`;

/** The definition of track_event() the latest migration installed: a buy's update of the account row is cut from it. */
export const TRACK_EVENT_DEFINITION = TRACK_EVENT_V4;

/** What a buy's update of the account row reads back: the figures its badges, level-up and challenge depend on. */
export const BUY_ROW_RETURNING = [
  's.a_trades AS r_trades',
  's.streak AS r_streak',
  's.day_trades AS r_day_trades',
  's.progress AS r_progress',
  's.prev_progress AS r_prev_progress',
  's.xp_gain AS r_xp_gain',
  's.xp AS r_xp',
  's.track_seq AS r_seq',
];

/**
 * A buy's track record as assignments on the account row (alias `s`): the function's own update of that row, its
 * parameters after p_user (p_week .. p_win_cap, the 2nd to the 13th of trackStatementFor's) numbered from `first`.
 * A buy only ever updates that row (the results and calibration rows are a sale's and a settlement's). Cut from the
 * function's text, so the two cannot drift; a test checks that text is the function the database has.
 */
export const BUY_ROW_PARAMS = 12;
const BUY_ROW_SET = ((): ((first: number) => string) => {
  const signature = /FUNCTION track_event\(([^)]*)\)/.exec(TRACK_EVENT_DEFINITION);
  const update =
    /UPDATE users s SET([\s\S]*?)\n\s*WHERE s\.id = p_user\s+RETURNING s\.a_trades, s\.streak, s\.day_trades, s\.progress, s\.prev_progress, s\.xp_gain, s\.xp, s\.track_seq\s/.exec(
      TRACK_EVENT_DEFINITION,
    );
  if (!signature || !update) throw new Error("track_event()'s account-row update is not where the buy's part expects it");
  const declared = signature[1]!.split(',').map((d) => d.trim().split(/\s+/) as [string, string]);
  // Longest names first: p_trade_xp before p_trades.
  const byLength = declared.map(([name, type], i) => ({ name, type, i })).sort((x, y) => y.name.length - x.name.length);
  const set = update[1]!;
  for (const { name, i } of byLength) {
    if (new RegExp(`\\b${name}\\b`).test(set) && (i < 1 || i > BUY_ROW_PARAMS)) throw new Error(`the buy's part would need ${name}`);
  }
  return (first: number) => {
    let out = set;
    for (const { name, type, i } of byLength) out = out.replace(new RegExp(`\\b${name}\\b`, 'g'), `$${first + i - 1}::${type}`);
    return out.trim();
  };
})();

/** The buy's assignments on the account row, its parameters numbered from `first` (BUY_ROW_PARAMS of them). */
export const buyRowSet = BUY_ROW_SET;

/** A buy's track record as a statement of its own, for buys whose statement does not carry it (resting orders, community markets). */
export const BUY_ACTIVITY_STATEMENT = `UPDATE users s SET ${BUY_ROW_SET(2)} WHERE s.id = $1::uuid
    RETURNING ${BUY_ROW_RETURNING.join(', ')}, NULL::integer AS r_settled, NULL::integer AS r_won, NULL::integer AS r_profitable_sells`;

/** How many of track_event()'s parameters (trackStatementFor's first ones) BUY_ACTIVITY_STATEMENT takes. */
export const BUY_ACTIVITY_PARAMS = BUY_ROW_PARAMS + 1;

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
