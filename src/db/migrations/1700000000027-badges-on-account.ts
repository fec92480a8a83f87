import type { MigrationInterface, QueryRunner } from 'typeorm';
import { TRACK_RECORD_BACKFILL_V26 } from './1700000000026-track-on-account';

/**
 * The card's badges on the account row too (issue 18, item 7). The board folder copied them onto the board row from
 * user_badges, an index scan and a sort for every copied row: a fifth of a copy's database time. Now the badge writer
 * appends the badge to `users.badges` in the statement that records it (and counts it as a write of the account row,
 * track_seq), and the folder copies the column with the trader's figures. No trade writes a board row any more.
 */
const BADGES_BACKFILL = `UPDATE users u SET badges = b.badges
  FROM (SELECT user_id, array_agg(badge ORDER BY earned_at, badge) AS badges FROM user_badges GROUP BY user_id) b WHERE b.user_id = u.id`;

/** The track-record backfill for this schema: migration 26's, and each account row's badges from user_badges. */
export const TRACK_RECORD_BACKFILL_V27: readonly string[] = [...TRACK_RECORD_BACKFILL_V26, BADGES_BACKFILL];

export class BadgesOnAccount1700000000027 implements MigrationInterface {
  name = 'BadgesOnAccount1700000000027';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN badges text[] NOT NULL DEFAULT '{}'`);
    await q.query(BADGES_BACKFILL);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE users DROP COLUMN badges');
  }
}
