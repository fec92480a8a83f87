import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/database';
import { appendEvent } from '../events/account-events';

export type NotificationType = 'resolution' | 'badge' | 'level_up' | 'challenge' | 'referral' | 'price_alert';

/** The one statement that writes a notification; a repeated `ref` for the same user and type inserts nothing. */
const INSERT_NOTIFICATION = `WITH n AS (
    INSERT INTO notifications (id, user_id, type, title, message, ref, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (user_id, type, ref) WHERE ref IS NOT NULL DO NOTHING RETURNING id
  ) SELECT id FROM n`;

/**
 * Writes a notification, and its `notification` event (through the event log), in the caller's transaction; a repeated
 * `ref` for the same user and type is a no-op and writes no event either (the event exists only when the row was
 * inserted). Returns whether it was written.
 */
export async function notify(
  tx: Queryable,
  n: { userId: string; type: NotificationType; title: string; message: string; ref?: string; at: Date },
): Promise<boolean> {
  const id = randomUUID();
  const ref = n.ref ?? null;
  const rows = await tx.query<{ id: string }>(INSERT_NOTIFICATION, [id, n.userId, n.type, n.title, n.message, ref, n.at], 'notify');
  if (!rows[0]) return false;
  await appendEvent(tx, n.userId, 'notification', { id, kind: n.type, title: n.title, message: n.message, ref }, n.at);
  return true;
}
