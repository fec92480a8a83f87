import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../db/database';
import type { Logger } from '../../logger';

/**
 * How often a process copies its traders' figures rows onto their board rows, while boards are read. Once a second
 * rather than every quarter second, a trader who trades several times a second is copied once, not up to four times:
 * the fold's database time per trade fell by a third in the upkeep bench (bench/README.md); a board is kept a second
 * in the boards' cache anyway.
 */
export const FOLD_INTERVAL_MS = 1000;
/** How long a board read waits at most for its process's fold before it reads without it (a slow database). */
export const READ_WAIT_MS = 250;
/** How often a process also folds every board row left behind, whoever left it (a process that died before folding). */
export const SWEEP_INTERVAL_MS = 30_000;
/**
 * Boards are "read" for WATCH_MS after a process says it read one (BOARDS_READ_CHANNEL): every other process then folds
 * its trades every FOLD_INTERVAL_MS until that long after the last such word. A reading process says so again at
 * most every ANNOUNCE_MS, half WATCH_MS, so while it keeps reading no process stops folding; and on its first read
 * after more than REANNOUNCE_MS without saying so (the others may have stopped), it also sweeps every board row
 * left behind before it reads. While no board is read anywhere, a trade costs no fold (issue 18: the fold was some 4 points of
 * a trade's 10 % upkeep).
 */
export const WATCH_MS = 10_000;
export const ANNOUNCE_MS = 5_000;
const REANNOUNCE_MS = 8_000;
export const BOARDS_READ_CHANNEL = 'boards_read';
/** Traders left marked while no board is read, at most: beyond, a process folds anyway (its marks are memory). */
const MAX_IDLE_MARKS = 10_000;
/**
 * Traders folded per transaction. No trade writes a board row (a fold's locks hold up only another fold, a rename or
 * a deletion), so a batch may be large: a fold of a second's 250 traders is two transactions, not eight.
 */
const FOLD_BATCH = 128;
/** How long a mark whose trade's write a fold has not yet found is kept (a trade that rolled back never shows it). */
const MARK_TTL_MS = 10_000;

/**
 * The figures and card values the board row copies from the trader's figures row (track_figures), badges included: a badge earned in a transaction still open when a fold copies its trader comes with the
 * next copy, as its write count (track_seq) tells the fold.
 */
const COPIED = ['w_bucket', 'w_trades', 'w_volume', 'm_bucket', 'm_trades', 'm_volume', 'a_trades', 'a_volume', 'xp', 'badges'];

/**
 * A fold of one batch, in one statement: it reads the given traders' figures rows (and their accounts' names) as committed, and copies them onto
 * their board rows, each written only when older than the copy (`seq`: another process may have folded it
 * meanwhile); a trader's first board row is created with its card, once the account has traded (XP alone, from a
 * referral, puts no one on a board). It answers the write count it copied of each trader, so a mark whose trade had
 * not committed yet is kept. Nothing locks the figures rows: a trade never waits for a fold. Folds take FOLD_LOCK
 * first, so two of them never lock the same board rows in different orders (a deadlock); locking each batch's rows
 * in id order instead (`SELECT … ORDER BY user_id FOR UPDATE` before the update) cost a third of a copy's database
 * time (31 against 22 µs a row, bench/README.md).
 */
const FOLD = `WITH src AS (
  SELECT u.id, u.is_agent, u.deleted_at, u.display_name, f.track_seq, ${COPIED.map((c) => `f.${c}`).join(', ')}
  FROM track_figures f JOIN users u ON u.id = f.user_id WHERE f.user_id = ANY($1::uuid[]) AND f.a_trades > 0),
copied AS (
  UPDATE trader_activity t SET seq = s.track_seq, ${COPIED.map((c) => `${c} = s.${c}`).join(', ')}
  FROM src s WHERE t.user_id = s.id AND t.seq < s.track_seq)
, created AS (
  INSERT INTO trader_activity AS t (user_id, is_agent, display_name, seq, ${COPIED.join(', ')})
  SELECT s.id, CASE WHEN s.deleted_at IS NULL THEN s.is_agent END, s.display_name, s.track_seq, ${COPIED.map((c) => `s.${c}`).join(', ')}
  FROM src s WHERE NOT EXISTS (SELECT 1 FROM trader_activity a WHERE a.user_id = s.id) ORDER BY s.id
  ON CONFLICT (user_id) DO UPDATE SET seq = EXCLUDED.seq, ${COPIED.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}
  WHERE t.seq < EXCLUDED.seq)
SELECT id AS user_id, track_seq AS seq FROM src`;

/** Every trader whose board row is behind their figures row (or missing), a batch of them, in id order. */
const BEHIND = `SELECT f.user_id FROM track_figures f LEFT JOIN trader_activity t ON t.user_id = f.user_id
  WHERE f.track_seq > coalesce(t.seq, 0) AND f.a_trades > 0 AND f.user_id > $1::uuid ORDER BY f.user_id LIMIT ${2 * FOLD_BATCH}`;

/**
 * A fold need not wait for the disk: lost in a crash, it is lost whole, and the board rows it copied are behind
 * their figures rows again, to be folded by the next sweep.
 */
const NO_FLUSH_WAIT = `SET LOCAL synchronous_commit = off`;

/**
 * Held by every fold's transaction from its start (a transaction-level advisory lock; the key spells BRDFOLD): folds,
 * in any process, write board rows one at a time. The other writers of a board row (a rename, a deletion) write one
 * row each and never wait for this lock, so no wait of theirs closes a circle with a fold's.
 */
export const FOLD_LOCK = `SELECT pg_advisory_xact_lock(${0x425244464f4c44n})`;

/**
 * Copies traders' live figures and XP from their figures rows (track_figures) onto their board rows, which the boards rank
 * (migration 1700000000026 says why a trade no longer writes those itself). A trade marks its trader with the
 * figures row's write count it made (`mark`), before it commits; a fold copies what has committed and keeps the mark
 * until a copy reaches that count, so no change is ever forgotten by the process that made it (one rolled back is
 * let go after MARK_TTL_MS). Before any board of its own is read (`beforeRead`), a process folds its marks, so its
 * own committed trades show at once. Other processes' trades show within FOLD_INTERVAL_MS more than the boards'
 * own bound: each process folds on its timer while some process has read a board within WATCH_MS (`watch`, heard
 * on BOARDS_READ_CHANNEL), and a reader that has not said so for REANNOUNCE_MS sweeps what they left behind
 * before its read. A process starts watching, and watches again whenever its LISTEN session is reopened (it may
 * have missed a word meanwhile). The rows of a process that died before folding are folded by the others' sweep.
 */
export class BoardFolder {
  /** Marked traders, with the least write count of their figures row a fold must copy, and since when (ms). */
  private marked = new Map<string, { seq: number; at: number }>();
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  /** This process's name in its own words, which it does not act on: its own reads fold its marks first. */
  private readonly id = randomUUID();
  /** Until when this process folds on its timer (some process read a board); a process starts watching. */
  private watchedUntil: number;
  /** When this process last said it read a board (the statement sent), or -Infinity. */
  private announcedAt = -Infinity;

  constructor(
    private readonly db: Database,
    private readonly log?: Logger,
    private readonly intervalMs = FOLD_INTERVAL_MS,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.watchedUntil = clock() + WATCH_MS;
  }

  /** Some process reads boards: fold on the timer for WATCH_MS from now. */
  watch(): void {
    this.watchedUntil = Math.max(this.watchedUntil, this.clock() + WATCH_MS);
  }

  /** Whether this process folds on its timer now. */
  get watched(): boolean {
    return this.clock() < this.watchedUntil;
  }

  /**
   * A trade changed this trader's figures row, its write count now `seq` (0: unknown, any copy will do): their board
   * row is to be brought up to date once the trade has committed.
   */
  mark(userId: string, seq = 0): void {
    this.keep(userId, { seq, at: this.clock() });
  }

  /** Merges a mark into the marks: the higher write count, the earlier time. */
  private keep(userId: string, m: { seq: number; at: number }): void {
    const had = this.marked.get(userId);
    this.marked.set(userId, had ? { seq: Math.max(had.seq, m.seq), at: Math.min(had.at, m.at) } : m);
  }

  /** Folds every trader marked so far whose trade has committed; resolves once that fold has committed. */
  async flush(): Promise<void> {
    // One fold at a time: a caller arriving during a fold waits for it, then folds whatever was marked since.
    while (this.running) await this.running.catch(() => {});
    if (this.marked.size === 0) return;
    const batch = this.marked;
    this.marked = new Map();
    this.running = this.fold(batch).catch((err: unknown) => {
      // Kept for the next fold (a row folded already is as new as its figures row: folding it again changes nothing).
      for (const [id, m] of batch) this.keep(id, m);
      throw err;
    });
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
  }

  /**
   * Before a board or rank is read in this process: fold this process's marks, and, when this process has not
   * said so for ANNOUNCE_MS, tell every process that boards are read (and, past REANNOUNCE_MS, sweep what they
   * left behind meanwhile first). Waits no longer than `ms`, so a slow database never holds a board read back for
   * long; the board is then read without the latest trades, which the fold, once committed, brings to its next
   * renewal. A failure is logged; a word that failed to go out is said again on the next read.
   */
  async beforeRead(ms: number): Promise<void> {
    const now = this.clock();
    const since = now - this.announcedAt;
    let work: Promise<unknown>;
    if (since < ANNOUNCE_MS) work = this.flush();
    else {
      this.announcedAt = now;
      const announced = this.db.query(`SELECT pg_notify('${BOARDS_READ_CHANNEL}', $1)`, [this.id], 'boards_read').catch((err: unknown) => {
        if (this.announcedAt === now) this.announcedAt = -Infinity;
        throw err;
      });
      // Within REANNOUNCE_MS of the last word every process still folds (it watches for WATCH_MS); past it, some
      // may have stopped, and what they left behind is swept here.
      const folded = since < REANNOUNCE_MS ? this.flush() : this.sweep().then(() => this.flush());
      work = Promise.all([announced, folded]);
    }
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    const done = work.catch((err: unknown) => this.log?.warn('board fold before a read failed; read without it', { error: String(err) }));
    await Promise.race([done, waited]);
    clearTimeout(timer);
  }

  /** Folds every board row that is behind its figures row, whoever left it (rows a dead process left, and at start). */
  async sweep(): Promise<number> {
    let folded = 0;
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const ids = (await this.db.query<{ user_id: string }>(BEHIND, [after], 'board_behind')).map((r) => r.user_id);
      if (ids.length === 0) return folded;
      for (let i = 0; i < ids.length; i += FOLD_BATCH) {
        folded += (await this.db.transaction((tx) => this.inFold(tx, FOLD, [ids.slice(i, i + FOLD_BATCH)], 'board_fold'))).length;
      }
      after = ids[ids.length - 1]!;
    }
  }

  /**
   * Folds every FOLD_INTERVAL_MS while boards are read (or too many traders are marked), listens for processes
   * that read boards, and sweeps every SWEEP_INTERVAL_MS; resolves once a first sweep is over.
   */
  async start(): Promise<void> {
    if (this.timer) return;
    // Listening first: a start that cannot listen leaves no timer behind.
    // Another process's word only: this one's own reads fold its marks before they read, so a process that alone
    // reads boards (the embedded database's only process, say) never folds on its timer for them.
    this.unlisten = await this.db.listen(
      BOARDS_READ_CHANNEL,
      (from) => {
        if (from !== this.id) this.watch();
      },
      () => this.watch(),
    );
    const tick = () => {
      if (!this.watched && this.marked.size <= MAX_IDLE_MARKS) return;
      this.flush().catch((err: unknown) => this.log?.warn('board fold failed; it is retried', { error: String(err) }));
    };
    const sweep = () => {
      this.sweep().catch((err: unknown) => this.log?.warn('board sweep failed; it is retried', { error: String(err) }));
    };
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
    this.sweeper = setInterval(sweep, SWEEP_INTERVAL_MS);
    this.sweeper.unref();
    // Once before serving: what a process that died left unfolded is on the boards before this one reads them.
    await this.sweep().catch((err: unknown) => this.log?.warn('board sweep failed; it is retried', { error: String(err) }));
  }

  /** Stops the timers after a last fold of this process's marks (a fold that fails is left to the others' sweep). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.sweeper);
    this.timer = undefined;
    this.sweeper = undefined;
    const unlisten = this.unlisten;
    this.unlisten = undefined;
    await unlisten?.().catch(() => {});
    await this.flush().catch((err: unknown) => this.log?.warn('last board fold failed; another process sweeps it', { error: String(err) }));
  }

  private async fold(marks: Map<string, { seq: number; at: number }>): Promise<void> {
    const userIds = [...marks.keys()];
    const now = this.clock();
    for (let i = 0; i < userIds.length; i += FOLD_BATCH) {
      const ids = userIds.slice(i, i + FOLD_BATCH);
      const copied = new Map((await this.db.transaction((tx) => this.inFold(tx, FOLD, [ids], 'board_fold'))).map((r) => [r.user_id, Number(r.seq)]));
      // A copy older than the trade's write: that trade has not committed yet, and is folded next time. A mark that
      // stays unmet for MARK_TTL_MS was a trade that rolled back (its write count is then never reached): the sweep
      // has the last word.
      for (const id of ids) {
        const m = marks.get(id)!;
        if ((copied.get(id) ?? m.seq) < m.seq && now - m.at < MARK_TTL_MS) this.keep(id, m);
      }
    }
  }

  /**
   * One batch's statement in `tx`, behind the setting that spares it the wait for the disk and the lock that keeps
   * folds apart; what it answered.
   */
  private async inFold(tx: Queryable, sql: string, params: unknown[], name: string): Promise<Array<{ user_id: string; seq: bigint }>> {
    // Sent together (a pipelined connection sends all three at once); the fold's own failure is the one reported.
    const before = [tx.query(NO_FLUSH_WAIT), tx.query(FOLD_LOCK, [], 'board_fold_lock')];
    for (const b of before) b.catch(() => {});
    const rows = await tx.query<{ user_id: string; seq: bigint }>(sql, params, name);
    await Promise.all(before);
    return rows;
  }
}
