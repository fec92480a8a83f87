import type { Queryable } from '../../db/database';
import { notify } from '../notifications/notify';
import { BADGES, type BadgeId } from './badges';
import { levelOf } from './levels';

/**
 * Awards a badge once; when it is new, the account's card gets it (the board folder copies it, `changed`) and a
 * notification is written, with its `notification` event in the account's log (notify). (Lock order as in a trade: the
 * account's rows before notifications.)
 */
export async function awardBadge(
  tx: Queryable,
  userId: string,
  badge: BadgeId,
  at: Date,
  changed: (userId: string, seq: number) => void = () => {},
): Promise<void> {
  const b = BADGES[badge];
  const rows = await tx.query<{ track_seq: bigint }>(
    `WITH earned AS (
       INSERT INTO user_badges (user_id, badge, earned_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING badge
     ), s AS (
       UPDATE track_figures SET track_seq = track_seq + 1, badges = badges || $2::text WHERE user_id = $1 AND EXISTS (SELECT 1 FROM earned) RETURNING track_seq
     )
     SELECT track_seq FROM s`,
    [userId, badge, at],
  );
  // The card's badges are on the trader's figures row, which the board folder copies: a new badge counts as a write of it.
  const seq = rows[0]?.track_seq;
  if (seq === undefined) return;
  changed(userId, Number(seq));
  await notify(tx, { userId, type: 'badge', title: `Badge earned: ${b.icon} ${b.name}`, message: b.description, ref: badge, at });
}

/** Writes a level-up notification when XP moved from `before` into a higher level. */
export async function notifyLevelUp(tx: Queryable, userId: string, before: number, after: number, at: Date): Promise<void> {
  const from = levelOf(before);
  const to = levelOf(after);
  if (to.current <= from.current) return;
  await notify(tx, {
    userId,
    type: 'level_up',
    title: `Level ${to.current}: ${to.title}`,
    message: `You reached level ${to.current} (${to.title}) with ${after} XP.${to.xpToNext ? ` ${to.xpToNext} XP to the next level.` : ' This is the top level.'}`,
    ref: `level-${to.current}`,
    at,
  });
}

/**
 * Adds XP to an account (claims, referrals) and notifies a level-up. The total lives on the trader's figures row
 * (track-figures.ts); the boards show the copy the board folder makes, which `changed` tells whose row changed.
 */
export async function addXp(tx: Queryable, userId: string, xp: number, at: Date, changed: (userId: string, seq: number) => void = () => {}): Promise<number> {
  // One statement (a bare UPDATE would come back from TypeORM as [rows, count]; in a CTE it is a SELECT).
  const rows = await tx.query<{ xp: number; track_seq: bigint }>(
    'WITH u AS (UPDATE track_figures SET xp = xp + $2, track_seq = track_seq + 1 WHERE user_id = $1 RETURNING xp, track_seq) SELECT xp, track_seq FROM u',
    [userId, xp],
  );
  if (rows[0]) changed(userId, Number(rows[0].track_seq));
  const after = rows[0]?.xp ?? 0;
  await notifyLevelUp(tx, userId, after - xp, after, at);
  return after;
}
