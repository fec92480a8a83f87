import type { MigrationInterface, QueryRunner } from 'typeorm';
import { TRACK_RECORD_BACKFILL } from './1700000000006-track-record';
import { TRACK_EVENT_V2 } from './1700000000009-xp-on-track-record';
import { FOLD_PENDING_SET, TRACK_EVENT_V3 } from './1700000000025-board-folding';

/**
 * A trader's live track record moves onto the account row, which every buy already updates (its balance). The
 * second row a trade updated, the trader's activity row, was most of what the track record added to a trade: a
 * pipelined `SELECT 1` in its place cost a trade 0.4–3.2 %, the same expressions on the account row 0.7–4.7 %, the
 * activity row's update 8–17 % (bench/README.md, 2026-11-27). The account row now holds the trader's live figures
 * (this week's, month's and all-time trades and volume), streak, the day's trades, challenge progress and XP;
 * trader_activity keeps the boards' copy of them (the ranked columns and the card: name, XP, badges), which the
 * trader's process folds in moments after a trade commits (src/domain/track-record/board-folder.ts). `track_seq`
 * counts the account row's track-record writes and `seq` is the count a board row was copied at, so a fold never
 * puts an older copy over a newer one, and a sweep finds every row whose copy is behind.
 */
const LIVE_COLUMNS = [
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
];

/** The columns that move (every one but the ranked figures and the card, which trader_activity keeps). */
const MOVED = [
  'streak',
  'last_trade_day',
  'day',
  'day_trades',
  'progress',
  'prev_progress',
  'market_ids',
  'trade_xp',
  'win_xp',
  'xp_gain',
  'yday',
  'yday_progress',
] as const;
const RANKED = ['w_bucket', 'w_trades', 'w_volume', 'm_bucket', 'm_trades', 'm_volume', 'a_trades', 'a_volume'] as const;
/** A live column's definition (`name type constraints`), from LIVE_COLUMNS. */
const definitionOf = (column: string): string => {
  const d = LIVE_COLUMNS.find((c) => c.split(' ')[0] === column);
  if (!d) throw new Error(`no live column ${column}`);
  return d;
};

/** V2's activity block: its update of the activity row, and the insert of a trader's first row. */
const ACTIVITY_BLOCK_V2 =
  /( {4})UPDATE trader_activity s SET\n([\s\S]*?) {4}WHERE s\.user_id = p_user\n {4}RETURNING s\.a_trades, ([^\n]*)\n( {4}INTO r_trades[^\n]*\n) {4}IF NOT FOUND AND p_trades > 0 THEN\n[\s\S]*? {4}END IF;\n/;

if (!ACTIVITY_BLOCK_V2.test(TRACK_EVENT_V2)) throw new Error("track_event() v2's activity block is not where migration 26 expects it");

/**
 * track_event() as of this migration: v2's rules, applied to the account row (which every account has, so there is no
 * first row to insert), with its track-record write counted. Sales and settlements call it; a buy sends its update as
 * part of its own statement (src/domain/track-record/track-sql.ts cuts it from this text).
 */
export const TRACK_EVENT_V4 = TRACK_EVENT_V2.replace(
  ACTIVITY_BLOCK_V2,
  (_all, indent: string, set: string, returning: string, into: string) =>
    `${indent}UPDATE users s SET\n${set.replace(/\n$/, ',\n')}      track_seq = s.track_seq + 1\n${indent}WHERE s.id = p_user\n` +
    `${indent}RETURNING s.a_trades, ${returning}, s.track_seq\n${into.replace(/;\n$/, ', r_seq;\n')}`,
).replace('r_settled integer, r_won integer, r_profitable_sells integer\n)', 'r_settled integer, r_won integer, r_profitable_sells integer, r_seq bigint\n)');
if (!TRACK_EVENT_V4.includes('r_profitable_sells integer, r_seq bigint') || !TRACK_EVENT_V4.includes('r_xp, r_seq;')) {
  throw new Error("migration 26 could not add the account row's write count to track_event()'s answer");
}
/** Its answer gains a column: the function is replaced, not redefined in place (and again on the way down). */
const DROP_TRACK_EVENT = `DROP FUNCTION track_event(uuid, date, date, date, integer, bigint, bigint, text, bigint, integer, integer, integer, integer,
  boolean, boolean, bigint, integer, integer, integer, integer, smallint, bigint, bigint)`;

/**
 * The set-based backfill of migration 1700000000006 for the schema as of this one (the leaderboard benchmark builds
 * its aggregates with it; a test checks it against what the listener maintained): the board rows as before, the
 * streak on the account row, and each account row's live figures the board row's, both at track_seq 1.
 */
export const TRACK_RECORD_BACKFILL_V26: readonly string[] = TRACK_RECORD_BACKFILL.flatMap((sql, i) => {
  if (i !== 1) return [sql];
  const streak = sql.replace('UPDATE trader_activity s SET', 'UPDATE users s SET').replace('WHERE s.user_id = x.user_id', 'WHERE s.id = x.user_id');
  if (streak === sql || !streak.includes('UPDATE users s SET') || !streak.includes('WHERE s.id = x.user_id')) {
    throw new Error("migration 6's streak backfill is not where migration 26 expects it");
  }
  return [
    `UPDATE users u SET ${RANKED.map((c) => `${c} = a.${c}`).join(', ')}, track_seq = 1 FROM trader_activity a WHERE a.user_id = u.id`,
    'UPDATE trader_activity SET seq = 1',
    streak,
  ];
});

const USERS_XP_COMMENT = 'The account XP; trader_activity.xp is the boards copy of it, folded in after each change.';

export class TrackOnAccount1700000000026 implements MigrationInterface {
  name = 'TrackOnAccount1700000000026';

  async up(q: QueryRunner): Promise<void> {
    // What trades left pending joins the ranked columns first: those are then the whole figures to move.
    await q.query(`UPDATE trader_activity s SET ${FOLD_PENDING_SET} WHERE s.pa_trades <> 0`);
    await q.query(`ALTER TABLE users ${LIVE_COLUMNS.map((c) => `ADD COLUMN ${c}`).join(', ')}`);
    // Room in each page for the next version of a row, so a trade's update stays on its page (heap-only).
    await q.query('ALTER TABLE users SET (fillfactor = 80)');
    const cols = [...RANKED, ...MOVED, 'xp'];
    await q.query(`UPDATE users u SET ${cols.map((c) => `${c} = a.${c}`).join(', ')}, track_seq = 1 FROM trader_activity a WHERE a.user_id = u.id`);
    // Every board row is a copy of its account row as of track_seq 1 (accounts without one stay at 0).
    await q.query('ALTER TABLE trader_activity ADD COLUMN seq bigint NOT NULL DEFAULT 1');
    await q.query('ALTER TABLE trader_activity ALTER COLUMN seq SET DEFAULT 0');
    await q.query(
      `ALTER TABLE trader_activity ${[...MOVED, 'pw_bucket', 'pw_trades', 'pw_volume', 'pm_bucket', 'pm_trades', 'pm_volume', 'pa_trades', 'pa_volume']
        .map((c) => `DROP COLUMN ${c}`)
        .join(', ')}`,
    );
    await q.query(DROP_TRACK_EVENT);
    await q.query(TRACK_EVENT_V4);
    await q.query(`COMMENT ON COLUMN users.xp IS '${USERS_XP_COMMENT}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    // The moved columns as they are defined on users, and migration 25's pending twins of the ranked figures.
    const restored = [...MOVED.map(definitionOf), ...RANKED.map((c) => `p${definitionOf(c)}`)];
    await q.query(`ALTER TABLE trader_activity ${restored.map((d) => `ADD COLUMN ${d}`).join(', ')}`);
    // A trader with no board row yet (no fold since their first trade) gets one; every row takes the live figures.
    await q.query(
      `INSERT INTO trader_activity (user_id, is_agent, display_name, xp, badges)
       SELECT u.id, CASE WHEN u.deleted_at IS NULL THEN u.is_agent END, u.display_name, u.xp,
              ARRAY(SELECT b.badge FROM user_badges b WHERE b.user_id = u.id ORDER BY b.earned_at, b.badge)
       FROM users u WHERE u.track_seq > 0 ON CONFLICT (user_id) DO NOTHING`,
    );
    const cols = [...RANKED, ...MOVED, 'xp'];
    await q.query(`UPDATE trader_activity a SET ${cols.map((c) => `${c} = u.${c}`).join(', ')} FROM users u WHERE u.id = a.user_id AND u.track_seq > 0`);
    await q.query('ALTER TABLE trader_activity DROP COLUMN seq');
    await q.query(DROP_TRACK_EVENT);
    await q.query(TRACK_EVENT_V3);
    await q.query('ALTER TABLE users RESET (fillfactor)');
    await q.query(`ALTER TABLE users ${LIVE_COLUMNS.map((c) => `DROP COLUMN ${c.split(' ')[0]}`).join(', ')}`);
    await q.query(
      "COMMENT ON COLUMN users.xp IS 'XP of an account that has not traded yet. Once trader_activity has a row for the account, that row holds its total XP and this column is no longer written.'",
    );
  }
}
