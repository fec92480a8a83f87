/** How many notifications one statement carries at most (each is a row of its arrays). */
const MOST_PER_STATEMENT = 1000;

/**
 * Unqualified, so a replay run's schema finds its own pg_notify first (run-database.ts: its channels carry the run's
 * suffix). One statement, whatever the number of notifications.
 */
const NOTIFY_ALL = 'SELECT count(pg_notify(c, p)) FROM unnest($1::text[], $2::text[]) AS n(c, p)';

/**
 * NOTIFYs sent after their transactions commit, what several commits announced in one statement (Queryable.notify).
 *
 * A NOTIFY inside a transaction takes PostgreSQL's database-wide notification lock at commit and holds it through the
 * commit's WAL flush, so every notifying commit of the database waits for the one before it to reach the disk: the
 * trade bench's raw buy ran at 0.35–0.39 of the same buy without its events (bench/README.md). Sent afterwards,
 * commits flush together again, and while one statement is under way the next collects everything that committed
 * meanwhile. The price: a notification arrives a moment after its commit, and never if the process dies between the
 * two. Every listener here takes a notification as a wake only and reads the truth from the tables (EventFeed also
 * wakes its subscribers to catch up every few seconds).
 */
export class Announcer {
  private queued: Array<[channel: string, payload: string]> = [];
  private flushing: Promise<void> | undefined;

  constructor(
    /** Runs one autocommit statement. */
    private readonly send: (sql: string, params: unknown[]) => Promise<unknown>,
    /** Hears a statement that failed, and how many notifications were lost with it. */
    private readonly onFailed: (err: unknown, lost: number) => void,
  ) {}

  /** Sends `payload` on `channel` soon, with whatever else is waiting; call it once the transaction has committed. */
  announce(channel: string, payload: string): void {
    this.queued.push([channel, payload]);
    this.flushing ??= this.flush();
  }

  /** Resolves once everything announced so far has been sent (or has failed). */
  async drained(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    // What commits in this same tick joins the first statement.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.queued.length) {
        const batch = this.queued.splice(0, MOST_PER_STATEMENT);
        try {
          await this.send(NOTIFY_ALL, [batch.map(([c]) => c), batch.map(([, p]) => p)]);
        } catch (err) {
          this.onFailed(err, batch.length);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }
}
