import type { Queryable } from '../../db/database';
import type { TradeEvent } from '../trading/trade-hooks';
import { MICRO } from '../money/micro';
import { notify } from '../notifications/notify';
import { fromMicro } from '../money/micro';
import { awardBadge, notifyLevelUp } from './awards';
import { STREAK_BADGES, TRADE_COUNT_BADGES, WELL_CALIBRATED, type BadgeId } from './badges';
import { BUY_ACTIVITY_PARAMS, BUY_ACTIVITY_STATEMENT, BUY_SAME_DAY_STATEMENT, trackStatementFor, type TrackRow } from './track-sql';

/**
 * The TradeHooks listener: runs inside every buy's, sale's and settlement's transaction. One statement
 * (track_event, or for a buy its activity update alone: the same-day one, most of the time) maintains every aggregate (a trade's trades and volume
 * as pending amounts, which `pending` hands to the board folder); badges, level-ups and a completed challenge cost a statement each, only on
 * the trade that earns them (thresholds are crossed exactly once because the trader's rows are locked).
 */
export async function trackTrade(tx: Queryable, e: TradeEvent, pending: (userId: string) => void = () => {}): Promise<void> {
  const { sql, params, challenge } = trackStatementFor(e);
  // Prepared once per connection: they run in every trade. A buy updates its activity row directly: on a day the
  // trader has traded already, through the same-day statement; else through the full one; only the first buy
  // (no row yet) goes through track_event(), which creates it.
  let r: TrackRow | undefined;
  if (e.side === 'BUY') {
    const buy = params.slice(0, BUY_ACTIVITY_PARAMS);
    r = (await tx.query<TrackRow>(BUY_SAME_DAY_STATEMENT, buy, 'track_buy_same_day'))[0];
    r ??= (await tx.query<TrackRow>(BUY_ACTIVITY_STATEMENT, buy, 'track_buy'))[0];
  }
  r ??= (await tx.query<TrackRow>(sql, params, 'track_event'))[0];
  if (!r) return;
  // The trade's figures wait on its row, which this transaction now holds, for the board folder.
  if (e.side !== 'SETTLE') pending(e.userId);

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
  for (const b of badges) await awardBadge(tx, e.userId, b, e.at);

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
