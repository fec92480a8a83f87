import type { Queryable } from '../../db/database';
import type { TradeEvent } from '../trading/trade-hooks';
import { MICRO } from '../money/micro';
import { notify } from '../notifications/notify';
import { fromMicro } from '../money/micro';
import { awardBadge, notifyLevelUp } from './awards';
import { STREAK_BADGES, TRADE_COUNT_BADGES, WELL_CALIBRATED, type BadgeId } from './badges';
import { BUY_ACTIVITY_PARAMS, BUY_ACTIVITY_STATEMENT, trackStatementFor, type TrackRow } from './track-sql';
import { challengeForDay } from './challenges';
import { calendarOf } from './periods';
import { countsTowardRecord } from './record-rule';

/** Hears whose figures row (track_figures) a trade wrote, and the row's write count as of that write (`track_seq`). */
export type Pending = (userId: string, seq: number) => void;

/**
 * The TradeHooks listener: runs inside every buy's, sale's and settlement's transaction, once the trade is written. One
 * statement maintains every aggregate: TRACK_STATEMENT for a sale or settlement, for a buy its update of the figures row
 * alone (BUY_ACTIVITY_STATEMENT). `pending` hears the traders whose board rows the board
 * folder is to bring up to date. Badges, level-ups and a completed challenge cost a statement each, only on the trade
 * that earns them (thresholds are crossed exactly once because the trader's figures row is locked).
 */
export async function trackTrade(tx: Queryable, e: TradeEvent, pending: Pending = () => {}): Promise<void> {
  if (!countsTowardRecord(e)) return;
  const { sql, params } = trackStatementFor(e);
  // Prepared once per connection: they run in every trade.
  const r =
    e.side === 'BUY'
      ? (await tx.query<TrackRow>(BUY_ACTIVITY_STATEMENT, params.slice(0, BUY_ACTIVITY_PARAMS), 'track_buy'))[0]
      : (await tx.query<TrackRow>(sql, params, 'track_sale_or_settlement'))[0];
  if (r) await consequences(tx, e, r, pending);
}

/** What a trade's track-record row calls for: the board folder hears of it; badges, a level-up, a completed challenge. */
async function consequences(tx: Queryable, e: TradeEvent, r: TrackRow, pending: Pending): Promise<void> {
  // The figures row, which this transaction now holds, has changed: the board folder copies it once this has committed.
  if (r.r_seq !== null && r.r_seq !== undefined) pending(e.userId, Number(r.r_seq));
  const challenge = challengeForDay(calendarOf(e.at).day);

  const badges: BadgeId[] = [];
  if (e.side !== 'SETTLE') {
    for (const [n, badge] of TRADE_COUNT_BADGES) if (r.r_trades === n) badges.push(badge);
    // The streak moves only on the first trade of a day.
    if (r.r_day_trades === 1) for (const [n, badge] of STREAK_BADGES) if (r.r_streak === n) badges.push(badge);
  }
  if (e.side === 'SELL' && e.realizedPnlMicro > 0n && r.r_profitable_sells === 1) badges.push('first_profit');
  if (e.side === 'SETTLE' && e.won === true && r.r_won === 1) badges.push('first_win');
  if (e.side === 'SETTLE' && typeof e.won === 'boolean' && (r.r_settled ?? 0) >= WELL_CALIBRATED.minSettled && (await isWellCalibrated(tx, e.userId))) {
    badges.push('well_calibrated');
  }
  for (const b of badges) await awardBadge(tx, e.userId, b, e.at, pending);

  if (r.r_xp !== null && r.r_xp_gain) await notifyLevelUp(tx, e.userId, r.r_xp - r.r_xp_gain, r.r_xp, e.at);

  if (r.r_progress !== null && r.r_prev_progress !== null && r.r_prev_progress < challenge.targetUnits && r.r_progress >= challenge.targetUnits) {
    const reward = `${challenge.xpReward} XP and ${fromMicro(challenge.cashRewardMicro)} dollars`;
    await notify(tx, {
      userId: e.userId,
      type: 'challenge',
      title: `Daily challenge complete: ${challenge.title}`,
      message: `You completed today's challenge "${challenge.description}" Claim ${reward} with POST /api/challenges {"challengeId":"${challenge.id}"}.`,
      ref: challenge.id,
      at: e.at,
    });
  }
}

/** Expected calibration error over the trader's buckets: Σ (n_b / N) · |observed_b − forecast_b| = Σ |wins_b − forecast_b| / N. */
export async function isWellCalibrated(tx: Queryable, userId: string): Promise<boolean> {
  const rows = await tx.query<{ n: number; sum_forecast_micro: bigint; wins: number }>(
    'SELECT n, sum_forecast_micro, wins FROM user_calibration WHERE user_id = $1',
    [userId],
  );
  let n = 0;
  let gapMicro = 0n;
  for (const b of rows) {
    n += b.n;
    const gap = BigInt(b.wins) * MICRO - b.sum_forecast_micro;
    gapMicro += gap < 0n ? -gap : gap;
  }
  if (n < WELL_CALIBRATED.minSettled) return false;
  return Number(gapMicro) / 1e6 / n <= WELL_CALIBRATED.maxError;
}
