import type { MigrationInterface, QueryRunner } from 'typeorm';
import { TRACK_RECORD_BACKFILL_V27 } from './1700000000027-badges-on-account';

/**
 * A trader's live track record moves off the account row (issue 50 item 4) into a row of its own, `track_figures`,
 * written only by the track record (src/domain/track-record): the live figures (this week's, month's and all-time trades
 * and volume), streak, the day's trades, challenge progress, XP and the card's badges, with `track_seq`, the count of
 * the row's writes the board folder compares its copies by (migration 26). The account module opens the row when it
 * creates the account; every account gets one here, with the figures it had.
 */
export const TRACK_FIGURE_COLUMNS = [
  'xp integer NOT NULL DEFAULT 0',
  'w_bucket date',
  'w_trades integer NOT NULL DEFAULT 0',
  'w_volume bigint NOT NULL DEFAULT 0',
  'm_bucket date',
  'm_trades integer NOT NULL DEFAULT 0',
  'm_volume bigint NOT NULL DEFAULT 0',
  'a_trades integer NOT NULL DEFAULT 0',
  'a_volume bigint NOT NULL DEFAULT 0',
  'streak integer NOT NULL DEFAULT 0',
  'last_trade_day date',
  'day date',
  'day_trades integer NOT NULL DEFAULT 0',
  'progress bigint NOT NULL DEFAULT 0',
  'prev_progress bigint NOT NULL DEFAULT 0',
  "market_ids text[] NOT NULL DEFAULT '{}'",
  'trade_xp integer NOT NULL DEFAULT 0',
  'win_xp integer NOT NULL DEFAULT 0',
  'xp_gain integer NOT NULL DEFAULT 0',
  'yday date',
  'yday_progress bigint NOT NULL DEFAULT 0',
  'track_seq bigint NOT NULL DEFAULT 0',
  "badges text[] NOT NULL DEFAULT '{}'",
];
const NAMES = TRACK_FIGURE_COLUMNS.map((c) => c.split(' ')[0]!);

/** Rewrites `sql` by each [from, to] pair, every one of which must match (the backfill's text is where this expects it). */
function rewritten(sql: string, pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs.reduce((s, [from, to]) => {
    if (!s.includes(from)) throw new Error(`migration 80: the track-record backfill has no "${from}"`);
    return s.split(from).join(to);
  }, sql);
}

/**
 * The set-based backfill of migration 1700000000027 for the schema as of this one (the leaderboard benchmark builds
 * its aggregates with it): the figures it wrote on the account row go to the figures row.
 */
export const TRACK_RECORD_BACKFILL_V80: readonly string[] = TRACK_RECORD_BACKFILL_V27.map((sql) => {
  if (sql.startsWith('INSERT INTO trader_activity'))
    return rewritten(sql, [
      ['JOIN users u ON u.id = e.user_id', 'JOIN users u ON u.id = e.user_id JOIN track_figures f ON f.user_id = u.id'],
      ['u.xp', 'f.xp'],
    ]);
  if (sql.startsWith('UPDATE users u SET'))
    return rewritten(sql, [
      ['UPDATE users u SET', 'UPDATE track_figures u SET'],
      ['= u.id', '= u.user_id'],
    ]);
  if (sql.startsWith('UPDATE users s SET'))
    return rewritten(sql, [
      ['UPDATE users s SET', 'UPDATE track_figures s SET'],
      ['WHERE s.id = x.user_id', 'WHERE s.user_id = x.user_id'],
    ]);
  return sql;
});
if (TRACK_RECORD_BACKFILL_V80.some((sql) => /\bUPDATE users\b|\bu\.xp\b/.test(sql)))
  throw new Error('migration 80: the track-record backfill still writes the account row');

export class TrackFigures1700000000080 implements MigrationInterface {
  name = 'TrackFigures1700000000080';

  async up(q: QueryRunner): Promise<void> {
    // Room in each page for a row's next version, so a trade's update stays on its page (as on users, migration 26).
    await q.query(`CREATE TABLE track_figures (user_id uuid PRIMARY KEY REFERENCES users(id), ${TRACK_FIGURE_COLUMNS.join(', ')}) WITH (fillfactor = 80)`);
    await q.query(`INSERT INTO track_figures (user_id, ${NAMES.join(', ')}) SELECT id, ${NAMES.join(', ')} FROM users`);
    await q.query(`ALTER TABLE users ${NAMES.map((c) => `DROP COLUMN ${c}`).join(', ')}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ${TRACK_FIGURE_COLUMNS.map((c) => `ADD COLUMN ${c}`).join(', ')}`);
    await q.query(`UPDATE users u SET ${NAMES.map((c) => `${c} = f.${c}`).join(', ')} FROM track_figures f WHERE f.user_id = u.id`);
    await q.query('DROP TABLE track_figures');
  }
}
