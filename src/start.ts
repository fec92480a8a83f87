import type { Express } from 'express';
import type { Config } from './config';
import type { Logger } from './logger';
import { openDatabase, type Database } from './db/database';
import { createServices, type Services } from './services';
import { buildRegistry } from './methods';
import { createApp } from './http/app';
import { systemClock, type Clock } from './registry/context';
import type { RateLimiter } from './limits/rate-limiter';
import type { PriceService } from './domain/trading/price-service';
import type { Resolve } from './outbound/guarded-post';
import { TaskPushWorker } from './a2a-tasks/push-worker';
import { cardSignerOf } from './documents/agent-card';

export interface RunningService {
  app: Express;
  services: Services;
  stop(): Promise<void>;
}

/** Assembles the whole service on a database (opened from config unless given). Used by main, tests and benches. */
export async function startService(
  config: Config,
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
  } = {},
): Promise<RunningService> {
  const registry = buildRegistry();
  const db = opts.db ?? (await openDatabase(config, log));
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
  // Resting orders first: those of markets that closed are cancelled (releasing their shares) before settlement
  // closes the positions, GTD orders past expiresAt expire, and the prices just synced fill the orders they cross.
  services.marketSync.afterSync.push((now) => services.orders.afterSync(now));
  services.marketSync.afterSync.push((now) => services.settlement.runOnce(now));
  // A community market whose settlement was cut short (a crash after resolution) finishes on the next sync.
  services.marketSync.afterSync.push((now) => services.communityTrading.settlePending(now));
  // Idempotency keys are kept 24 hours; the leader drops older ones as part of its periodic work.
  services.marketSync.afterSync.push((now) => services.idempotency.purge(now));
  // Search's term counts follow the mirror (they steer its plan, never its results).
  services.marketSync.afterSync.push((now) => services.markets.refreshSearchTerms(now));
  // Each account's equity once an hour, at the prices this sync mirrored (get_portfolio_history); after settlement,
  // so a market resolved in this sync is counted as its payout, not as a position.
  services.marketSync.afterSync.push((now) => services.portfolioHistory.snapshot(now));
  // Benchmark records of the accounts whose markets resolved (and once a day of every active account, for risk); after
  // settlement and the snapshot, so they score the books this sync left.
  services.marketSync.afterSync.push((now) => services.benchmarkFolder.runOnce(now));
  // The reference forecasters' day (in the background, paced under the rate limits), once per UTC day.
  if (config.REFERENCE_FORECASTERS) services.marketSync.afterSync.push(async (now) => services.referenceForecasters.kick(now));
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
