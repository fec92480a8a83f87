import type { Database } from '../db/database';
import type { Logger } from '../logger';
import type { Clock } from '../clock';
import type { PriceChange, PriceChanges } from '../domain/trading/price-service';
import { tryAdvisoryLock } from './advisory-lock';
import { FeedError, type FeedMarket, type MarketFeed } from './feed';
import type { MarketStore } from './market-store';

export type SyncOutcome =
  | { status: 'ran'; markets: number; skipped: number; conflicts: number; resolved: string[]; complete: boolean }
  /** Another process holds the sync lock right now. */
  | { status: 'locked' }
  /** Another process synced less than half an interval ago. */
  | { status: 'fresh' }
  /** This process is already syncing. */
  | { status: 'busy' }
  | { status: 'failed'; error: string };

// 'MKTSYNC' in ASCII: one key for the mirror, whichever feed fills it.
const LOCK_KEY = 0x4d4b5453594e43n;

export interface MarketSyncDeps {
  db: Database;
  feed: MarketFeed;
  store: MarketStore;
  log: Logger;
  clock: Clock;
  intervalS: number;
  /** Unlisted unresolved markets looked up one by one per run (to catch resolutions). */
  unlistedPerRun?: number;
  /** Where the prices each write changed go once it committed (resting orders check them). */
  priceChanges?: PriceChanges;
}

/**
 * The mirror job: every MARKET_SYNC_INTERVAL_S, one process (the holder of a PostgreSQL advisory lock)
 * lists the venue's markets, upserts them with their prices, records a price snapshot, and looks up
 * markets that left the listing to catch their resolution. Upstream trouble fails the run and leaves
 * the mirror as it was; it never marks anything resolved or inactive by absence.
 */
export class MarketSync {
  private current: Promise<SyncOutcome> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Run after every sync this process performed (settlement of resolved markets). */
  readonly afterSync: Array<(now: Date) => Promise<unknown>> = [];
  lastOutcome: SyncOutcome | null = null;
  lastSuccessAt: Date | null = null;

  constructor(private readonly deps: MarketSyncDeps) {}

  /** One sync now. `force` skips the freshness check (still one process at a time). */
  runOnce(opts: { force?: boolean } = {}): Promise<SyncOutcome> {
    if (this.current) return Promise.resolve({ status: 'busy' });
    this.current = this.run(opts.force ?? false).finally(() => {
      this.current = null;
    });
    return this.current;
  }

  /**
   * Syncs once (so the first request already finds markets), then every interval. The start waits for
   * that first sync at most `firstSyncWaitMs`: an unreachable upstream delays nothing (it goes on in
   * the background, and stop() still waits for it).
   */
  async start(firstSyncWaitMs = 5000): Promise<void> {
    const safely = () => this.runOnce().catch((err) => this.deps.log.error('market sync crashed', { error: err instanceof Error ? err.message : String(err) }));
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([safely(), new Promise<void>((resolve) => (timeout = setTimeout(resolve, firstSyncWaitMs)))]);
    clearTimeout(timeout);
    this.timer = setInterval(() => void safely(), this.deps.intervalS * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.current;
  }

  private async run(force: boolean): Promise<SyncOutcome> {
    const { db, feed, store, log, clock } = this.deps;
    const lock = await tryAdvisoryLock(db, LOCK_KEY);
    if (!lock) return this.finish({ status: 'locked' });
    let outcome: SyncOutcome;
    try {
      const started = clock.now();
      const state = await store.syncState(feed.source);
      if (!force && state?.last_success_at && started.getTime() - state.last_success_at.getTime() < (this.deps.intervalS * 1000) / 2) {
        return this.finish({ status: 'fresh' });
      }
      await store.recordSyncStart(feed.source, started);
      try {
        outcome = await this.mirror(started);
        const succeededAt = clock.now();
        await store.recordSyncSuccess(feed.source, succeededAt, outcome.status === 'ran' ? outcome.markets : 0, outcome.status === 'ran' ? outcome.skipped : 0);
        this.lastSuccessAt = succeededAt;
        // Logged once the success is recorded, so a process killed after this line has left a fresh mirror
        // behind. startedAt with the line's own time spans the run: test/cluster reads it to see one leader at
        // a time; succeededAt is the success as recorded, which the next process's freshness check measures from
        // (a loaded database can answer the record well after that instant).
        if (outcome.status === 'ran') {
          log.debug('market sync done', {
            feed: feed.source,
            markets: outcome.markets,
            skipped: outcome.skipped,
            complete: outcome.complete,
            startedAt: started.toISOString(),
            succeededAt: succeededAt.toISOString(),
          });
        }
      } catch (err) {
        const message = err instanceof FeedError ? err.message : 'mirror write failed';
        log.error('market sync failed', { feed: feed.source, error: err instanceof Error ? err.message : String(err) });
        await store.recordSyncFailure(feed.source, clock.now(), message).catch(() => undefined);
        outcome = { status: 'failed', error: message };
      }
    } finally {
      await lock.release();
    }
    if (outcome.status === 'ran') {
      for (const hook of this.afterSync) await hook(clock.now()).catch((err) => log.error('after-sync hook failed', { error: String(err) }));
    }
    return this.finish(outcome);
  }

  private async mirror(now: Date): Promise<SyncOutcome> {
    const { feed, store, log } = this.deps;
    const listing = await feed.listMarkets();
    const first = await store.apply(feed.source, listing.markets, now);
    await this.changed(first.changed);
    const resolved = [...first.resolved];
    let written = first.written;
    let conflicts = first.conflicts;
    // Only a complete listing says a market has left it; then each one is asked for directly.
    if (listing.complete) {
      const limit = this.deps.unlistedPerRun ?? (feed.source === 'simulated' ? 1000 : 50);
      const ids = await store.unlisted(
        feed.source,
        listing.markets.map((m) => m.id),
        limit,
      );
      const found: FeedMarket[] = [];
      for (const id of ids) {
        try {
          const m = await feed.market(id);
          if (m && m.id === id) found.push(m);
        } catch (err) {
          if (err instanceof FeedError && err.kind === 'unavailable') break;
          throw err;
        }
      }
      const second = await store.apply(feed.source, found, now);
      await this.changed(second.changed);
      resolved.push(...second.resolved);
      written += second.written;
      conflicts += second.conflicts;
    }
    if (resolved.length) log.info('markets resolved', { feed: feed.source, markets: resolved });
    return { status: 'ran', markets: written, skipped: listing.skipped, conflicts, resolved, complete: listing.complete };
  }

  /** The committed price changes of one write, to their listeners; their trouble never fails the sync. */
  private async changed(changes: PriceChange[]): Promise<void> {
    await this.deps.priceChanges?.emit(changes).catch((err) => this.deps.log.error('price change listeners failed', { error: String(err) }));
  }

  private finish(outcome: SyncOutcome): SyncOutcome {
    this.lastOutcome = outcome;
    return outcome;
  }
}
