import type { Express } from 'express';
import type { Config } from './config';
import type { Logger } from './logger';
import { openDatabase, type Database } from './db/database';
import { attachSyncWork, createServices, type Services } from './services';
import { buildRegistry } from './methods';
import { createApp } from './http/app';
import { systemClock, type Clock } from './registry/context';
import type { RateLimiter } from './limits/rate-limiter';
import type { PriceService } from './domain/trading/price-service';
import type { Resolve } from './outbound/guarded-post';
import { TaskPushWorker } from './a2a-tasks/push-worker';
import { cardSignerOf } from './documents/agent-card';
import { RunHost } from './replay/run-host';
import { runDatabases } from './db/run-database';
import { venueMasterSecret } from './market-data/simulated/venue-secret-store';

export interface RunningService {
  app: Express;
  services: Services;
  stop(): Promise<void>;
}

/** Assembles the whole service on a database (opened from config unless given). Used by main, tests and benches. */
export async function startService(
  given: Config,
  log: Logger,
  opts: {
    db?: Database;
    clock?: Clock;
    validateOutput?: boolean;
    limiter?: RateLimiter;
    background?: boolean;
    prices?: PriceService;
    /** Name resolution of outbound calls (webhooks); tests stub it. */
    resolve?: Resolve;
    /** The built web app (default dist/web); null: plain server-rendered pages. */
    webDir?: string | null;
    /** A migrated, empty embedded database image each replay run on PGlite starts from (tests share theirs). */
    runImage?: () => Promise<Blob>;
  } = {},
): Promise<RunningService> {
  const registry = buildRegistry();
  const db = opts.db ?? (await openDatabase(given, log));
  // The simulated venue's master secret: configured, or kept in the database (sealed outcomes, issue 49).
  const config: Config = { ...given, SIM_SECRET: await venueMasterSecret(given, db) };
  const services = createServices({
    config,
    db,
    log,
    clock: opts.clock ?? systemClock,
    registry,
    limiter: opts.limiter,
    prices: opts.prices,
    resolve: opts.resolve,
  });
  // The market mirror: what it resolves gets settled; unless tests drive it by hand (background: false,
  // then services.marketSync.runOnce()), it syncs once before serving, so the first request finds markets.
  attachSyncWork(services);
  // Replay runs: each its own services on its own database; a call with a run's key is served by that run's services.
  const runs = new RunHost(services, runDatabases(config, log, { image: opts.runImage }));
  services.replay = runs;
  services.runs = runs;
  services.stoppers.push(() => services.referenceForecasters.stop());
  // Wake-ups of committed account events (SSE, webhooks, A2A tasks), from this process and every other.
  await services.eventFeed.start((channel, onPayload, onResumed) => db.listen(channel, onPayload, onResumed));
  services.stoppers.push(() => services.eventFeed.stop());
  // Trades' pending figures reach the boards within a second while boards are read, in every process (each
  // folds its own; all sweep).
  await services.trackRecord.folder.start();
  services.stoppers.push(() => services.trackRecord.folder.stop());
  // GTD orders expire within a second of expiresAt, in every process (each expiry is guarded by the order's state).
  if (opts.background !== false) services.orderExpiry.start();
  services.stoppers.push(() => services.orderExpiry.stop());
  // Fills started by live quotes finish before the database closes.
  services.stoppers.push(() => services.priceChanges.idle());
  // A2A push notifications: each order event of an account with push targets is POSTed to them (one process per event).
  const taskPush = new TaskPushWorker({
    store: services.taskPush,
    orders: services.orders,
    feed: services.eventFeed,
    listen: (channel, onPayload, onResumed) => db.listen(channel, onPayload, onResumed),
    config,
    log,
  });
  await taskPush.start();
  services.stoppers.unshift(() => taskPush.stop());
  // A signing key that cannot be read stops the start, not the first request for the card.
  await cardSignerOf(config);
  // Changed prices announced by whichever process synced (the price streams).
  await services.priceBroadcast.start((channel, onPayload, onResumed) => db.listen(channel, onPayload, onResumed));
  services.stoppers.push(() => services.priceBroadcast.stop());
  services.stoppers.push(() => services.marketSync.stop());
  services.stoppers.push(() => runs.close());
  services.stoppers.push(() => services.idempotency.close());
  services.stoppers.push(() => services.webhookWorker.stop());
  if (opts.background !== false) {
    await services.marketSync.start();
    // Webhook deliveries: woken by the event feed, polling each second for retries (tests drive it with runOnce()).
    services.webhookWorker.start();
  }
  const app = createApp(services, { validateOutput: opts.validateOutput, webDir: opts.webDir });
  return {
    app,
    services,
    stop: async () => {
      for (const stop of services.stoppers) await stop();
      await services.limiter.close();
      if (!opts.db) await db.close();
    },
  };
}
