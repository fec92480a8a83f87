import type { Database } from '../../db/database';
import type { Logger } from '../../logger';
import { FOLD_PENDING_SET } from '../../db/migrations/1700000000025-board-folding';

/** How often a process folds its traders' pending trades and volume into the ranked columns. */
export const FOLD_INTERVAL_MS = 250;
/** How often a process also folds every pending row, whoever left it (a process that died before folding). */
export const SWEEP_INTERVAL_MS = 30_000;
/** Traders folded per statement: bounds one fold's locks and time. */
const FOLD_BATCH = 1000;

/** Locks the rows, in user_id order (every folder locks in this order, and every trade locks a single row, so no folder waits in a cycle). */
const LOCK = `SELECT user_id FROM trader_activity WHERE user_id = ANY($1::uuid[]) ORDER BY user_id FOR UPDATE`;
const LOCK_PENDING = `SELECT user_id FROM trader_activity WHERE pa_trades <> 0 ORDER BY user_id LIMIT ${FOLD_BATCH} FOR UPDATE`;

/** The fold of the given traders' rows (migration 1700000000025's rule). */
const FOLD = `UPDATE trader_activity s SET ${FOLD_PENDING_SET}
WHERE s.user_id = ANY($1::uuid[]) AND s.pa_trades <> 0`;

/**
 * Folds the trades and volume that trades leave pending on their traders' activity rows into the columns the
 * boards rank (migration 1700000000025 says why a trade no longer writes those itself). A trade marks its trader
 * once its activity row is locked (`mark`), so the fold that takes the mark waits for the trade to end and
 * then sees what it left: nothing pending is ever forgotten by the process that left it. That process folds
 * within FOLD_INTERVAL_MS, and before any board of its own is read (`flush`), so its own trades show at once;
 * the rows of a process that died before folding are folded by the others' sweep.
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

  /** Folds every trader marked so far; resolves once they are folded and committed. */
  async flush(): Promise<void> {
    // One fold at a time: a caller arriving during a fold waits for it, then folds whatever was marked since.
    while (this.running) await this.running.catch(() => {});
    if (this.marked.size === 0) return;
    const batch = [...this.marked];
    this.marked = new Set();
    this.running = this.fold(batch).catch((err: unknown) => {
      // Kept for the next fold: a failed transaction folded nothing.
      for (const id of batch) this.marked.add(id);
      throw err;
    });
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
  }

  /** Folds every pending row of every process, in batches (rows a dead process left, and at start). */
  async sweep(): Promise<number> {
    let folded = 0;
    for (;;) {
      const n = await this.db.transaction(async (tx) => {
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
      await this.db.transaction(async (tx) => {
        // Waits for trades still holding these rows; the fold, a statement of its own, then sees what they committed.
        await tx.query(LOCK, [ids], 'board_fold_lock');
        await tx.query(FOLD, [ids], 'board_fold');
      });
    }
  }
}
