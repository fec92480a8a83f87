import type { Config } from './config';
import type { Database } from './db/database';
import type { Logger } from './logger';
import type { Registry } from './registry/registry';
import type { Clock } from './clock';
import type { MethodServices } from './registry/method-services';
import { AccountService } from './domain/accounts/account-service';
import { AccountDeletion } from './domain/accounts/account-deletion';
import { AccountSettings } from './domain/accounts/account-settings';
import { createIdentity } from './auth/identity';
import type { PriceChanges, PriceService } from './domain/trading/price-service';
import { createMarketData } from './market-data/market-data';
import { venuePricePath } from './market-data/venue-price-path';
import type { MarketFeed } from './market-data/feed';
import type { MarketSync } from './market-data/market-sync';
import { IdempotencyStore } from './domain/idempotency/idempotency-store';
import { TradeHooks } from './domain/trading/trade-hooks';
import { TradeEngine } from './domain/trading/engine';
import { TradingService } from './domain/trading/trading-service';
import { venueBooks } from './market-data/venue-books';
import { OrderService } from './domain/orders/order-service';
import { OrderExpiry } from './domain/orders/order-expiry';
import { TradeHistory } from './domain/trading/trade-history';
import { ForecastService } from './domain/forecasts/forecast-service';
import { CommentService } from './domain/comments/comment-service';
import { BenchmarkService } from './domain/benchmark/benchmark-service';
import { BenchmarkFolder } from './domain/benchmark/benchmark-folder';
import { ReferenceAccounts } from './domain/benchmark/reference-accounts';
import { ReferenceForecasters } from './transports/reference-forecasters';
import { PortfolioHistoryService } from './domain/portfolio/portfolio-history';
import { SettlementService } from './domain/trading/settlement-service';
import { createTrackRecord } from './domain/track-record';
import { CommunityMarketService } from './domain/community/community-market-service';
import { CommunityTradingService } from './domain/community/community-trading-service';
import { EventLog } from './domain/events/event-log';
import { EventFeed } from './domain/events/event-feed';
import { TaskPushStore } from './domain/task-push/task-push-store';
import { recordTradeEvents } from './domain/events/trade-events';
import { createRateLimiter, type RateLimiter } from './limits/rate-limiter';
import { WebhookEndpoints } from './domain/webhooks/webhook-endpoints';
import { WebhookDeliveries } from './domain/webhooks/webhook-deliveries';
import { WebhookService } from './webhooks/webhook-service';
import { DeliveryWorker } from './webhooks/delivery-worker';
import type { Resolve } from './outbound/guarded-post';
import { Watchlist } from './domain/watchlist/watchlist';
import { PriceAlerts } from './domain/watchlist/price-alerts';

/** Everything the process holds, built once per process (or per test app): what a handler reaches through
 * ctx.services (MethodServices, owned by the registry) and what only the process needs (the feed, the sync job). */
export interface Services extends MethodServices {
  prices: PriceService;
  /** The venue chosen by MARKET_FEED (simulated or polymarket). */
  feed: MarketFeed;
  /** The mirror job; tests drive it with runOnce(). */
  marketSync: MarketSync;
  /** Every price change the service sees (sync writes, live quotes that moved); resting orders listen. */
  priceChanges: PriceChanges;
  /** Expires GTD orders within a second (started in start.ts). */
  orderExpiry: OrderExpiry;
  tradeHooks: TradeHooks;
  /** The market, coin-flip and favourite reference accounts: they act once a day after a sync (start.ts). */
  referenceForecasters: ReferenceForecasters;
  /** Scores benchmark records after each sync (start.ts); tests drive it with runOnce(now). */
  benchmarkFolder: BenchmarkFolder;
  /** Sends webhook deliveries; started with the background work, or driven by tests with runOnce(). */
  webhookWorker: DeliveryWorker;
  /** Extra readiness checks (market feed status) for GET /ready. */
  readiness?: () => Promise<Record<string, { status: string; ok: boolean }>>;
  /** Background work to stop on shutdown (sync jobs, timers). */
  stoppers: Array<() => Promise<void> | void>;
}

export function createServices(args: {
  config: Config;
  db: Database;
  log: Logger;
  clock: Clock;
  registry: Registry;
  limiter?: RateLimiter;
  prices?: PriceService;
  /** Name resolution of outbound calls (webhooks); tests stub it to play DNS rebinding. Default: the system's. */
  resolve?: Resolve;
  /** The venue, instead of the one MARKET_FEED names (a replay run of the recorded mirror). */
  feed?: MarketFeed;
}): Services {
  const { config, db, log, clock, registry } = args;
  const marketData = createMarketData({ config, db, log, clock, prices: args.prices, feed: args.feed });
  const prices = marketData.prices;
  const tradeHooks = new TradeHooks();
  // First of the trade listeners: an account's log shows the trade (and its balance) before what it earned.
  recordTradeEvents(tradeHooks);
  const limiter = args.limiter ?? createRateLimiter(config, log);
  const identity = createIdentity({ db, clock, limiter });
  const accounts = new AccountService(db);
  const accountDeletion = new AccountDeletion(db);
  const accountSettings = new AccountSettings(db);
  const settlement = new SettlementService(db, tradeHooks, log);
  // The one trade path every venue's buys and sales write the books through.
  const tradePath = new TradeEngine(tradeHooks);
  const communityTrading = new CommunityTradingService(db, tradeHooks, settlement, tradePath);
  const trading = new TradingService(db, prices, tradeHooks, tradePath, venueBooks({ simFeeBps: config.SIM_FEE_BPS }));
  // A deleted account's key must fail at once, not when the authenticator's cache entry expires.
  accountDeletion.onDeleted((userId) => identity.authenticator.forgetKeysOf(userId));
  // The benchmark's records and boards show names and leave deleted accounts out: a deletion or rename here shows at once.
  const benchmark = new BenchmarkService(db, { path: venuePricePath(marketData.feed) });
  accountDeletion.onDeleted(() => benchmark.invalidate());
  accountSettings.onRenamed(() => benchmark.invalidate());
  const orders = new OrderService(db, prices, tradePath, tradeHooks, log, config.PRICE_MAX_AGE_S);
  // A position settles with its resting sell orders cancelled in the same transaction, so no share stays reserved.
  settlement.onHolds((tx, positionId) => orders.holdsOn(tx, positionId, 'market resolved'));
  // A position closed by its owner (close_position) sells whole: its resting sell orders are cancelled in the same transaction.
  trading.onHolds((tx, positionId) => orders.holdsOn(tx, positionId, 'position closed by the owner'));
  // A resting order fills at every price change the service sees, not only after a sync batch.
  marketData.priceChanges.on((changes) => orders.onPriceChanges(changes, clock.now()));
  // Watchlist price alerts fire on the same price path (after the fills, which they never affect).
  const priceAlerts = new PriceAlerts(db, log);
  marketData.priceChanges.on((changes) => priceAlerts.onPriceChanges(changes, clock.now()));
  // A deleted account's watchlist goes with it.
  accountDeletion.onDelete((tx, account) => Watchlist.deleteAllOf(tx, account.id));
  // A deleted account's resting orders are cancelled once the deletion commits (each in its own transaction, as a
  // cancel is; not inside the deletion, which holds the account row that a fill takes after the order row).
  accountDeletion.onDeleted((userId) => {
    orders
      .cancelAllOf(userId, 'account deleted', clock.now())
      .catch((err) => log.error("cancelling a deleted account's orders failed", { error: String(err) }));
  });
  const eventFeed = new EventFeed(log);
  const webhookDeliveries = new WebhookDeliveries(db);
  const webhookWorker = new DeliveryWorker(webhookDeliveries, eventFeed, clock, log, {
    schedule: config.WEBHOOK_RETRY_SCHEDULE_S,
    timeoutMs: config.OUTBOUND_TIMEOUT_MS,
    allowPrivate: config.OUTBOUND_ALLOW_PRIVATE,
    resolve: args.resolve,
  });
  // A deleted account's webhooks go with it (and everything queued for them), in the deletion's transaction.
  accountDeletion.onDelete((tx, account) => WebhookEndpoints.deleteAllOf(tx, account.id));
  const taskPush = new TaskPushStore(db);
  // A deleted account's push targets go with it (their URLs and tokens are the account's).
  accountDeletion.onDelete((tx, account) => taskPush.forget(tx, account.id));
  const comments = new CommentService(db);
  // A deleted account's comments go with it: what it wrote is its personal data.
  accountDeletion.onDelete((tx, account) => comments.erase(tx, account.id));
  const services: Services = {
    config,
    db,
    log,
    clock,
    registry,
    accounts,
    accountDeletion,
    accountSettings,
    authenticator: identity.authenticator,
    limiter,
    identity,
    signInAfterRegistration: identity.signInAfterRegistration,
    prices,
    feed: marketData.feed,
    markets: marketData.markets,
    marketSync: marketData.marketSync,
    priceChanges: marketData.priceChanges,
    priceBroadcast: marketData.priceBroadcast,
    orderExpiry: new OrderExpiry(orders, clock, log),
    readiness: marketData.readiness,
    idempotency: new IdempotencyStore(db),
    tradeHooks,
    trading,
    orders,
    tradeHistory: new TradeHistory(db),
    forecasts: new ForecastService(db, prices),
    comments,
    benchmark,
    benchmarkFolder: new BenchmarkFolder(db, log, () => benchmark.invalidate(), venuePricePath(marketData.feed)),
    portfolioHistory: new PortfolioHistoryService(db),
    settlement,
    trackRecord: createTrackRecord({ db, tradeHooks, accounts, deletion: accountDeletion, settings: accountSettings, log }),
    community: new CommunityMarketService(db, communityTrading),
    events: new EventLog(db),
    eventFeed,
    webhooks: new WebhookService(new WebhookEndpoints(db), webhookDeliveries, config, () => webhookWorker.kick(), args.resolve),
    webhookWorker,
    taskPush,
    communityTrading,
    watchlist: new Watchlist(db, config.WATCHLIST_MAX_MARKETS),
    stoppers: [],
    // The reference forecasters call the registry with these very services, as any in-process client would.
    referenceForecasters: new ReferenceForecasters(
      () => ({ services, clock, log, validateOutput: false, registry, origin: config.BASE_URL ?? `http://localhost:${config.PORT}` }),
      new ReferenceAccounts(db, accounts),
    ),
  };
  return services;
}

/**
 * What follows every market sync, in order: the live service's and each replay run's (src/replay/run-host.ts), so a
 * run's resolutions, settlements and records follow its clock by the same steps.
 */
export function attachSyncWork(services: Services): void {
  const after = services.marketSync.afterSync;
  // Resting orders first: those of markets that closed are cancelled (releasing their shares) before settlement
  // closes the positions, GTD orders past expiresAt expire, and the prices just synced fill the orders they cross.
  after.push((now) => services.orders.afterSync(now));
  after.push((now) => services.settlement.runOnce(now));
  // A community market whose settlement was cut short (a crash after resolution) finishes on the next sync.
  after.push((now) => services.communityTrading.settlePending(now));
  // Idempotency keys are kept 24 hours; the leader drops older ones as part of its periodic work.
  after.push((now) => services.idempotency.purge(now));
  // Search's term counts follow the mirror (they steer its plan, never its results).
  after.push((now) => services.markets.refreshSearchTerms(now));
  // Each account's equity once an hour, at the prices this sync mirrored (get_portfolio_history); after settlement,
  // so a market resolved in this sync is counted as its payout, not as a position.
  after.push((now) => services.portfolioHistory.snapshot(now));
  // Benchmark records of the accounts whose markets resolved (and once a day of every active account, for risk); after
  // settlement and the snapshot, so they score the books this sync left.
  after.push((now) => services.benchmarkFolder.runOnce(now));
  // The reference forecasters' day (in the background, paced under the rate limits), once per UTC day.
  if (services.config.REFERENCE_FORECASTERS) after.push(async (now) => services.referenceForecasters.kick(now));
}
