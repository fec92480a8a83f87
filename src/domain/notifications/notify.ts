import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/database';

export type NotificationType = 'resolution' | 'badge' | 'level_up' | 'challenge' | 'referral';

/** Writes a notification in the caller's transaction; a repeated `ref` for the same user and type is a no-op. */
export async function notify(
  tx: Queryable,
  n: { userId: string; type: NotificationType; title: string; message: string; ref?: string; at: Date },
): Promise<void> {
  await tx.query(
    `INSERT INTO notifications (id, user_id, type, title, message, ref, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (user_id, type, ref) WHERE ref IS NOT NULL DO NOTHING`,
    [randomUUID(), n.userId, n.type, n.title, n.message, n.ref ?? null, n.at],
  );
}
