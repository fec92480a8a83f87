import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/database';
import { notify } from '../notifications/notify';
import { ACCOUNT_EVENTS_CHANNEL } from '../events/account-events';
import { BADGES, type BadgeId } from './badges';
import { levelOf } from './levels';

/**
 * Awards a badge once; when it is new, the board card (trader_activity) gets it and a notification is written, with its
 * `notification` event in the account's log. One statement. (Lock order as in a trade: the account's rows before
 * notifications.)
 */
export async function awardBadge(
  tx: Queryable,
  userId: string,
  badge: BadgeId,
  at: Date,
  changed: (userId: string, seq: number) => void = () => {},
): Promise<void> {
  const b = BADGES[badge];
  const rows = await tx.query<{ track_seq: bigint | null }>(
    `WITH earned AS (
       INSERT INTO user_badges (user_id, badge, earned_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING badge
     ), n AS (
       INSERT INTO notifications (id, user_id, type, title, message, ref, created_at)
       SELECT $4, $1, 'badge', $5, $6, $2, $3 FROM earned
       ON CONFLICT (user_id, type, ref) WHERE ref IS NOT NULL DO NOTHING RETURNING id
     ), s AS (
       -- The badge joins the account row's card whenever it is earned; the event log moves only with its notification.
       UPDATE users SET event_seq = event_seq + (SELECT count(*) FROM n), track_seq = track_seq + 1, badges = badges || $2::text
       WHERE id = $1 AND EXISTS (SELECT 1 FROM earned)
       RETURNING event_seq, track_seq
     ),
     e AS (
       INSERT INTO account_events (user_id, seq, type, data, created_at)
       SELECT $1, event_seq, 'notification',
         jsonb_build_object('id', $4::text, 'kind', 'badge', 'title', $5::text, 'message', $6::text, 'ref', $2::text), $3 FROM s
       WHERE EXISTS (SELECT 1 FROM n)
       RETURNING seq
     )
     SELECT (SELECT track_seq FROM s) AS track_seq, (SELECT pg_notify('${ACCOUNT_EVENTS_CHANNEL}', $1::text || ':' || seq::text) FROM e) AS notified`,
    [userId, badge, at, randomUUID(), `Badge earned: ${b.icon} ${b.name}`, b.description],
  );
  // The card's badges are on the account row (migration 1700000000027), which the board folder copies: a new badge
  // counts as a write of it.
  const seq = rows[0]?.track_seq;
  if (seq !== null && seq !== undefined) changed(userId, Number(seq));
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
 * Adds XP to an account (claims, referrals) and notifies a level-up. The total lives on the account row (migration
 * 1700000000026); the boards show the copy the board folder makes, which `changed` tells whose row changed.
 */
export async function addXp(tx: Queryable, userId: string, xp: number, at: Date, changed: (userId: string, seq: number) => void = () => {}): Promise<number> {
  // One statement (a bare UPDATE would come back from TypeORM as [rows, count]; in a CTE it is a SELECT).
  const rows = await tx.query<{ xp: number; track_seq: bigint }>(
    'WITH u AS (UPDATE users SET xp = xp + $2, track_seq = track_seq + 1 WHERE id = $1 RETURNING xp, track_seq) SELECT xp, track_seq FROM u',
    [userId, xp],
  );
  if (rows[0]) changed(userId, Number(rows[0].track_seq));
  const after = rows[0]?.xp ?? 0;
  await notifyLevelUp(tx, userId, after - xp, after, at);
  return after;
}
