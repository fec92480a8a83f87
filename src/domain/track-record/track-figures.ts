import type { Queryable } from '../../db/database';

/**
 * A trader's live track record has a row of its own, `track_figures` (migration 1700000000080), written by the track
 * record alone: the live figures, streak, day, challenge progress, XP, the card's badges and `track_seq`, the count of
 * the row's writes (the board folder copies it to the boards). The rules that move it are in track-sql.ts and awards.ts.
 */

/** Opens a new account's track record at its starting state, in the caller's transaction (the account module calls it as it creates the account). */
export async function openTrackFigures(tx: Queryable, userId: string): Promise<void> {
  await tx.query('INSERT INTO track_figures (user_id) VALUES ($1)', [userId], 'track_open_figures');
}
