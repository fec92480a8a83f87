import type { Queryable } from './database';

/** A reading of the watermark, and the clock when the statement that took it was sent (no later than the snapshot). */
export interface WatermarkReading {
  mark: string;
  at: number;
}

/**
 * The database's commit horizon, for caches that want to know whether anything has committed since they
 * read: `pg_current_snapshot()`, whose xmax is one past the latest finished transaction id and whose list
 * holds the ids still running below it. A transaction that wrote anything has an id, and when it ends that
 * id either raises xmax or leaves the list, so two equal readings mean that no writing transaction of any
 * process ended between them (read-only ones take no id and change nothing; a rollback reads as a change,
 * which only costs a re-read). A reading taken before a cached read is therefore a safe mark for it.
 */
export class CommitWatermark {
  private pending: Promise<WatermarkReading> | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** A reading; callers that come while one is under way share it (its `at` says how old it may be). */
  read(): Promise<WatermarkReading> {
    if (!this.pending) {
      const at = this.clock();
      this.pending = this.db
        .query<{ mark: string }>('SELECT pg_current_snapshot()::text AS mark', [], 'commit_watermark')
        .then((rows) => ({ mark: rows[0]!.mark, at }))
        .finally(() => {
          this.pending = undefined;
        });
    }
    return this.pending;
  }
}
