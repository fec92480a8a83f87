import type { MigrationInterface, QueryRunner } from 'typeorm';
import { TRACK_EVENT_V4 } from './1700000000026-track-on-account';

/**
 * track_event() goes (issue 50 item 4): the track record's rules for sales and settlements, like a buy's before them,
 * are the track record's own statements (src/domain/track-record/track-sql.ts), and nothing calls the function any
 * more. A rule lives in the module that owns its tables, never in a migration's body. Down restores migration 26's text.
 */
export class TrackRulesInCode1700000000078 implements MigrationInterface {
  name = 'TrackRulesInCode1700000000078';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION track_event(uuid, date, date, date, integer, bigint, bigint, text, bigint, integer, integer, integer, integer,
      boolean, boolean, bigint, integer, integer, integer, integer, smallint, bigint, bigint)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(TRACK_EVENT_V4);
  }
}
