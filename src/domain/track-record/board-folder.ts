import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../db/database';
import type { Logger } from '../../logger';
import { FOLD_PENDING_SET } from '../../db/migrations/1700000000025-board-folding';

/** How often a process folds its traders' pending trades and volume into the ranked columns, while boards are read. */
export const FOLD_INTERVAL_MS = 250;
/** How often a process also folds every pending row, whoever left it (a process that died before folding). */
export const SWEEP_INTERVAL_MS = 30_000;
/**
 * Boards are "read" for WATCH_MS after a process says it read one (BOARDS_READ_CHANNEL): every other process then folds
 * its trades every FOLD_INTERVAL_MS until that long after the last such word. A reading process says so again at
 * most every ANNOUNCE_MS, half WATCH_MS, so while it keeps reading no process stops folding; and on its first read
 * after more than REANNOUNCE_MS without saying so (the others may have stopped), it also sweeps every pending row
 * before it reads. While no board is read anywhere, a trade costs no fold (issue 18: the fold was some 4 points of
 * a trade's 10 % upkeep).
 */
export const WATCH_MS = 10_000;
export const ANNOUNCE_MS = 5_000;
const REANNOUNCE_MS = 8_000;
export const BOARDS_READ_CHANNEL = 'boards_read';
/** Traders left marked while no board is read, at most: beyond, a process folds anyway (its marks are memory). */
const MAX_IDLE_MARKS = 10_000;
/**
 * Traders folded per transaction. A trade of a trader being folded waits for the fold's commit, so a fold holds
 * few rows, briefly: each of its updates writes every index of the row.
 */
const FOLD_BATCH = 32;

/**
 * A fold of one batch, in one statement: it locks the rows no one else holds, in user_id order, folds those of them
 * still pending, and answers every row it locked. A row a trade holds is skipped, not waited for: that trade has not
 * committed, and its trader stays marked for the next fold. A row a trade updated after the statement began is locked
 * in its newest version, and the update, finding the version it read replaced, folds that newest one (READ
 * COMMITTED re-reads it), so what the trades that held the rows committed is folded. One statement, not a lock and
 * then a fold, sent with the transaction's setting: two round trips a batch instead of four (bench/README.md).
 */
const foldLocked = (where: string, limit = '') => `WITH locked AS (
  SELECT user_id FROM trader_activity WHERE ${where} ORDER BY user_id ${limit} FOR UPDATE SKIP LOCKED),
folded AS (UPDATE trader_activity s SET ${FOLD_PENDING_SET}
  WHERE s.user_id IN (SELECT user_id FROM locked) AND s.pa_trades <> 0)
SELECT user_id FROM locked`;
/** The given traders' rows. */
const FOLD = foldLocked('user_id = ANY($1::uuid[])');
/** Any pending rows, a batch of them. */
const FOLD_PENDING = foldLocked('pa_trades <> 0', `LIMIT ${FOLD_BATCH}`);
/**
 * A fold need not wait for the disk: lost in a crash, it is lost whole, and the amounts it moved are pending
 * again, to be folded by the next one.
 */
const NO_FLUSH_WAIT = `SET LOCAL synchronous_commit = off`;

/**
 * Folds the trades and volume that trades leave pending on their traders' activity rows into the columns the
 * boards rank (migration 1700000000025 says why a trade no longer writes those itself). A trade marks its trader
 * once its activity row is locked (`mark`), so a fold that takes the mark either finds the row free, the trade
 * over, and folds what it committed, or finds it held and keeps the mark: nothing pending is ever forgotten by
 * the process that left it. Before any board of its own is read (`beforeRead`), a process folds its marks, so its
 * own committed trades show at once. Other processes' trades show within FOLD_INTERVAL_MS more than the boards'
 * own bound: each process folds on its timer while some process has read a board within WATCH_MS (`watch`, heard
 * on BOARDS_READ_CHANNEL), and a reader that has not said so for REANNOUNCE_MS sweeps what they left pending
 * before its read. A process starts watching, and watches again whenever its LISTEN session is reopened (it may
 * have missed a word meanwhile). The rows of a process that died before folding are folded by the others' sweep.
 */
export class BoardFolder {
  private marked = new Set<string>();
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

  /** A trade left pending amounts on this trader's row (which it has locked). */
  mark(userId: string): void {
    this.marked.add(userId);
  }

  /** Folds every trader marked so far whose trade has ended; resolves once that fold has committed. */
  async flush(): Promise<void> {
    // One fold at a time: a caller arriving during a fold waits for it, then folds whatever was marked since.
    while (this.running) await this.running.catch(() => {});
    if (this.marked.size === 0) return;
    const batch = [...this.marked];
    this.marked = new Set();
    this.running = this.fold(batch).catch((err: unknown) => {
      // Kept for the next fold (a row folded already has nothing pending: folding it again changes nothing).
      for (const id of batch) this.marked.add(id);
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
   * left pending meanwhile first). Waits no longer than `ms`, so a slow database never holds a board read back for
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
      // may have stopped, and what they left pending is swept here.
      const folded = since < REANNOUNCE_MS ? this.flush() : this.sweep().then(() => this.flush());
      work = Promise.all([announced, folded]);
    }
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    const done = work.catch((err: unknown) => this.log?.warn('board fold before a read failed; read without it', { error: String(err) }));
    await Promise.race([done, waited]);
    clearTimeout(timer);
  }

  /** Folds every pending row of every process, in batches (rows a dead process left, and at start). */
  async sweep(): Promise<number> {
    let folded = 0;
    for (;;) {
      const n = (await this.db.transaction((tx) => this.inFold(tx, FOLD_PENDING, [], 'board_sweep'))).length;
      folded += n;
      if (n < FOLD_BATCH) return folded;
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
    // Once before serving: what a process that died left pending is on the boards before this one reads them.
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

  private async fold(userIds: string[]): Promise<void> {
    for (let i = 0; i < userIds.length; i += FOLD_BATCH) {
      const ids = userIds.slice(i, i + FOLD_BATCH);
      const locked = await this.db.transaction((tx) => this.inFold(tx, FOLD, [ids], 'board_fold'));
      // Every marked trader has a row: one not locked here is held by a trade still open, and is folded next time.
      if (locked.length < ids.length) {
        const got = new Set(locked);
        for (const id of ids) if (!got.has(id)) this.marked.add(id);
      }
    }
  }

  /** One batch's fold statement in `tx`, behind the setting that spares it the wait for the disk; the ids it locked. */
  private async inFold(tx: Queryable, sql: string, params: unknown[], name: string): Promise<string[]> {
    // Sent together (a pipelined connection sends both at once); the fold's own failure is the one reported.
    const setting = tx.query(NO_FLUSH_WAIT);
    setting.catch(() => {});
    const rows = await tx.query<{ user_id: string }>(sql, params, name);
    await setting;
    return rows.map((r) => r.user_id);
  }
}
