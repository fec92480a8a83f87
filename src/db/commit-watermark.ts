import type { Queryable } from './database';

/** A reading of the watermark, and the clock when the statement that took it was sent (no later than the snapshot). */
export interface WatermarkReading {
  mark: string;
  at: number;
}

/** The statement whose answer is the mark, and its prepared name. */
export interface MarkStatement {
  sql: string;
  name: string;
}

/**
 * The database's commit horizon: `pg_current_snapshot()`, whose xmax is one past the latest finished transaction
 * id and whose list holds the ids still running below it. A transaction that wrote anything has an id, and when it
 * ends that id either raises xmax or leaves the list, so two equal readings mean that no writing transaction of any
 * process ended between them (read-only ones take no id and change nothing; a rollback reads as a change, which only
 * costs a re-read).
 */
export const COMMIT_HORIZON: MarkStatement = { sql: 'SELECT pg_current_snapshot()::text AS mark', name: 'commit_watermark' };

/**
 * A mark for caches that want to know whether anything they show has committed since they read: by default the
 * commit horizon (any write of any process moves it); a cache of data with a narrower mark of its own (a counter
 * its tables' triggers move) passes that statement. A reading taken before a cached read is a safe mark for it.
 */
export class CommitWatermark {
  private pending: Promise<WatermarkReading> | undefined;
  /** The last reading that came back: a cache may trust it until it is as old as its own bound allows. */
  latest: WatermarkReading | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly clock: () => number = () => performance.now(),
    private readonly statement: MarkStatement = COMMIT_HORIZON,
  ) {}

  /** A reading; callers that come while one is under way share it (its `at` says how old it may be). */
  read(): Promise<WatermarkReading> {
    if (!this.pending) {
      const at = this.clock();
      this.pending = this.db
        .query<{ mark: string }>(this.statement.sql, [], this.statement.name)
        .then((rows) => {
          const reading = { mark: String(rows[0]!.mark), at };
          if (!this.latest || this.latest.at <= at) this.latest = reading;
          return reading;
        })
        .finally(() => {
          this.pending = undefined;
        });
    }
    return this.pending;
  }
}
