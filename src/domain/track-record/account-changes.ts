import type { Queryable } from '../../db/database';
import { monthStart, weekStart } from './periods';

/**
 * A deleted account leaves every leaderboard, inside the deletion's transaction: its aggregate rows get
 * is_agent NULL, which neither audience matches (migration 1700000000012), and its card the deleted name.
 * Both rows are made to exist, so a later settlement of a position it still holds updates them rather than
 * creating rows that would put it back on a board.
 */
export async function leaveBoards(tx: Queryable, account: { id: string; at: Date }): Promise<void> {
  await tx.query(
    `INSERT INTO trader_activity (user_id, is_agent, display_name, xp) SELECT u.id, NULL, u.display_name, f.xp FROM users u JOIN track_figures f ON f.user_id = u.id WHERE u.id = $1
     ON CONFLICT (user_id) DO UPDATE SET is_agent = NULL, display_name = EXCLUDED.display_name`,
    [account.id],
  );
  await tx.query(
    `INSERT INTO trader_results (user_id, is_agent, w_bucket, m_bucket) VALUES ($1, NULL, $2, $3)
     ON CONFLICT (user_id) DO UPDATE SET is_agent = NULL`,
    [account.id, weekStart(account.at), monthStart(account.at)],
  );
}

/** A renamed trader's board card carries the new name (the boards never read users). */
export async function renameCard(tx: Queryable, account: { id: string; displayName: string }): Promise<void> {
  await tx.query('UPDATE trader_activity SET display_name = $2 WHERE user_id = $1', [account.id, account.displayName]);
}
