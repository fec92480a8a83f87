import type { Queryable } from '../../db/database';

/**
 * When an account last traded (a buy or a sale; its registration until then): `users.last_active_at`, the profile's
 * `lastActive`, written by the account module alone. The trade engine calls markActive() first in each trade, so it is
 * also the trade's lock of the account row (every trade's lock order: the account row, then its cash and position).
 */
export async function markActive(tx: Queryable, userId: string, at: Date): Promise<void> {
  await tx.query('UPDATE users SET last_active_at = $2 WHERE id = $1', [userId, at], 'account_mark_active');
}
