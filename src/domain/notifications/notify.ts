import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/database';
import { ACCOUNT_EVENTS_CHANNEL } from '../events/account-events';

export type NotificationType = 'resolution' | 'badge' | 'level_up' | 'challenge' | 'referral' | 'price_alert';

/**
 * Writes a notification, and its `notification` event, in the caller's transaction, in one statement; a repeated `ref`
 * for the same user and type is a no-op and writes no event either (the event exists only when the row was inserted).
 */
const NOTIFY = `WITH n AS (
    INSERT INTO notifications (id, user_id, type, title, message, ref, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (user_id, type, ref) WHERE ref IS NOT NULL DO NOTHING RETURNING id
  ), s AS (UPDATE users SET event_seq = event_seq + 1 WHERE id = $2 AND EXISTS (SELECT 1 FROM n) RETURNING event_seq),
  e AS (INSERT INTO account_events (user_id, seq, type, data, created_at)
        SELECT $2, event_seq, 'notification', jsonb_build_object('id', $1::text, 'kind', $3::text, 'title', $4::text, 'message', $5::text, 'ref', $6::text), $7
        FROM s RETURNING seq)
  SELECT pg_notify('${ACCOUNT_EVENTS_CHANNEL}', $2::text || ':' || seq::text) FROM e`;

export async function notify(
  tx: Queryable,
  n: { userId: string; type: NotificationType; title: string; message: string; ref?: string; at: Date },
): Promise<void> {
  await tx.query(NOTIFY, [randomUUID(), n.userId, n.type, n.title, n.message, n.ref ?? null, n.at], 'notify');
}
