import type { Database } from '../../db/database';
import type { Logger } from '../../logger';
import { FOLD_PENDING_SET } from '../../db/migrations/1700000000025-board-folding';

/** How often a process folds its traders' pending trades and volume into the ranked columns. */
export const FOLD_INTERVAL_MS = 250;
/** How often a process also folds every pending row, whoever left it (a process that died before folding). */
export const SWEEP_INTERVAL_MS = 30_000;
/**
 * Traders folded per transaction. A trade of a trader being folded waits for the fold's commit, so a fold holds
 * few rows, briefly: each of its updates writes every index of the row.
 */
const FOLD_BATCH = 32;

/**
 * Locks the rows no one else holds, in user_id order. A row a trade holds is skipped, not waited for: that trade
 * has not committed, and its trader stays marked for the next fold.
 */
const LOCK = `SELECT user_id FROM trader_activity WHERE user_id = ANY($1::uuid[]) ORDER BY user_id FOR UPDATE SKIP LOCKED`;
const LOCK_PENDING = `SELECT user_id FROM trader_activity WHERE pa_trades <> 0 ORDER BY user_id LIMIT ${FOLD_BATCH} FOR UPDATE SKIP LOCKED`;
/**
 * A fold need not wait for the disk: lost in a crash, it is lost whole, and the amounts it moved are pending
 * again, to be folded by the next one.
 */
const NO_FLUSH_WAIT = `SET LOCAL synchronous_commit = off`;

/** The fold of the given traders' rows (migration 1700000000025's rule). */
const FOLD = `UPDATE trader_activity s SET ${FOLD_PENDING_SET}
WHERE s.user_id = ANY($1::uuid[]) AND s.pa_trades <> 0`;

/**
 * Folds the trades and volume that trades leave pending on their traders' activity rows into the columns the
 * boards rank (migration 1700000000025 says why a trade no longer writes those itself). A trade marks its trader
 * once its activity row is locked (`mark`), so a fold that takes the mark either finds the row free, the trade
 * over, and folds what it committed, or finds it held and keeps the mark: nothing pending is ever forgotten by
 * the process that left it. That process folds within FOLD_INTERVAL_MS, and before any board of its own is read
 * (`flush`), so its own committed trades show at once; the rows of a process that died before folding are
 * folded by the others' sweep.
 */
export class BoardFolder {
  private marked = new Set<string>();
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly log?: Logger,
    private readonly intervalMs = FOLD_INTERVAL_MS,
  ) {}

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
   * Before a board is read: flush, but wait no longer than `ms`, so a slow database never holds a board read back
   * for long; the board is then read without this process's last trades, which the fold, once committed, brings to
   * its next renewal. A failed fold is logged and retried by the timer.
   */
  async flushWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    const flushed = this.flush().catch((err: unknown) => this.log?.warn('board fold before a read failed; read without it', { error: String(err) }));
    await Promise.race([flushed, waited]);
    clearTimeout(timer);
  }

  /** Folds every pending row of every process, in batches (rows a dead process left, and at start). */
  async sweep(): Promise<number> {
    let folded = 0;
    for (;;) {
      const n = await this.db.transaction(async (tx) => {
        await tx.query(NO_FLUSH_WAIT);
        const locked = await tx.query<{ user_id: string }>(LOCK_PENDING);
        if (locked.length === 0) return 0;
        await tx.query(FOLD, [locked.map((r) => r.user_id)], 'board_fold');
        return locked.length;
      });
      folded += n;
      if (n < FOLD_BATCH) return folded;
    }
  }

  /** Folds every FOLD_INTERVAL_MS, and sweeps now and every SWEEP_INTERVAL_MS. */
  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.flush().catch((err: unknown) => this.log?.warn('board fold failed; it is retried', { error: String(err) }));
    };
    const sweep = () => {
      this.sweep().catch((err: unknown) => this.log?.warn('board sweep failed; it is retried', { error: String(err) }));
    };
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
    this.sweeper = setInterval(sweep, SWEEP_INTERVAL_MS);
    this.sweeper.unref();
    sweep();
  }

  /** Stops the timers after a last fold of this process's marks (a fold that fails is left to the others' sweep). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.sweeper);
    this.timer = undefined;
    this.sweeper = undefined;
    await this.flush().catch((err: unknown) => this.log?.warn('last board fold failed; another process sweeps it', { error: String(err) }));
  }

  private async fold(userIds: string[]): Promise<void> {
    for (let i = 0; i < userIds.length; i += FOLD_BATCH) {
      const ids = userIds.slice(i, i + FOLD_BATCH);
      const locked = await this.db.transaction(async (tx) => {
        await tx.query(NO_FLUSH_WAIT);
        const rows = (await tx.query<{ user_id: string }>(LOCK, [ids], 'board_fold_lock')).map((r) => r.user_id);
        // A statement of its own, after the lock: it sees what the trades that held these rows committed.
        if (rows.length > 0) await tx.query(FOLD, [rows], 'board_fold');
        return rows;
      });
      // Every marked trader has a row: one not locked here is held by a trade still open, and is folded next time.
      if (locked.length < ids.length) {
        const got = new Set(locked);
        for (const id of ids) if (!got.has(id)) this.marked.add(id);
      }
    }
  }
}
